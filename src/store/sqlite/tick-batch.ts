/**
 * Items added in the same event-loop tick, applied by one call of `apply` (one SQLite transaction):
 * a purge removes many executions at once.
 */
export class TickBatch<T> {
  private queued: Array<{ item: T; resolve(): void; reject(e: unknown): void }> = [];

  constructor(private readonly apply: (items: T[]) => void) {}

  /** Settles once the batch holding `item` is applied; rejects with its error when it fails. */
  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.queued.length === 0) setImmediate(() => this.flush());
      this.queued.push({ item, resolve, reject });
    });
  }

  private flush(): void {
    const batch = this.queued;
    this.queued = [];
    try {
      this.apply(batch.map((q) => q.item));
    } catch (e) {
      for (const q of batch) q.reject(e);
      return;
    }
    for (const q of batch) q.resolve();
  }
}
