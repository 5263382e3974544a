/**
 * Ids whose follow-up work runs later, together: a run starts `delayMs` after the oldest pending id
 * was added and takes every id at least half that old, so removals close together share one run
 * and none runs sooner than `delayMs / 2`. A failed run puts its ids back as if added again. Used
 * for the task documents of removed workflows, which must wait until recently written tasks are
 * searchable.
 */
export class DeferredRemovals {
  /** id -> when it was added; insertion order is age order, oldest first. */
  private readonly due = new Map<string, number>();
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly delayMs: number,
    private readonly run: (ids: string[]) => Promise<void>,
    private readonly onError: (err: unknown, ids: string[]) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get pending(): number {
    return this.due.size;
  }

  add(id: string): void {
    if (!this.due.has(id)) this.due.set(id, this.now());
    this.arm();
  }

  /** Runs every pending id now, due or not (shutdown, tests); resolves when that run has ended. */
  async runAll(): Promise<void> {
    this.clearTimer();
    while (this.running) await this.running;
    await this.runIds([...this.due.keys()]);
  }

  /** No more runs on the timer (what is pending stays for `runAll`). */
  stop(): void {
    this.stopped = true;
    this.clearTimer();
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.stopped || this.timer || this.running || this.due.size === 0) return;
    const oldest = this.due.values().next().value as number;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        if (this.running) return; // the running batch re-arms when it ends
        const addedBy = this.now() - this.delayMs / 2;
        void this.runIds([...this.due].filter(([, at]) => at <= addedBy).map(([id]) => id));
      },
      Math.max(0, oldest + this.delayMs - this.now()),
    );
    this.timer.unref();
  }

  private async runIds(ids: string[]): Promise<void> {
    if (ids.length === 0) {
      this.arm();
      return;
    }
    for (const id of ids) this.due.delete(id);
    this.running = this.run(ids).catch((err) => {
      this.onError(err, ids);
      const again = this.now();
      for (const id of ids) if (!this.due.has(id)) this.due.set(id, again);
    });
    try {
      await this.running;
    } finally {
      this.running = undefined;
      this.arm();
    }
  }
}
