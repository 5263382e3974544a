import { Client, errors, type estypes } from '@elastic/elasticsearch';
import type { Task, WorkflowRecord } from '../../model/execution';
import type { SearchResult, TaskSummary, WorkflowSummary } from '../../model/summaries';
import type { SearchIndex, SearchRequest } from '../ports';
import { MAX_SEARCH_SIZE, type SearchTarget } from '../search-fields';
import { summarizeTask, summarizeWorkflow } from '../summaries';
import { aliasName, DEFAULT_INDEX_PREFIX, indexTemplate, versionedIndexName } from './es-mappings';
import { toEsSearch } from './es-query';

/**
 * `true`/`'wait_for'`: a write returns once searchable; `false` (default): searchable after the next
 * periodic refresh (`refreshInterval`, 1s by default), which is what a busy server wants.
 */
export type EsRefresh = boolean | 'wait_for';

export interface ElasticsearchSearchIndexOptions {
  node: string;
  indexPrefix?: string;
  refresh?: EsRefresh;
  username?: string;
  password?: string;
  apiKey?: string;
  /** `index.refresh_interval` of the indices this adapter creates. */
  refreshInterval?: string;
  /** ES's `index.max_result_window`; pages ending beyond it are read with `search_after`. */
  maxResultWindow?: number;
}

const PIT_KEEP_ALIVE = '1m';

type WorkflowDoc = Omit<WorkflowSummary, 'parentWorkflowId'> & { parentWorkflowId?: string };

/** The stored document; a top-level workflow has no parentWorkflowId so `IS NULL` finds it. */
function workflowDoc(w: WorkflowRecord): WorkflowDoc {
  const { parentWorkflowId, ...rest } = summarizeWorkflow(w);
  return parentWorkflowId === '' ? rest : { ...rest, parentWorkflowId };
}

/** Conductor reports "" for a top-level workflow's parent (reference §2.10). */
const workflowFromDoc = (doc: WorkflowDoc): WorkflowSummary => ({ ...doc, parentWorkflowId: doc.parentWorkflowId ?? '' });

const totalOf = (hits: estypes.SearchHitsMetadata<unknown>): number =>
  typeof hits.total === 'number' ? hits.total : (hits.total?.value ?? 0);

interface BulkDoc {
  id: string;
  version: number;
  doc: unknown;
}

/**
 * The distributed profile's search index. Writes go through the bulk API with external versioning by
 * updateTime (`external_gte`), so a late write never replaces a newer summary. Pages that end within
 * `maxResultWindow` use from/size; deeper pages open a point in time and walk to `start` with
 * `search_after` in window-sized steps that fetch only sort values, then read the page (cost grows
 * with `start`, but no index setting has to be raised and the view stays consistent).
 */
export class ElasticsearchSearchIndex implements SearchIndex {
  private readonly client: Client;
  private readonly prefix: string;
  private readonly refresh: EsRefresh;
  private readonly refreshInterval: string;
  private readonly maxResultWindow: number;

  constructor(options: ElasticsearchSearchIndexOptions, client?: Client) {
    this.prefix = options.indexPrefix ?? DEFAULT_INDEX_PREFIX;
    this.refresh = options.refresh ?? false;
    this.refreshInterval = options.refreshInterval ?? '1s';
    this.maxResultWindow = options.maxResultWindow ?? 10_000;
    this.client = client ?? new Client({ node: options.node, auth: authOf(options) });
  }

  /** Installs the index templates and creates the first versioned index behind each alias if none exists. */
  async init(): Promise<void> {
    for (const target of ['workflow', 'task'] as const) {
      await this.client.indices.putIndexTemplate(indexTemplate(this.prefix, target, this.refreshInterval));
      const alias = aliasName(this.prefix, target);
      if (await this.client.indices.existsAlias({ name: alias })) continue;
      try {
        await this.client.indices.create({ index: versionedIndexName(this.prefix, target, 1), aliases: { [alias]: { is_write_index: true } } });
      } catch (err) {
        // Another replica created it first.
        if (!(err instanceof errors.ResponseError && err.body?.error?.type === 'resource_already_exists_exception')) throw err;
      }
    }
  }

  async indexWorkflows(docs: WorkflowRecord[]): Promise<void> {
    await this.bulk('workflow', docs.map((w) => ({ id: w.workflowId, version: w.updateTime, doc: workflowDoc(w) })));
  }

  async indexTasks(tasks: Task[]): Promise<void> {
    await this.bulk('task', tasks.map((t) => ({ id: t.taskId, version: t.updateTime, doc: summarizeTask(t) })));
  }

  /** Removes the workflow's document and the documents of its tasks. */
  async removeWorkflow(workflowId: string): Promise<void> {
    await this.client.delete({ index: aliasName(this.prefix, 'workflow'), id: workflowId, refresh: this.refresh }, { ignore: [404] });
    const tasks = aliasName(this.prefix, 'task');
    // delete_by_query sees only refreshed documents; a task indexed a moment ago must be among them.
    await this.client.indices.refresh({ index: tasks });
    await this.client.deleteByQuery({
      index: tasks,
      query: { term: { workflowId } },
      conflicts: 'proceed',
      refresh: this.refresh !== false,
    });
  }

  async searchWorkflows(req: SearchRequest): Promise<SearchResult<WorkflowSummary>> {
    const { totalHits, sources } = await this.search<WorkflowDoc>('workflow', req);
    return { totalHits, results: sources.map(workflowFromDoc) };
  }

  async searchTasks(req: SearchRequest): Promise<SearchResult<TaskSummary>> {
    const { totalHits, sources } = await this.search<TaskSummary>('task', req);
    return { totalHits, results: sources };
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async bulk(target: SearchTarget, docs: BulkDoc[]): Promise<void> {
    if (docs.length === 0) return;
    const index = aliasName(this.prefix, target);
    const operations = docs.flatMap((d) => [{ index: { _index: index, _id: d.id, version: d.version, version_type: 'external_gte' as const } }, d.doc]);
    const res = await this.client.bulk({ operations, refresh: this.refresh });
    if (!res.errors) return;
    // 409 = the stored document is newer: the stale write is dropped on purpose.
    const failed = res.items.map((item) => item.index).filter((r) => r?.error && r.status !== 409);
    if (failed.length > 0) {
      const first = failed[0]!.error!;
      throw new Error(`Elasticsearch rejected ${failed.length} of ${docs.length} ${target} documents: ${first.type}: ${first.reason ?? ''}`);
    }
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

function authOf(o: ElasticsearchSearchIndexOptions): { apiKey: string } | { username: string; password: string } | undefined {
  if (o.apiKey) return { apiKey: o.apiKey };
  if (o.username) return { username: o.username, password: o.password ?? '' };
  return undefined;
}
