/** One FIFO lock per actor key: the double's turn-based concurrency (daprd's lock is FIFO since 1.15). */
export class FifoLocks {
  private readonly tails = new Map<string, Promise<void>>();
  private readonly depth = new Map<string, number>();

  run<T>(key: string, job: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    this.depth.set(key, (this.depth.get(key) ?? 0) + 1);
    const result = prev.then(job);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      const left = (this.depth.get(key) ?? 1) - 1;
      if (left === 0) {
        this.depth.delete(key);
        this.tails.delete(key);
      } else this.depth.set(key, left);
    });
    return result;
  }

  busy(key: string): boolean {
    return (this.depth.get(key) ?? 0) > 0;
  }
}
