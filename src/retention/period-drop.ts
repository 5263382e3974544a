import type { Logger } from 'pino';
import type { PeriodIndices } from '../search/ports';
import type { ExecutionStore } from '../store/ports';
import { isDue, latestCutoff, policyOf, purgeSelections, selectionQuery, type RetentionRules } from './policy';
import type { PeriodWalk, RetentionStore } from './ports';

type Stored = NonNullable<Awaited<ReturnType<ExecutionStore['load']>>>;

export interface PeriodDropDeps {
  periods: PeriodIndices;
  store: Pick<ExecutionStore, 'load'>;
  retention: Pick<RetentionStore, 'periodWalk' | 'savePeriodWalk'>;
  /** Archives (when asked) and removes a stored execution from the store, not from the index; false: kept. */
  purgeStored: (s: Stored, archive: boolean) => Promise<boolean>;
  /** Deletes an execution's documents one by one (the per-document path). */
  removeFromIndex: (workflowId: string) => Promise<void>;
  log: Pick<Logger, 'info' | 'warn'>;
}

export interface DropOutcome {
  /** Ids walked (each counts against the pass's budget). */
  walked: number;
  purged: number;
  /** Found in the store but not due under the rules (restarted, rerun) or not removable now. */
  refused: number;
  dropped: string[];
  /** Periods given up: their walked documents are deleted one by one instead. */
  undone: string[];
}

/** Ids the walk reads and purges side by side before it records its cursor. */
const GROUP = 16;
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * Retention by whole period indices. A period whose every execution could be due (the period ended before
 * the latest cutoff) and whose index counts no document that no policy selects is walked by workflow id:
 * each execution is purged from the store only (archived first when its policy says so), the cursor is
 * recorded after each group, and at the end, after a refresh, the workflow and task indices are deleted by
 * name if the index still counts no document not due and exactly the documents walked. An execution the
 * store still holds as not due, or any change to the index meanwhile, gives the drop up: the walk goes back
 * over the ids it did and deletes the documents of executions it purged, and the period stays on the
 * per-document path. Documents outlive their executions only while their index's walk runs.
 */
export class PeriodDrops {
  constructor(private readonly deps: PeriodDropDeps) {}

  async run(rules: RetentionRules, now: number, budget: number, signal?: AbortSignal): Promise<DropOutcome> {
    const out: DropOutcome = { walked: 0, purged: 0, refused: 0, dropped: [], undone: [] };
    const selections = purgeSelections(rules, now);
    const queries = selections.map(selectionQuery);
    const cutoff = latestCutoff(selections);
    for (const p of await this.deps.periods.periods()) {
      if (out.walked >= budget || signal?.aborted) break;
      let walk = await this.deps.retention.periodWalk(p.label);
      if (!walk) {
        if (cutoff === undefined || p.end > cutoff) continue;
        if ((await this.deps.periods.countMatchingNone(p.label, queries)) > 0) continue;
        walk = { mode: 'drop', walked: 0 };
        await this.deps.retention.savePeriodWalk(p.label, walk);
        this.deps.log.info({ period: p.label }, 'retention drops a period index whole');
      }
      if (walk.mode === 'drop') walk = await this.dropWalk(p.label, walk, queries, rules, now, budget, out, signal);
      if (walk?.mode === 'undo') await this.undoWalk(p.label, walk, budget, out, signal);
    }
    return out;
  }

  /** Purges the period's executions from the store; at its end drops the indices. Answers where the walk stands (undefined: ended). */
  private async dropWalk(
    label: string,
    start: PeriodWalk,
    queries: ReturnType<typeof selectionQuery>[],
    rules: RetentionRules,
    now: number,
    budget: number,
    out: DropOutcome,
    signal?: AbortSignal,
  ): Promise<PeriodWalk | undefined> {
    let walk = start;
    for (;;) {
      if (out.walked >= budget || signal?.aborted) return walk;
      const ids = await this.deps.periods.workflowIdsAfter(label, walk.after, Math.min(GROUP, budget - out.walked));
      if (ids.length === 0) break;
      const refused = (await Promise.all(ids.map((id) => this.purgeOne(id, rules, now, out)))).some((ok) => !ok);
      out.walked += ids.length;
      walk = { mode: 'drop', after: ids.at(-1), walked: (walk.walked ?? 0) + ids.length };
      if (refused) return this.giveUp(label, walk, 'an execution in it is not due');
      await this.deps.retention.savePeriodWalk(label, walk);
      await turn();
    }
    await this.deps.periods.refresh(label);
    const notDue = await this.deps.periods.countMatchingNone(label, queries);
    const total = await this.deps.periods.countMatchingNone(label, []);
    if (notDue > 0 || total !== (walk.walked ?? 0))
      return this.giveUp(label, walk, 'its documents changed during the walk', { notDue, total, walked: walk.walked });
    await this.deps.periods.drop(label);
    await this.deps.retention.savePeriodWalk(label, undefined);
    out.dropped.push(label);
    this.deps.log.info({ period: label, executions: walk.walked }, 'retention dropped a period index');
    return undefined;
  }

  /** True when the execution left the store (or was gone already); false when the store keeps it. */
  private async purgeOne(workflowId: string, rules: RetentionRules, now: number, out: DropOutcome): Promise<boolean> {
    const s = await this.deps.store.load(workflowId);
    if (!s) return true;
    const w = s.workflow;
    const ok =
      isDue({ workflowType: w.workflowName, status: w.status, endTime: w.endTime }, rules, now) &&
      (await this.deps.purgeStored(s, policyOf(rules, w.workflowName).archive).catch((err: unknown) => {
        this.deps.log.warn({ err, workflowId }, 'purging an execution of a period index failed');
        return false;
      }));
    if (ok) out.purged++;
    else out.refused++;
    return ok;
  }

  private async giveUp(label: string, walk: PeriodWalk, why: string, detail?: object): Promise<PeriodWalk> {
    const undo: PeriodWalk = walk.after === undefined ? { mode: 'undo' } : { mode: 'undo', upTo: walk.after };
    await this.deps.retention.savePeriodWalk(label, undo);
    this.deps.log.warn({ period: label, ...detail }, `retention keeps a period index (${why}): its purged executions' documents are deleted one by one`);
    return undo;
  }

  /** Deletes the documents of executions the store no longer holds, up to where the drop walk got; then clears the walk. */
  private async undoWalk(label: string, start: PeriodWalk, budget: number, out: DropOutcome, signal?: AbortSignal): Promise<void> {
    let walk = start;
    for (;;) {
      if (out.walked >= budget || signal?.aborted) return;
      const upTo = walk.upTo;
      const page = upTo === undefined ? [] : await this.deps.periods.workflowIdsAfter(label, walk.after, Math.min(GROUP, budget - out.walked));
      const ids = page.filter((id) => id <= upTo!);
      await Promise.all(
        ids.map(async (id) => {
          if (!(await this.deps.store.load(id))) await this.deps.removeFromIndex(id);
        }),
      );
      out.walked += ids.length;
      if (ids.length === 0 || ids.length < page.length || ids.at(-1) === upTo) break;
      walk = { ...walk, after: ids.at(-1) };
      await this.deps.retention.savePeriodWalk(label, walk);
      await turn();
    }
    await this.deps.retention.savePeriodWalk(label, undefined);
    out.undone.push(label);
  }
}
