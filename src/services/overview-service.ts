import type { SearchIndex } from '../search/ports';
import { overviewWindow, shapeOverview, type Overview } from '../search/overview';

/** What the overview reads: the search index's aggregations and the current depth of every known queue. */
export interface OverviewSources {
  index: Pick<SearchIndex, 'overview'>;
  queues: { knownQueues(): Promise<string[]>; queueSizeByName(name: string): Promise<number> };
}

/** The console's overview of the last hour up to `now`, the top `limit` names of each part. */
export async function readOverview(src: OverviewSources, now: number, limit: number): Promise<Overview> {
  const window = overviewWindow(now);
  const [rows, depths] = await Promise.all([src.index.overview(window), queueDepths(src.queues)]);
  return shapeOverview(window, rows, depths, limit);
}

async function queueDepths(q: OverviewSources['queues']): Promise<Record<string, number>> {
  const names = await q.knownQueues();
  const sizes = await Promise.all(names.map((n) => q.queueSizeByName(n)));
  return Object.fromEntries(names.map((n, i) => [n, sizes[i]!]));
}
