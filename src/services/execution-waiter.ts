// Lets a request wait for executions to change: actors of this process call `changed` after each
// commit, which wakes the waiters at once; a short poll covers changes made by other processes.

export type WaitCheck<T> = () => Promise<{ done: true; value: T } | { done: false; watch: Iterable<string> }>;

export interface WaitOutcome<T> {
  value: T | undefined;
  timedOut: boolean;
}

export class ExecutionWaiter {
  private readonly listeners = new Set<(workflowId: string) => void>();

  constructor(private readonly pollMs = 100) {}

  /** Called after a commit of this workflow. */
  changed(workflowId: string): void {
    for (const l of this.listeners) l(workflowId);
  }

  /**
   * Runs `check` until it reports done or `deadline` (epoch ms) passes. Between checks it sleeps
   * until a watched execution changes or the poll interval ends; a change made while `check` ran
   * (by the check itself, say) starts the next check at once.
   */
  async until<T>(check: WaitCheck<T>, deadline: number, signal?: AbortSignal): Promise<WaitOutcome<T>> {
    let changedDuringCheck = new Set<string>();
    let watching = new Set<string>();
    let wake: (() => void) | undefined;
    const listener = (id: string): void => {
      changedDuringCheck.add(id);
      if (wake && watching.has(id)) wake();
    };
    this.listeners.add(listener);
    try {
      for (;;) {
        changedDuringCheck = new Set();
        const r = await check();
        if (r.done) return { value: r.value, timedOut: false };
        const left = deadline - Date.now();
        if (left <= 0 || signal?.aborted) return { value: undefined, timedOut: true };
        watching = new Set(r.watch);
        if ([...watching].some((id) => changedDuringCheck.has(id))) continue;
        await new Promise<void>((resolve) => {
          const done = (): void => {
            clearTimeout(timer);
            wake = undefined;
            signal?.removeEventListener('abort', done);
            resolve();
          };
          const timer = setTimeout(done, Math.min(left, this.pollMs));
          wake = done;
          signal?.addEventListener('abort', done, { once: true });
        });
      }
    } finally {
      this.listeners.delete(listener);
    }
  }
}
