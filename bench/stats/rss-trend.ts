/** Whether memory stays flat while completed workflows pile up: the judgement is pure, the samples come from /proc. */

export interface RssSample {
  completedWorkflows: number;
  rssMb: number;
}

export interface RssTrend {
  firstMb: number;
  maxMb: number;
  baselineMb: number;
  finalMb: number;
  growthMb: number;
  /** Least-squares slope after the warm-up share of the run, in MB per 10,000 workflows. */
  slopeMbPer10k: number;
  flat: boolean;
  rule: string;
}

/**
 * The steady part starts at `warmupShare` of the final count (caches fill and the JIT settles before
 * it); its first sample is the baseline. Flat means that over the steady part neither the end reading
 * nor the least-squares trend rises by more than max(absoluteMb, relative * baseline); a single reading
 * alone would judge garbage-collector timing rather than memory held.
 */
export function judgeRssTrend(samples: readonly RssSample[], opts: { warmupShare?: number; absoluteMb?: number; relative?: number } = {}): RssTrend | null {
  const warmupShare = opts.warmupShare ?? 0.5;
  const absoluteMb = opts.absoluteMb ?? 16;
  const relative = opts.relative ?? 0.1;
  if (samples.length < 2) return null;
  const last = samples[samples.length - 1] as RssSample;
  const threshold = last.completedWorkflows * warmupShare;
  const steady = samples.filter((s) => s.completedWorkflows >= threshold);
  if (steady.length < 2) return null;
  const base = steady[0] as RssSample;
  const growthMb = last.rssMb - base.rssMb;
  const slope = leastSquaresSlope(steady);
  const trendGrowthMb = slope * (last.completedWorkflows - base.completedWorkflows);
  const allowed = Math.max(absoluteMb, relative * base.rssMb);
  return {
    firstMb: (samples[0] as RssSample).rssMb,
    maxMb: Math.max(...samples.map((x) => x.rssMb)),
    baselineMb: base.rssMb,
    finalMb: last.rssMb,
    growthMb: Math.round(growthMb * 10) / 10,
    slopeMbPer10k: Math.round(slope * 10_000 * 100) / 100,
    flat: growthMb <= allowed && trendGrowthMb <= allowed,
    rule: `from ${base.completedWorkflows} to ${last.completedWorkflows} workflows, end growth and trend growth <= max(${absoluteMb} MB, ${relative * 100}% of baseline)`,
  };
}

function leastSquaresSlope(points: readonly RssSample[]): number {
  const n = points.length;
  const mx = points.reduce((a, p) => a + p.completedWorkflows, 0) / n;
  const my = points.reduce((a, p) => a + p.rssMb, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.completedWorkflows - mx) * (p.rssMb - my);
    den += (p.completedWorkflows - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

export interface HeapSample {
  completedWorkflows: number;
  /** V8's used heap as Baton's /metrics reports it (`nodejs_heap_size_used_bytes`), in MB. */
  heapUsedMb: number;
}

export interface HeapFloor {
  firstHalfMb: number;
  secondHalfMb: number;
  growthMb: number;
  flat: boolean;
  rule: string;
}

/**
 * What the process keeps alive, as opposed to what V8 keeps reserved: the used heap swings between
 * collections, and its lowest reading over a stretch of the run approaches the live objects after a
 * major GC. Over the steady part (from `warmupShare` of the final count) the floor of its second half
 * is compared with the floor of its first; RSS alone also follows the heap V8 reserves and keeps.
 */
export function judgeHeapFloor(samples: readonly HeapSample[], opts: { warmupShare?: number; absoluteMb?: number; relative?: number } = {}): HeapFloor | null {
  const warmupShare = opts.warmupShare ?? 0.5;
  const absoluteMb = opts.absoluteMb ?? 8;
  const relative = opts.relative ?? 0.1;
  if (samples.length < 4) return null;
  const last = samples[samples.length - 1] as HeapSample;
  const steady = samples.filter((s) => s.completedWorkflows >= last.completedWorkflows * warmupShare);
  if (steady.length < 4) return null;
  const mid = (steady[0]!.completedWorkflows + last.completedWorkflows) / 2;
  const floor = (xs: readonly HeapSample[]): number => Math.min(...xs.map((x) => x.heapUsedMb));
  const firstHalfMb = floor(steady.filter((s) => s.completedWorkflows < mid));
  const secondHalfMb = floor(steady.filter((s) => s.completedWorkflows >= mid));
  const growthMb = Math.round((secondHalfMb - firstHalfMb) * 10) / 10;
  const allowed = Math.max(absoluteMb, relative * firstHalfMb);
  return {
    firstHalfMb: Math.round(firstHalfMb * 10) / 10,
    secondHalfMb: Math.round(secondHalfMb * 10) / 10,
    growthMb,
    flat: growthMb <= allowed,
    rule: `lowest used heap of each half from ${steady[0]!.completedWorkflows} to ${last.completedWorkflows} workflows, growth <= max(${absoluteMb} MB, ${relative * 100}% of the first)`,
  };
}
