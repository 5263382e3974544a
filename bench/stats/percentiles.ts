/** Latency figures from raw samples: exact nearest-rank percentiles over a sorted copy (no binning error). */

export interface LatencySummary {
  count: number;
  min: number;
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

/** Nearest-rank percentile of an ascending array: the smallest value with at least q% of samples at or below it. */
export function percentileOfSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of an empty sample');
  if (!(q >= 0 && q <= 100)) throw new RangeError(`percentile ${q} is outside 0..100`);
  const rank = Math.max(1, Math.ceil((q / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** Summary of samples in milliseconds, or null when there are none (JSON has no NaN). */
export function summarize(samples: ArrayLike<number>): LatencySummary | null {
  const n = samples.length;
  if (n === 0) return null;
  const sorted = Float64Array.from(samples).sort();
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i] as number;
  return {
    count: n,
    min: round3(sorted[0] as number),
    mean: round3(sum / n),
    p50: round3(percentileOfSorted(sorted, 50)),
    p90: round3(percentileOfSorted(sorted, 90)),
    p99: round3(percentileOfSorted(sorted, 99)),
    p999: round3(percentileOfSorted(sorted, 99.9)),
    max: round3(sorted[n - 1] as number),
  };
}

/**
 * Collects samples in a growable Float64Array. Past `capacity` it keeps a uniform reservoir
 * (Algorithm R) so that memory stays bounded on the longest runs; `random` is injectable for tests.
 */
export class LatencyRecorder {
  private values: Float64Array;
  private length = 0;
  private seen = 0;

  constructor(
    private readonly capacity = 4_000_000,
    private readonly random: () => number = Math.random,
  ) {
    this.values = new Float64Array(Math.min(1024, capacity));
  }

  record(ms: number): void {
    if (!Number.isFinite(ms)) return;
    this.seen++;
    if (this.length < this.capacity) {
      if (this.length === this.values.length) {
        const grown = new Float64Array(Math.min(this.capacity, this.values.length * 2));
        grown.set(this.values);
        this.values = grown;
      }
      this.values[this.length++] = ms;
      return;
    }
    const slot = Math.floor(this.random() * this.seen);
    if (slot < this.capacity) this.values[slot] = ms;
  }

  /** How many samples were offered since the last reset (may exceed what is kept). */
  get count(): number {
    return this.seen;
  }

  reset(): void {
    this.length = 0;
    this.seen = 0;
  }

  summary(): LatencySummary | null {
    const s = summarize(this.values.subarray(0, this.length));
    return s && { ...s, count: this.seen };
  }
}
