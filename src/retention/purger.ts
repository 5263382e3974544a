import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { outwardTask } from '../model/execution';
import { isTerminalWorkflow } from '../model/statuses';
import type { ObjectStore } from '../objects/object-store';
import type { PeriodIndices, SearchIndex } from '../search/ports';
import { MAX_SEARCH_SIZE } from '../search/search-fields';
import type { ExecutionStore, IdempotencyKeyStore } from '../store/ports';
import { archiveKey, isDue, purgeSelections, selectionQuery, type RetentionRules } from './policy';
import { PeriodDrops } from './period-drop';
import type { PurgeItem, Reclaimed, RetentionStore } from './ports';

export interface PurgerDeps {
  store: Pick<ExecutionStore, 'load' | 'remove'>;
  /** Takes an execution's documents out of the search index (the server's Indexer.remove, past its pending writes). */
  removeFromIndex: (workflowId: string) => Promise<void>;
  search: Pick<SearchIndex, 'searchWorkflows'>;
  /** Time-based indices (Elasticsearch): periods whose executions are all due are dropped whole (period-drop.ts). */
  periods?: PeriodIndices;
  retention: RetentionStore;
  /** The archive (the object store); without it an execution whose policy asks for archiving is kept. */
  objects?: ObjectStore;
  idempotencyKeys?: Pick<IdempotencyKeyStore, 'release'>;
  rules: () => Promise<RetentionRules>;
  now: () => number;
  /** SQLite: gives free pages back to the file system after a pass. */
  reclaim?: () => Promise<Reclaimed>;
  log: Pick<Logger, 'info' | 'warn'>;
}

export interface PassOutcome {
  purged: number;
  archived: number;
  /** Found in the journal or the index but not removed (open again, archive missing). */
  kept: number;
  reclaimedPages: number;
  /** With a reclaim step: whether it ended with the WAL truncated (the space really given back). */
  walTruncated?: boolean;
  /** Period indices dropped whole by this pass. */
  droppedPeriods?: string[];
}

type Stored = NonNullable<Awaited<ReturnType<ExecutionStore['load']>>>;

/** Gives the event loop a turn: a pass never holds it for more than a few removals. */
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
const EVERY = 16;

/**
 * Removes the executions the retention rules say are due, at most `budget` per pass. Per execution the steps
 * are: archive (object, then its lookup row), search index, idempotency key, store. Each is idempotent and the
 * execution stays loadable until the last one, so a pass killed anywhere is finished by the next from its journal.
 */
export class Purger {
  constructor(private readonly deps: PurgerDeps) {}

  async passOnce(budget: number, signal?: AbortSignal): Promise<PassOutcome> {
    const out: PassOutcome = { purged: 0, archived: 0, kept: 0, reclaimedPages: 0 };
    // What a killed pass left: finished first, whatever the rules say now (its steps may be half done).
    for (const pass of await this.deps.retention.unfinishedPasses()) {
      if (signal?.aborted) return out;
      await this.purgeAll(pass.items, out, signal);
      if (signal?.aborted) return out;
      await this.deps.retention.finishPass(pass.passId);
    }
    let left = budget;
    if (this.deps.periods && !signal?.aborted) {
      const { store, retention, periods, log } = this.deps;
      const drops = new PeriodDrops({
        periods,
        store,
        retention,
        purgeStored: (s, archive) => this.removeStored(s, archive, out, false),
        removeFromIndex: this.deps.removeFromIndex,
        log,
      });
      const d = await drops.run(await this.deps.rules(), this.deps.now(), budget, signal);
      out.kept += d.refused;
      if (d.dropped.length > 0) out.droppedPeriods = d.dropped;
      // A walk still under way takes the whole budget: the per-document search below would find its documents too.
      left -= d.walked;
    }
    const items = left > 0 && !signal?.aborted ? await this.due(left) : [];
    if (items.length > 0 && !signal?.aborted) {
      const passId = `${this.deps.now()}-${randomUUID()}`;
      await this.deps.retention.beginPass(passId, items, this.deps.now());
      this.deps.log.info({ passId, executions: items.length }, 'retention pass begun');
      await this.purgeAll(items, out, signal);
      if (!signal?.aborted) await this.deps.retention.finishPass(passId);
    }
    if (this.deps.reclaim) {
      const r = await this.deps.reclaim();
      out.reclaimedPages = r.pages;
      out.walTruncated = r.walTruncated;
      if (!r.walTruncated)
        this.deps.log.warn(out, 'retention pass could not truncate the WAL (a reader or another checkpoint kept it); the file shrinks at a later checkpoint');
    }
    if (out.purged + out.kept > 0 || out.droppedPeriods) this.deps.log.info(out, 'retention pass done');
    return out;
  }

