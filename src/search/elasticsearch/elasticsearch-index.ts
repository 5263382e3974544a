import { Client, errors, type estypes } from '@elastic/elasticsearch';
import pino, { type Logger } from 'pino';
import type { Task, WorkflowRecord } from '../../model/execution';
import type { SearchResult, TaskSummary, WorkflowSummary } from '../../model/summaries';
import type { OverviewRows, OverviewWindow } from '../overview';
import type { IndexPeriodRef, PeriodIndices, QueryAst, SearchIndex, SearchRequest } from '../ports';
import { MAX_SEARCH_SIZE, type SearchTarget } from '../search-fields';
import { summarizeTask, summarizeWorkflow } from '../summaries';
import { DeferredRemovals } from './es-deferred-removals';
import { chunkBulk, DEFAULT_BULK_LIMITS, itemOutcome, operationsOf, responseItem, type BulkEntry, type BulkLimits } from './es-bulk';
import { aliasName, DEFAULT_INDEX_PREFIX, indexTemplate, periodIndexTemplate, versionedIndexName } from './es-mappings';
import { overviewRows, overviewSearches } from './es-overview';
import { toEsQuery, toEsSearch } from './es-query';
import { indexForExecution, parsePeriodIndex, periodIndexName, type IndexPeriod } from './index-period';
import { unlessUnavailable } from './es-unavailable';

/**
 * `true`/`'wait_for'`: a write returns once searchable; `false` (default): searchable after the next
 * periodic refresh (`refreshInterval`, 1s by default), which is what a busy server wants.
 */
export type EsRefresh = boolean | 'wait_for';

export interface ElasticsearchSearchIndexOptions {
  node: string;
  indexPrefix?: string;
  /** The period of the time-based indices (index-period.ts); `none`: every document in `_v1`. Default month. */
  period?: IndexPeriod;
  refresh?: EsRefresh;
  username?: string;
  password?: string;
  apiKey?: string;
  /** `index.refresh_interval` of the indices this adapter creates. */
  refreshInterval?: string;
  /** ES's `index.max_result_window`; pages ending beyond it are read with `search_after`. */
  maxResultWindow?: number;
  /** Caps of one bulk request; bigger batches are split. */
  bulkLimits?: BulkLimits;
  /** Attempts at items the cluster could not take (429, unavailable shards, blocks) before the write fails. */
  bulkAttempts?: number;
  /** First pause between those attempts; doubles each time. */
  bulkRetryMs?: number;
  /**
   * When the task documents of removed workflows are looked up and deleted: in one batch, between
   * half this and this long after a removal. Half must exceed the indexer's flush interval plus the
   * refresh interval, so tasks written just before (or, from a batch in flight, just after) the
   * removal are searchable by then. Default 3000 ms.
   */
  taskRemovalDelayMs?: number;
  /** Where rejected documents and failed task removals are reported. */
  log?: Pick<Logger, 'warn' | 'error'>;
}

const PIT_KEEP_ALIVE = '1m';
const PERIODS_SINCE = 'baton_periods_since';

type WorkflowDoc = Omit<WorkflowSummary, 'parentWorkflowId'> & { parentWorkflowId?: string };

/** The stored document; a top-level workflow has no parentWorkflowId so `IS NULL` finds it. */
function workflowDoc(w: WorkflowRecord): WorkflowDoc {
  const { parentWorkflowId, ...rest } = summarizeWorkflow(w);
  return parentWorkflowId === '' ? rest : { ...rest, parentWorkflowId };
}

/** Conductor reports "" for a top-level workflow's parent. */
const workflowFromDoc = (doc: WorkflowDoc): WorkflowSummary => ({ ...doc, parentWorkflowId: doc.parentWorkflowId ?? '' });

const totalOf = (hits: estypes.SearchHitsMetadata<unknown>): number => (typeof hits.total === 'number' ? hits.total : (hits.total?.value ?? 0));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Task ids are looked up in pages of this size when their workflows are removed. */
const TASK_LOOKUP_PAGE = 1000;

