// How long to wait before the next attempt of work that keeps failing: doubling from a first delay up to a cap.

export interface Backoff {
  firstMs: number;
  maxMs: number;
}

/** The delay before the attempt that follows `failures` consecutive failures (1 or more). */
export function backoffDelayMs(failures: number, b: Backoff): number {
  const doublings = Math.max(0, Math.min(failures - 1, 30));
  return Math.min(b.maxMs, b.firstMs * 2 ** doublings);
}
