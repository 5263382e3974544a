/**
 * The sliding window of failed attempts (pure): failure times of one subject, oldest first, kept to
 * the newest `limit` (no more are needed to decide), and when the next attempt may come.
 */

/** The failure times still inside the window at `now`. */
export function liveFailures(times: readonly number[], windowMs: number, now: number): number[] {
  return times.filter((t) => t > now - windowMs);
}

/** 0 when one more attempt is allowed; else the milliseconds until the oldest counted failure leaves the window. */
export function retryAfterMs(live: readonly number[], limit: number, windowMs: number, now: number): number {
  if (live.length < limit) return 0;
  return Math.max(1, live[live.length - limit]! + windowMs - now);
}

/** Whole seconds for a Retry-After header (at least 1). */
export const retryAfterSeconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));