/**
 * The distributed profile's search index. Writes go through the bulk API with external versioning by
 * updateTime (`external_gte`), so a late write never replaces a newer summary; a batch is split into
 * requests of at most `bulkLimits`, and each item's result counts on its own: stale versions are
 * dropped, items the cluster could not take now are sent again, documents it refuses (mapping
 * errors) are logged with their id and dropped so that the others proceed.
 *
 * Nothing forces a refresh: writes and removals become searchable at the next periodic refresh
 * (`refreshInterval`, 1 s), the task documents of a removed workflow within `taskRemovalDelayMs`
 * plus that. Only core APIs are used (not delete_by_query, which is the reindex module's), so any
 * Elasticsearch 8 distribution serves.
 *
 * Pages that end within `maxResultWindow` use from/size; deeper pages open a point in time and walk
 * to `start` with `search_after` in window-sized steps that fetch only sort values, then read the
 * page (cost grows with `start`, but no index setting has to be raised and the view stays consistent).
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  private readonly client: Client;
  private readonly prefix: string;
  private readonly period: IndexPeriod;
  /** Executions created before this stay in `_v1` (written there before periods existed); set by init. */
  private periodsSince = 0;
  private readonly refresh: EsRefresh;
  private readonly refreshInterval: string;
  private readonly maxResultWindow: number;
  private readonly bulkLimits: BulkLimits;
  private readonly bulkAttempts: number;
  private readonly bulkRetryMs: number;
  private readonly log: Pick<Logger, 'warn' | 'error'>;
  private readonly removedTasks: DeferredRemovals;

  constructor(options: ElasticsearchSearchIndexOptions, client?: Client) {
    this.prefix = options.indexPrefix ?? DEFAULT_INDEX_PREFIX;
    this.period = options.period ?? 'month';
    this.refresh = options.refresh ?? false;
    this.refreshInterval = options.refreshInterval ?? '1s';
    this.maxResultWindow = options.maxResultWindow ?? 10_000;
    this.bulkLimits = options.bulkLimits ?? DEFAULT_BULK_LIMITS;
    this.bulkAttempts = Math.max(1, options.bulkAttempts ?? 5);
    this.bulkRetryMs = options.bulkRetryMs ?? 200;
    this.log = options.log ?? pino({ name: 'elasticsearch-index' });
    this.client = client ?? new Client({ node: options.node, auth: authOf(options) });
    this.removedTasks = new DeferredRemovals(
      options.taskRemovalDelayMs ?? 3000,
      (ids) => this.deleteTasksOf(ids),
      (err, ids) =>
        this.log.error({ err, workflowIds: ids.slice(0, 20), count: ids.length }, 'removing task documents of removed workflows failed; will retry'),
    );
  }

  /**
   * Installs the index templates, creates the first versioned index behind each alias if none exists, and
   * reads (or, the first time, records) since when executions go to period indices.
   */
  async init(): Promise<void> {
    let created = false;
    for (const target of ['workflow', 'task'] as const) {
      await this.client.indices.putIndexTemplate(indexTemplate(this.prefix, target, this.refreshInterval));
      await this.client.indices.putIndexTemplate(periodIndexTemplate(this.prefix, target, this.refreshInterval));
      const alias = aliasName(this.prefix, target);
      if (await this.client.indices.existsAlias({ name: alias })) continue;
      try {
        await this.client.indices.create({ index: versionedIndexName(this.prefix, target, 1), aliases: { [alias]: { is_write_index: true } } });
        if (target === 'workflow') created = true;
      } catch (err) {
        // Another replica created it first.
        if (!(err instanceof errors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception')) throw err;
      }
    }
    if (this.period !== 'none') this.periodsSince = await this.periodsCutover(created);
  }

  /**
   * Kept in `_v1`'s mapping `_meta`: a `_v1` made by a release without periods holds documents of time-ordered ids
   * that later writes must keep updating there (the same id in two indices would be two search hits).
   */
  private async periodsCutover(createdNow: boolean): Promise<number> {
    const v1 = versionedIndexName(this.prefix, 'workflow', 1);
    const mappings = await this.client.indices.getMapping({ index: v1 });
    const meta = Object.values(mappings)[0]?.mappings._meta ?? {};
    const since = meta[PERIODS_SINCE];
    if (typeof since === 'number') return since;
    const now = createdNow ? 0 : Date.now();
    await this.client.indices.putMapping({ index: v1, _meta: { ...meta, [PERIODS_SINCE]: now } });
    return now;
  }

  /** The concrete index of an execution's documents: writes never go through the alias (it has several indices). */
  private indexOf(target: SearchTarget, workflowId: string): string {
    return indexForExecution(this.prefix, target, workflowId, this.period, this.periodsSince);
  }

  async indexWorkflows(docs: WorkflowRecord[]): Promise<void> {
    await this.write(
      'workflow',
      docs.map((w) => versioned(this.indexOf('workflow', w.workflowId), w.workflowId, w.updateTime, workflowDoc(w))),
      this.refresh,
    );
  }

  async indexTasks(tasks: Task[]): Promise<void> {
    await this.write(
      'task',
      tasks.map((t) => versioned(this.indexOf('task', t.workflowInstanceId), t.taskId, t.updateTime, summarizeTask(t))),
      this.refresh,
    );
  }

  /**
   * Deletes the workflow's document now and its tasks' documents a little later, in one batch with
   * other removals (`taskRemovalDelayMs`). The delete is versioned by the clock, so a summary
   * still on its way from the indexer (older than the removal) cannot bring the workflow back while
   * Elasticsearch keeps the delete's tombstone (`index.gc_deletes`, 60 s).
   */
  async removeWorkflow(workflowId: string): Promise<void> {
    const index = this.indexOf('workflow', workflowId);
    const versionedDelete: BulkEntry = {
      id: workflowId,
      action: { delete: { _index: index, _id: workflowId, version: Date.now() + 1, version_type: 'external_gte' } },
    };
    const stale = await this.write('workflow', [versionedDelete], false);
    // A stored summary newer than this clock (another replica's clock ahead): delete it regardless.
    if (stale.length > 0) await this.write('workflow', [{ id: workflowId, action: { delete: { _index: index, _id: workflowId } } }], false);
    this.removedTasks.add(workflowId);
  }

  /** Deletes the task documents of every removed workflow now instead of after the delay (shutdown, tests). */
  async flushRemovals(): Promise<void> {
    if (this.removedTasks.pending === 0) return;
    // Tasks written within the last refresh interval must be visible to the lookup.
    await this.client.indices.refresh({ index: aliasName(this.prefix, 'task') });
    await this.removedTasks.runAll();
  }

  async searchWorkflows(req: SearchRequest): Promise<SearchResult<WorkflowSummary>> {
    const { totalHits, sources } = await unlessUnavailable(() => this.search<WorkflowDoc>('workflow', req));
    return { totalHits, results: sources.map(workflowFromDoc) };
  }

  async searchTasks(req: SearchRequest): Promise<SearchResult<TaskSummary>> {
    const { totalHits, sources } = await unlessUnavailable(() => this.search<TaskSummary>('task', req));
    return { totalHits, results: sources };
  }

  async close(): Promise<void> {
    await this.flushRemovals().catch((err) => this.log.error({ err }, 'removing task documents at close failed'));
    this.removedTasks.stop();
    await this.client.close();
  }

  /**
   * Sends entries in capped requests and settles each item on its own (see `itemOutcome`). Items the
   * cluster could not take are sent again with a growing pause; if some still fail after
   * `bulkAttempts`, the write fails (the indexer keeps the batch and retries it). Returns the ids
   * of stale items (version conflicts), which a write of a newer summary ignores on purpose.
   */
  private async write(target: SearchTarget, entries: BulkEntry[], refresh: EsRefresh): Promise<string[]> {
    const stale: string[] = [];
    let pending = entries;
    for (let attempt = 1; pending.length > 0; attempt++) {
      const retry: Array<{ entry: BulkEntry; error?: estypes.ErrorCause; status: number }> = [];
      for (const chunk of chunkBulk(pending, this.bulkLimits)) {
        const res = await unlessUnavailable(() =>
          this.client.bulk(refresh === false ? { operations: operationsOf(chunk) } : { operations: operationsOf(chunk), refresh }),
        );
        if (!res.errors) continue; // every item applied
        chunk.forEach((entry, i) => {
          const item = res.items[i] ? responseItem(res.items[i]!) : undefined;
          const outcome = itemOutcome(item, 'delete' in entry.action ? 'delete' : 'index');
          if (outcome === 'stale') stale.push(entry.id);
          else if (outcome === 'retry') retry.push({ entry, error: item?.error, status: item?.status ?? 0 });
          else if (outcome === 'rejected') {
            // Sending it again would fail the same way: log it and let the rest of the batch through.
            this.log.warn(
              { index: target, id: entry.id, status: item!.status, error: item!.error?.type, reason: item!.error?.reason },
              'Elasticsearch rejected a document; it is not indexed',
            );
          }
        });
      }
      if (retry.length === 0) break;
      if (attempt >= this.bulkAttempts) {
        const first = retry[0]!;
        throw new Error(
          `Elasticsearch did not take ${retry.length} of ${entries.length} ${target} operations after ${attempt} attempts: ${first.status} ${first.error?.type ?? ''}: ${first.error?.reason ?? ''}`,
        );
      }
      await sleep(this.bulkRetryMs * 2 ** (attempt - 1));
      pending = retry.map((r) => r.entry);
    }
    return stale;
  }

  /** The overview's aggregations, one search each (es-overview.ts). */
  async overview(w: OverviewWindow): Promise<OverviewRows> {
    const searches = overviewSearches(w);
    const keys = Object.keys(searches) as Array<keyof OverviewRows>;
    const answers = await Promise.all(
      keys.map((k) =>
        unlessUnavailable(() =>
          this.client.search({
            index: aliasName(this.prefix, searches[k].target),
            query: searches[k].query,
            aggs: searches[k].aggs,
            size: 0,
            track_total_hits: false,
          }),
        ),
      ),
    );
    return overviewRows(w, Object.fromEntries(keys.map((k, i) => [k, answers[i]!.aggregations])) as Parameters<typeof overviewRows>[1]);
  }

  /** The time-based indices, for retention to drop whole. */
  periodIndices(): PeriodIndices {
    const workflowIndex = (label: string) => periodIndexName(this.prefix, 'workflow', label);
    return {
      periods: async () => {
        const found = await this.client.indices.get({ index: `${aliasName(this.prefix, 'workflow')}_*`, allow_no_indices: true, ignore_unavailable: true });
        return Object.keys(found)
          .map((name) => parsePeriodIndex(this.prefix, 'workflow', name))
          .filter((p): p is IndexPeriodRef => p !== undefined)
          .sort((a, b) => a.start - b.start || a.label.localeCompare(b.label));
      },
      countMatchingNone: async (label: string, queries: QueryAst[]) => {
        const res = await this.client.count({
          index: workflowIndex(label),
          query: { bool: { must_not: queries.map((q) => toEsQuery(q, 'workflow')) } },
          ignore_unavailable: true,
        });
        return res.count;
      },
      workflowIdsAfter: async (label: string, after: string | undefined, size: number) => {
        const res = await this.client.search({
          index: workflowIndex(label),
          sort: [{ workflowId: 'asc' }],
          size,
          search_after: after === undefined ? undefined : [after],
          _source: false,
          track_total_hits: false,
          ignore_unavailable: true,
        });
        return res.hits.hits.map((h) => h._id!);
      },
      refresh: async (label: string) => {
        await this.client.indices.refresh({ index: [workflowIndex(label), periodIndexName(this.prefix, 'task', label)], ignore_unavailable: true });
      },
      drop: async (label: string) => {
        await this.client.indices.delete({ index: [workflowIndex(label), periodIndexName(this.prefix, 'task', label)], ignore_unavailable: true });
      },
    };
  }

  /** Looks up the task documents of these workflows (as of the last refresh) and deletes them in bulk. */
  private async deleteTasksOf(workflowIds: string[]): Promise<void> {
    const index = aliasName(this.prefix, 'task');
    const entries: BulkEntry[] = [];
    for (let i = 0; i < workflowIds.length; i += TASK_LOOKUP_PAGE) {
      const ids = workflowIds.slice(i, i + TASK_LOOKUP_PAGE);
      let after: estypes.SortResults | undefined;
      for (;;) {
        const res = await this.client.search({
          index,
          query: { terms: { workflowId: ids } },
          sort: [{ taskId: 'asc' }],
          size: TASK_LOOKUP_PAGE,
          search_after: after,
          _source: false,
          track_total_hits: false,
        });
        const hits = res.hits.hits;
        for (const h of hits) entries.push({ id: h._id!, action: { delete: { _index: h._index, _id: h._id! } } });
        if (hits.length < TASK_LOOKUP_PAGE) break;
        after = hits[hits.length - 1]!.sort;
      }
    }
    await this.write('task', entries, false);
  }

  private async search<T>(target: SearchTarget, req: SearchRequest): Promise<{ totalHits: number; sources: T[] }> {
    const { query, sort } = toEsSearch(target, req);
    const start = Math.max(0, Math.trunc(req.start));
    const size = Math.min(MAX_SEARCH_SIZE, Math.max(0, Math.trunc(req.size)));
    if (start + size <= this.maxResultWindow) {
      const res = await this.client.search<T>({ index: aliasName(this.prefix, target), query, sort, from: start, size, track_total_hits: true });
      return { totalHits: totalOf(res.hits), sources: res.hits.hits.map((h) => h._source as T) };
    }
    return this.deepSearch<T>(target, query, sort, start, size);
  }

  private async deepSearch<T>(
    target: SearchTarget,
    query: estypes.QueryDslQueryContainer,
    sort: estypes.SortCombinations[],
    start: number,
    size: number,
  ): Promise<{ totalHits: number; sources: T[] }> {
    const opened = await this.client.openPointInTime({ index: aliasName(this.prefix, target), keep_alive: PIT_KEEP_ALIVE });
    let pitId = opened.id;
    try {
      let after: estypes.SortResults | undefined;
      let skipped = 0;
      while (skipped < start) {
        const step = Math.min(start - skipped, this.maxResultWindow);
        const res = await this.client.search({
          pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
          query,
          sort,
          size: step,
          search_after: after,
          _source: false,
          track_total_hits: false,
        });
        pitId = res.pit_id ?? pitId;
        const hits = res.hits.hits;
        skipped += hits.length;
        if (hits.length < step) break; // fewer matches than `start`: the page is empty
        after = hits[hits.length - 1]!.sort;
      }
      const reached = skipped >= start;
      const page = await this.client.search<T>({
        pit: { id: pitId, keep_alive: PIT_KEEP_ALIVE },
        query,
        sort,
        size: reached ? size : 0,
        search_after: after,
        track_total_hits: true,
      });
      pitId = page.pit_id ?? pitId;
      return { totalHits: totalOf(page.hits), sources: page.hits.hits.map((h) => h._source as T) };
    } finally {
      await this.client.closePointInTime({ id: pitId }).catch(() => undefined);
    }
  }
}

/** An index operation versioned externally by the record's update time. */
function versioned(index: string, id: string, version: number, doc: unknown): BulkEntry {
  return { id, action: { index: { _index: index, _id: id, version, version_type: 'external_gte' } }, doc };
}

function authOf(o: ElasticsearchSearchIndexOptions): { apiKey: string } | { username: string; password: string } | undefined {
  if (o.apiKey) return { apiKey: o.apiKey };
  if (o.username) return { username: o.username, password: o.password ?? '' };
  return undefined;
}
