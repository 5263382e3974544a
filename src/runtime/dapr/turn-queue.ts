/**
 * Per-key FIFO of async jobs: at most one job per key runs at a time. The Dapr sidecar already
 * serialises calls per actor; this is the host's own guard against a second path in (a stray
 * direct call, or double delivery during a placement change).
 */
export class TurnQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(job, job);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    // Forget the key once nothing is queued behind this job, so idle actors cost no memory.
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with a job running or queued. */
  busyKeys(): string[] {
    return [...this.tails.keys()];
  }
}
