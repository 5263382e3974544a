/** The open-loop start schedule: a linear ramp from 0 to the rate over `rampMs`, then the rate held (pure). */

/** How many starts are due by `t` ms after the beginning (start 0 is due at 0). */
export function startsDue(t: number, ratePerSecond: number, rampMs: number): number {
  const r = ratePerSecond / 1000;
  if (t < 0) return 0;
  if (rampMs <= 0 || t >= rampMs) return Math.floor(r * (t - rampMs / 2)) + 1;
  return Math.floor((r * t * t) / (2 * rampMs)) + 1;
}

/** When start number `k` (from 0) is due, in ms after the beginning: the inverse of startsDue. */
export function intendedOffsetMs(k: number, ratePerSecond: number, rampMs: number): number {
  const r = ratePerSecond / 1000;
  if (rampMs > 0 && k < (r * rampMs) / 2) return Math.sqrt((2 * rampMs * k) / r);
  return k / r + rampMs / 2;
}
