import { z } from 'zod';

// The console's overview: executions started, completed and failed per minute by workflow name over the
// last hour, the slowest and most failing workflows, task wait times and queue depths. The search index
// aggregates (SQL GROUP BY, Elasticsearch aggregations) into OverviewRows; shapeOverview turns them into
// the bounded series the route answers. Pure: the window comes from `now`, given.

export const OVERVIEW_BUCKET_MS = 60_000;
export const OVERVIEW_BUCKETS = 60;
/** Most workflow names (or task types) an adapter aggregates over; the route shows the top `limit` of them. */
export const OVERVIEW_MAX_NAMES = 100;
export const OVERVIEW_DEFAULT_LIMIT = 5;
export const OVERVIEW_MAX_LIMIT = 20;

/** Statuses counted as failed (a TERMINATED execution was stopped by someone, not failed). */
export const FAILED_STATUSES = ['FAILED', 'TIMED_OUT'] as const;

/** [from, to): the last OVERVIEW_BUCKETS whole minutes up to the one `now` is in, which is counted too. */
export interface OverviewWindow {
  from: number;
  to: number;
  bucketMs: number;
  maxNames: number;
}

export function overviewWindow(now: number): OverviewWindow {
  const to = (Math.floor(now / OVERVIEW_BUCKET_MS) + 1) * OVERVIEW_BUCKET_MS;
  return { from: to - OVERVIEW_BUCKETS * OVERVIEW_BUCKET_MS, to, bucketMs: OVERVIEW_BUCKET_MS, maxNames: OVERVIEW_MAX_NAMES };
}

/** What an index aggregates over a window; `bucket` is the minute's index from `from`. */
export interface OverviewRows {
  started: Array<{ name: string; bucket: number; count: number }>;
  /** Executions that ended in the window, by final status. */
  ended: Array<{ name: string; status: string; bucket: number; count: number }>;
  /** COMPLETED executions that ended in the window: how long they ran. */
  durations: Array<{ name: string; count: number; avgMs: number; maxMs: number }>;
  /** Tasks started in the window: how long they waited in their queue. */
  taskWaits: Array<{ taskType: string; count: number; avgMs: number; maxMs: number }>;
}

/** One minute's partial aggregates, as an index that aggregates minute by minute reads them. */
export interface OverviewSlice {
  bucket: number;
  started: Array<{ name: string; count: number }>;
  /** By final status, with the sum and longest of their durations. */
  ended: Array<{ name: string; status: string; count: number; sumMs: number; maxMs: number }>;
  waits: Array<{ taskType: string; count: number; sumMs: number; maxMs: number }>;
}

interface Sum {
  count: number;
  sumMs: number;
  maxMs: number;
}
const addTo = (m: Map<string, Sum>, key: string, x: Sum): void => {
  const s = m.get(key) ?? { count: 0, sumMs: 0, maxMs: 0 };
  m.set(key, { count: s.count + x.count, sumMs: s.sumMs + x.sumMs, maxMs: Math.max(s.maxMs, x.maxMs) });
};
const topByCount = <T extends { count: number }>(xs: T[], n: number): T[] => [...xs].sort((a, b) => b.count - a.count).slice(0, n);

/** Merges minute slices into OverviewRows, keeping the `maxNames` busiest names (and task types) of each part. */
export function mergeOverviewSlices(slices: OverviewSlice[], maxNames: number): OverviewRows {
  const activity = new Map<string, number>();
  const durations = new Map<string, Sum>();
  const waits = new Map<string, Sum>();
  for (const s of slices) {
    for (const r of s.started) activity.set(r.name, (activity.get(r.name) ?? 0) + r.count);
    for (const r of s.ended) {
      activity.set(r.name, (activity.get(r.name) ?? 0) + r.count);
      if (r.status === 'COMPLETED') addTo(durations, r.name, r);
    }
    for (const r of s.waits) addTo(waits, r.taskType, r);
  }
  const names = new Set(
    topByCount(
      [...activity].map(([name, count]) => ({ name, count })),
      maxNames,
    ).map((x) => x.name),
  );
  const stat = (x: Sum) => ({ count: x.count, avgMs: x.count > 0 ? x.sumMs / x.count : 0, maxMs: x.maxMs });
  return {
    started: slices.flatMap((s) => s.started.filter((r) => names.has(r.name)).map((r) => ({ name: r.name, bucket: s.bucket, count: r.count }))),
    ended: slices.flatMap((s) => s.ended.filter((r) => names.has(r.name)).map((r) => ({ name: r.name, status: r.status, bucket: s.bucket, count: r.count }))),
    durations: topByCount(
      [...durations].map(([name, x]) => ({ name, ...stat(x) })),
      maxNames,
    ),
    taskWaits: topByCount(
      [...waits].map(([taskType, x]) => ({ taskType, ...stat(x) })),
      maxNames,
    ),
  };
}

