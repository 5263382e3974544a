/**
 * The sliding window of failed attempts (pure): when the next attempt may come, from one subject's
 * failure times still inside the window, oldest first.
 */

/** 0 when one more attempt is allowed; else the milliseconds until enough counted failures leave the window. */
export function retryAfterMs(live: readonly number[], limit: number, windowMs: number, now: number): number {
  if (live.length < limit) return 0;
  return Math.max(1, live[live.length - limit]! + windowMs - now);
}

/** Whole seconds for a Retry-After header (at least 1). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
