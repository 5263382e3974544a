import type { estypes } from '@elastic/elasticsearch';
import type { OverviewRows, OverviewWindow } from '../overview';

// The overview's aggregations (src/search/overview.ts) as Elasticsearch requests, and their answers as
// OverviewRows: terms by name (at most maxNames), per-minute date histograms, avg/max metrics.

type Aggs = Record<string, estypes.AggregationsAggregationContainer>;

export interface OverviewSearch {
  target: 'workflow' | 'task';
  query: estypes.QueryDslQueryContainer;
  aggs: Aggs;
}

const range = (field: string, w: OverviewWindow): estypes.QueryDslQueryContainer => ({ range: { [field]: { gte: w.from, lt: w.to } } });
const perMinute = (field: string, w: OverviewWindow): Aggs => ({
  minutes: { date_histogram: { field, fixed_interval: `${w.bucketMs}ms`, min_doc_count: 1 } },
});
const stats = (field: string): Aggs => ({ avg: { avg: { field } }, max: { max: { field } } });

export function overviewSearches(w: OverviewWindow): Record<keyof OverviewRows, OverviewSearch> {
  const names = (aggs: Aggs, field = 'workflowType', order?: Record<string, estypes.SortOrder>): Aggs => ({
    names: { terms: { field, size: w.maxNames, ...(order ? { order } : {}) }, aggs },
  });
  return {
    started: { target: 'workflow', query: range('startTime', w), aggs: names(perMinute('startTime', w)) },
    ended: {
      target: 'workflow',
      query: range('endTime', w),
      aggs: names({ statuses: { terms: { field: 'status', size: 20 }, aggs: perMinute('endTime', w) } }),
    },
    durations: {
      target: 'workflow',
      query: { bool: { filter: [range('endTime', w), { term: { status: 'COMPLETED' } }] } },
      aggs: names(stats('executionTime'), 'workflowType', { avg: 'desc' }),
    },
    taskWaits: {
      target: 'task',
      query: { bool: { filter: [range('scheduledTime', w), { range: { startTime: { gt: 0 } } }] } },
      aggs: names(stats('queueWaitTime'), 'taskType', { avg: 'desc' }),
    },
  };
}

interface Bucket {
  key: string | number;
  doc_count: number;
  [sub: string]: unknown;
}
const bucketsOf = (agg: unknown): Bucket[] => ((agg as { buckets?: Bucket[] } | undefined)?.buckets ?? []) as Bucket[];
const valueOf = (agg: unknown): number => (agg as { value?: number | null } | undefined)?.value ?? 0;

export function overviewRows(w: OverviewWindow, answers: Record<keyof OverviewRows, Record<string, unknown> | undefined>): OverviewRows {
  const minute = (key: string | number): number => Math.floor((Number(key) - w.from) / w.bucketMs);
  const started = bucketsOf(answers.started?.names).flatMap((n) =>
    bucketsOf(n.minutes).map((m) => ({ name: String(n.key), bucket: minute(m.key), count: m.doc_count })),
  );
  const ended = bucketsOf(answers.ended?.names).flatMap((n) =>
    bucketsOf(n.statuses).flatMap((s) =>
      bucketsOf(s.minutes).map((m) => ({ name: String(n.key), status: String(s.key), bucket: minute(m.key), count: m.doc_count })),
    ),
  );
  const stat = (b: Bucket) => ({ count: b.doc_count, avgMs: valueOf(b.avg), maxMs: valueOf(b.max) });
  const durations = bucketsOf(answers.durations?.names).map((n) => ({ name: String(n.key), ...stat(n) }));
  const taskWaits = bucketsOf(answers.taskWaits?.names).map((n) => ({ taskType: String(n.key), ...stat(n) }));
  return { started, ended, durations, taskWaits };
}