const Stat = z.object({ count: z.number().int(), avgMs: z.number(), maxMs: z.number() });

export const OverviewSchema = z.object({
  from: z.number().int(),
  to: z.number().int(),
  bucketMs: z.number().int(),
  /** Start of each minute, oldest first. */
  buckets: z.array(z.number().int()),
  /** The `limit` most active workflow names, one count per bucket each. */
  series: z.array(z.object({ name: z.string(), started: z.array(z.number().int()), completed: z.array(z.number().int()), failed: z.array(z.number().int()) })),
  slowest: z.array(Stat.extend({ name: z.string() })),
  failing: z.array(z.object({ name: z.string(), failed: z.number().int(), ended: z.number().int() })),
  taskWaits: z.array(Stat.extend({ taskType: z.string() })),
  queues: z.array(z.object({ taskType: z.string(), depth: z.number().int() })),
});
export type Overview = z.infer<typeof OverviewSchema>;

const byDesc =
  <T>(key: (x: T) => number, tie: (x: T) => string) =>
  (a: T, b: T): number =>
    key(b) - key(a) || tie(a).localeCompare(tie(b));

export function shapeOverview(w: OverviewWindow, rows: OverviewRows, queueDepths: Record<string, number>, limit: number): Overview {
  const n = Math.round((w.to - w.from) / w.bucketMs);
  const inRange = (b: number): boolean => Number.isInteger(b) && b >= 0 && b < n;
  const failed = new Set<string>(FAILED_STATUSES);
  const activity = new Map<string, number>();
  const bump = (name: string, by: number): void => void activity.set(name, (activity.get(name) ?? 0) + by);
  for (const r of rows.started) bump(r.name, r.count);
  for (const r of rows.ended) bump(r.name, r.count);
  const names = [...activity.keys()]
    .sort(
      byDesc(
        (x) => activity.get(x)!,
        (x) => x,
      ),
    )
    .slice(0, limit);
  const series = names.map((name) => ({ name, started: zeros(n), completed: zeros(n), failed: zeros(n) }));
  const of = new Map(series.map((s) => [s.name, s]));
  for (const r of rows.started) if (inRange(r.bucket) && of.has(r.name)) of.get(r.name)!.started[r.bucket]! += r.count;
  const failing = new Map<string, { name: string; failed: number; ended: number }>();
  for (const r of rows.ended) {
    const f = failing.get(r.name) ?? { name: r.name, failed: 0, ended: 0 };
    f.ended += r.count;
    if (failed.has(r.status)) f.failed += r.count;
    failing.set(r.name, f);
    const s = of.get(r.name);
    if (!s || !inRange(r.bucket)) continue;
    if (r.status === 'COMPLETED') s.completed[r.bucket]! += r.count;
    else if (failed.has(r.status)) s.failed[r.bucket]! += r.count;
  }
  return {
    from: w.from,
    to: w.to,
    bucketMs: w.bucketMs,
    buckets: Array.from({ length: n }, (_, i) => w.from + i * w.bucketMs),
    series,
    slowest: [...rows.durations]
      .sort(
        byDesc(
          (x) => x.avgMs,
          (x) => x.name,
        ),
      )
      .slice(0, limit)
      .map(rounded),
    failing: [...failing.values()]
      .filter((f) => f.failed > 0)
      .sort(
        byDesc(
          (x) => x.failed,
          (x) => x.name,
        ),
      )
      .slice(0, limit),
    taskWaits: [...rows.taskWaits]
      .sort(
        byDesc(
          (x) => x.avgMs,
          (x) => x.taskType,
        ),
      )
      .slice(0, limit)
      .map(rounded),
    queues: Object.entries(queueDepths)
      .map(([taskType, depth]) => ({ taskType, depth }))
      .filter((q) => q.depth > 0)
      .sort(
        byDesc(
          (x) => x.depth,
          (x) => x.taskType,
        ),
      )
      .slice(0, limit),
  };
}

const zeros = (n: number): number[] => new Array<number>(n).fill(0);
const rounded = <T extends { avgMs: number; maxMs: number }>(x: T): T => ({ ...x, avgMs: Math.round(x.avgMs), maxMs: Math.round(x.maxMs) });
