/** Rates over a measurement window from two snapshots of monotonically growing counters. */

export interface CounterSnapshot {
  /** Monotonic clock reading in milliseconds. */
  atMs: number;
  values: Record<string, number>;
}

/** Per-second rate of every counter present in both snapshots; the window must be positive. */
export function ratesBetween(from: CounterSnapshot, to: CounterSnapshot): Record<string, number> {
  const seconds = (to.atMs - from.atMs) / 1000;
  if (!(seconds > 0)) throw new RangeError('window must have a positive length');
  const rates: Record<string, number> = {};
  for (const [key, end] of Object.entries(to.values)) {
    const start = from.values[key];
    if (start === undefined) continue;
    rates[key] = Math.round(((end - start) / seconds) * 10) / 10;
  }
  return rates;
}

/** Ratio rounded to three decimals, or null when the reference is missing or zero. */
export function ratio(value: number | null | undefined, reference: number | null | undefined): number | null {
  if (value == null || reference == null || !(reference > 0)) return null;
  return Math.round((value / reference) * 1000) / 1000;
}

/** CPU milliseconds per task: cores busy over the window × 1000 ÷ tasks per second (pure). */
export const cpuMsPerTask = (cores: number | null | undefined, tasksPerSecond: number): number | null =>
  cores == null || !(tasksPerSecond > 0) ? null : Math.round(((cores * 1000) / tasksPerSecond) * 100) / 100;
