import { Errors } from '../model/named-errors';
import type { BatchRecord, BatchRequest, BatchView } from '../model/batch';
import type { SearchIndex, SearchRequest } from '../search/ports';
import { parseFreeText, parseQuery, parseSort } from '../search/query';
import type { BatchStore } from '../store/batch-store';
import { isOpen, newBatch } from './batch-progress';

export interface BatchLimits {
  /** Matches a batch may act on; a search matching more is refused (400). */
  maxMatches: number;
  /** Batches not yet finished; one more is refused (429) until one ends. */
  maxOpen: number;
}

/** Finished batches kept for reading; older ones go when a new batch starts. */
export const FINISHED_BATCHES_KEPT = 100;
/** Ids read per search page while taking the snapshot. */
const SNAPSHOT_PAGE = 1000;

/** Starts, reads and cancels batches; the runner (batch-runner.ts) does their work. */
export class BatchService {
  constructor(
    private readonly store: BatchStore,
    private readonly index: SearchIndex,
    private readonly limits: BatchLimits,
    private readonly now: () => number,
    private readonly newId: () => string,
  ) {}

  /** Snapshots the ids the search matches now and stores the batch; the runner takes it from there. */
  async start(req: BatchRequest): Promise<{ id: string; matched: number }> {
    const search: Omit<SearchRequest, 'start' | 'size'> = {
      query: parseQuery(req.query, 'workflow'),
      freeText: parseFreeText(req.freeText || undefined, 'workflow'),
      // A stable order (the id) so pages neither skip nor repeat while executions change.
      sort: parseSort('workflowId:ASC', 'workflow'),
    };
    const all = await this.store.list();
    const open = all.filter(isOpen).length;
    if (open >= this.limits.maxOpen) throw Errors.BATCHES_AT_LIMIT(open);
    const first = await this.index.searchWorkflows({ ...search, start: 0, size: SNAPSHOT_PAGE });
    if (first.totalHits > this.limits.maxMatches) throw Errors.BATCH_TOO_MANY_MATCHES(first.totalHits, this.limits.maxMatches);
    const ids = new Set(first.results.map((r) => r.workflowId));
    for (let start = SNAPSHOT_PAGE, page = first.results; page.length === SNAPSHOT_PAGE && ids.size < this.limits.maxMatches; start += SNAPSHOT_PAGE) {
      page = (await this.index.searchWorkflows({ ...search, start, size: SNAPSHOT_PAGE })).results;
      for (const r of page) ids.add(r.workflowId);
    }
    const matched = [...ids].slice(0, this.limits.maxMatches);
    const batch = newBatch({
      id: this.newId(),
      action: req.action,
      query: req.query,
      freeText: req.freeText,
      reason: req.reason,
      createdAt: this.now(),
      matched: matched.length,
    });
    await this.store.create(batch, matched);
    for (const old of all.filter((b) => !isOpen(b)).slice(FINISHED_BATCHES_KEPT - 1)) await this.store.remove(old.id);
    return { id: batch.id, matched: matched.length };
  }

  async get(id: string): Promise<BatchView> {
    const b = await this.store.get(id);
    if (!b) throw Errors.BATCH_NOT_FOUND(id);
    return { ...b, failures: await this.store.failures(id) };
  }

  list(): Promise<BatchRecord[]> {
    return this.store.list();
  }

  /** Asks the runner to stop the batch before its next execution; a finished batch is a 409. */
  async cancel(id: string): Promise<BatchRecord> {
    const b = await this.store.get(id);
    if (!b) throw Errors.BATCH_NOT_FOUND(id);
    if (!isOpen(b)) throw Errors.BATCH_ENDED(id, b.state);
    await this.store.requestCancel(id);
    return { ...b, cancelRequested: true };
  }
}