  /** Due executions, oldest end first within each policy, at most `budget`, found through the search index. */
  private async due(budget: number): Promise<PurgeItem[]> {
    const now = this.deps.now();
    const rules = await this.deps.rules();
    const items: PurgeItem[] = [];
    for (const s of purgeSelections(rules, now)) {
      if (items.length >= budget) break;
      // Pages of the search's largest size; nothing is removed while they are read, so offsets stay valid.
      for (let start = 0; items.length < budget;) {
        const size = Math.min(budget - items.length, MAX_SEARCH_SIZE);
        const hits = await this.deps.search.searchWorkflows({
          query: selectionQuery(s),
          freeText: { kind: 'all' },
          sort: [{ field: 'endTime', order: 'ASC' }],
          start,
          size,
        });
        for (const h of hits.results) {
          // Summaries carry Conductor's ISO end time.
          const ended = { workflowType: h.workflowType, status: h.status, endTime: h.endTime ? Date.parse(h.endTime) : 0 };
          if (isDue(ended, rules, now)) items.push({ workflowId: h.workflowId, archive: s.archive });
        }
        if (hits.results.length < size) break;
        start += size;
      }
    }
    return items;
  }

  /** EVERY executions at a time, side by side (each through its steps in order), so stores can group their writes. */
  private async purgeAll(items: PurgeItem[], out: PassOutcome, signal?: AbortSignal): Promise<void> {
    for (let i = 0; i < items.length; i += EVERY) {
      if (signal?.aborted) return;
      if (i > 0) await turn();
      await Promise.all(
        items.slice(i, i + EVERY).map((item) =>
          this.purgeOne(item, out).catch((err: unknown) => {
            out.kept++;
            this.deps.log.warn({ err, workflowId: item.workflowId }, 'purging an execution failed; the next pass retries');
          }),
        ),
      );
    }
  }

  private async purgeOne(item: PurgeItem, out: PassOutcome): Promise<void> {
    const s = await this.deps.store.load(item.workflowId);
    if (!s) {
      // Gone from the store already (the kill came after the last step, or someone removed it): the index follows.
      await this.deps.removeFromIndex(item.workflowId);
      return;
    }
    if (!(await this.removeStored(s, item.archive, out, true))) out.kept++;
  }

  /**
   * Archives (when asked) and removes a stored execution, from the index too unless its index is dropped whole.
   * False: kept (not finished any more, or no archive possible).
   */
  private async removeStored(s: Stored, archive: boolean, out: PassOutcome, fromIndex: boolean): Promise<boolean> {
    const { store, retention } = this.deps;
    const w = s.workflow;
    // Retried or rerun since it was found: it is not finished any more.
    if (!isTerminalWorkflow(w.status)) return false;
    if (archive) {
      if (!this.deps.objects) {
        this.deps.log.warn({ workflowId: w.workflowId }, 'retention asks for an archive but no object store is configured: execution kept');
        return false;
      }
      const key = archiveKey(w.workflowId, w.endTime);
      const archivedAt = this.deps.now();
      const body = JSON.stringify({ archivedAt, workflow: { ...w, tasks: s.tasks.map(outwardTask) } });
      await this.deps.objects.put(key, Buffer.from(body), 'application/json');
      await retention.recordArchive({ workflowId: w.workflowId, key, workflowName: w.workflowName, status: w.status, endTime: w.endTime, archivedAt });
      out.archived++;
    }
    if (fromIndex) await this.deps.removeFromIndex(w.workflowId);
    if (w.idempotencyKey && this.deps.idempotencyKeys) await this.deps.idempotencyKeys.release(w.workflowName, w.idempotencyKey, w.workflowId);
    await store.remove(w.workflowId);
    out.purged++;
    return true;
  }
}
