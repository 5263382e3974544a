import Database from 'better-sqlite3';
import { v7 } from 'uuid';
import type { WorkflowRecord } from '../../../src/model/execution';
import { retentionRules } from '../../../src/retention/policy';
import { Purger } from '../../../src/retention/purger';
import { indexForExecution, parsePeriodIndex } from '../../../src/search/elasticsearch/index-period';
import type { IndexPeriodRef, PeriodIndices, QueryAst } from '../../../src/search/ports';
import type { StoredExecution } from '../../../src/store/ports';
import { SqliteRetentionStore } from '../../../src/store/sqlite/retention-store';
import { makeWorkflowRecord } from '../../contracts/fixtures';
import { MemoryObjectStore } from '../../support/memory-object-store';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 28, 12);
const quiet = { info: () => undefined, warn: () => undefined };

/** The fields the purge's selections read, as a document holds them. */
type Doc = Pick<WorkflowRecord, 'workflowId' | 'workflowName' | 'status' | 'endTime'>;

/** The few query forms `selectionQuery` builds, over a document. */
function matches(q: QueryAst, d: Doc): boolean {
  const field = (f: string): string | number => (f === 'workflowType' ? d.workflowName : f === 'endTime' ? d.endTime : f === 'status' ? d.status : NaN);
  switch (q.op) {
    case 'and':
      return matches(q.left, d) && matches(q.right, d);
    case 'in':
      return q.values.includes(field(q.field));
    case 'cmp':
      if (q.cmp === '<') return field(q.field) < q.value;
      if (q.cmp === '!=') return field(q.field) !== q.value;
      if (q.cmp === '=') return field(q.field) === q.value;
      throw new Error(`unexpected ${q.cmp}`);
    default:
      throw new Error(`unexpected ${q.op}`);
  }
}

/** Period indices in memory, named as Elasticsearch's are; `dropped` lists what was deleted whole. */
class MemoryPeriods implements PeriodIndices {
  readonly docs = new Map<string, Map<string, Doc>>();
  readonly dropped: string[] = [];
  write(d: Doc): void {
    const label = indexForExecution('p', 'workflow', d.workflowId, 'month').slice('p_workflow_'.length);
    if (!this.docs.has(label)) this.docs.set(label, new Map());
    this.docs.get(label)!.set(d.workflowId, { ...d });
  }
  removeDoc(id: string): void {
    for (const m of this.docs.values()) m.delete(id);
  }
  has(id: string): boolean {
    return [...this.docs.values()].some((m) => m.has(id));
  }
  async periods(): Promise<IndexPeriodRef[]> {
    return [...this.docs.keys()]
      .map((l) => parsePeriodIndex('p', 'workflow', `p_workflow_${l}`))
      .filter((p): p is IndexPeriodRef => p !== undefined)
      .sort((a, b) => a.start - b.start);
  }
  async countMatchingNone(label: string, queries: QueryAst[]): Promise<number> {
    return [...(this.docs.get(label)?.values() ?? [])].filter((d) => !queries.some((q) => matches(q, d))).length;
  }
  async workflowIdsAfter(label: string, after: string | undefined, size: number): Promise<string[]> {
    return [...(this.docs.get(label)?.keys() ?? [])]
      .filter((id) => after === undefined || id > after)
      .sort()
      .slice(0, size);
  }
  async refresh(): Promise<void> {}
  async drop(label: string): Promise<void> {
    this.docs.delete(label);
    this.dropped.push(label);
  }
}

interface World {
  periods: MemoryPeriods;
  stored: Map<string, StoredExecution>;
  loads: string[];
  /** Ids whose documents were deleted one by one. */
  perDocument: string[];
  objects: MemoryObjectStore;
  retention: SqliteRetentionStore;
  purger: (opts?: { onRemove?: () => void; onIndexDelete?: () => void }) => Purger;
}

/** Ended `endedDaysAgo` days before NOW, created a minute before that (its id says so). */
function execution(
  w: World,
  name: string,
  status: WorkflowRecord['status'],
  endedDaysAgo: number,
  opts: { storedStatus?: WorkflowRecord['status']; seq?: number } = {},
): string {
  const endTime = status === 'RUNNING' ? 0 : NOW - endedDaysAgo * DAY + (opts.seq ?? 0) * 1000;
  const created = NOW - endedDaysAgo * DAY - 60_000 + (opts.seq ?? 0) * 1000;
  const workflowId = v7({ msecs: created });
  const rec = makeWorkflowRecord({ workflowId, workflowName: name, status, createTime: created, startTime: created, updateTime: endTime || created, endTime });
  w.periods.write(rec);
  w.stored.set(workflowId, { workflow: { ...rec, status: opts.storedStatus ?? status }, tasks: [] } as unknown as StoredExecution);
  return workflowId;
}

function world(): World {
  const w = {
    periods: new MemoryPeriods(),
    stored: new Map<string, StoredExecution>(),
    loads: [] as string[],
    perDocument: [] as string[],
    objects: new MemoryObjectStore(),
    retention: new SqliteRetentionStore(new Database(':memory:')),
  } as World;
  w.purger = (opts = {}) =>
    new Purger({
      store: {
        load: async (id) => (w.loads.push(id), w.stored.get(id)),
        remove: async (id) => {
          w.stored.delete(id);
          opts.onRemove?.();
        },
      },
      removeFromIndex: async (id) => {
        w.perDocument.push(id);
        opts.onIndexDelete?.();
        w.periods.removeDoc(id);
      },
      // The per-document path's search over every period.
      search: {
        searchWorkflows: async (req) => {
          const all = [...w.periods.docs.values()].flatMap((m) => [...m.values()]).filter((d) => matches(req.query!, d));
          const page = all.slice(req.start, req.start + req.size);
          return {
            totalHits: all.length,
            results: page.map((d) => ({
              workflowId: d.workflowId,
              workflowType: d.workflowName,
              status: d.status,
              endTime: new Date(d.endTime).toISOString(),
            })) as never,
          };
        },
      },
      periods: w.periods,
      retention: w.retention,
      objects: w.objects,
      rules: async () =>
        retentionRules(
          [
            { name: 'kept_long', version: 1, retention: { days: 365 } },
            { name: 'archived', version: 1, retention: { days: 30, archive: true } },
          ],
          { days: 30, archive: false },
        ),
      now: () => NOW,
      log: quiet,
    });
  return w;
}

const label = (daysAgo: number): string => indexForExecution('p', 'workflow', v7({ msecs: NOW - daysAgo * DAY }), 'month').slice('p_workflow_'.length);

describe('retention by whole period indices', () => {
  test('an old period whose executions are all due is walked and dropped whole; a young one and its executions stay', async () => {
    const w = world();
    const old = [
      ...Array.from({ length: 40 }, (_, i) => execution(w, 'plain', 'COMPLETED', 100, { seq: i })),
      ...Array.from({ length: 5 }, (_, i) => execution(w, 'archived', 'FAILED', 100, { seq: 50 + i })),
    ];
    const young = Array.from({ length: 5 }, (_, i) => execution(w, 'plain', 'COMPLETED', 1, { seq: i }));
    const out = await w.purger().passOnce(1000);
    expect(out).toMatchObject({ purged: 45, archived: 5, kept: 0, droppedPeriods: [label(100)] });
    expect(w.periods.dropped).toEqual([label(100)]);
    expect(w.perDocument).toEqual([]); // no document deleted one by one
    expect(old.filter((id) => w.stored.has(id))).toEqual([]);
    expect(young.filter((id) => w.stored.has(id) && w.periods.has(id))).toEqual(young);
    expect(w.objects.objects.size).toBe(5);
    expect(await w.retention.periodWalk(label(100))).toBeUndefined();
  });

  test('a period with one execution not due keeps its index: its due executions leave one by one', async () => {
    const w = world();
    const due = Array.from({ length: 10 }, (_, i) => execution(w, 'plain', 'COMPLETED', 100, { seq: i }));
    const notDue = [execution(w, 'kept_long', 'COMPLETED', 100, { seq: 20 }), execution(w, 'plain', 'RUNNING', 100, { seq: 21 })];
    const out = await w.purger().passOnce(1000);
    expect(out).toMatchObject({ purged: 10, kept: 0 });
    expect(out.droppedPeriods).toBeUndefined();
    expect(w.periods.dropped).toEqual([]);
    expect(w.perDocument.sort()).toEqual([...due].sort());
    expect(notDue.filter((id) => w.stored.has(id) && w.periods.has(id))).toEqual(notDue);
  });

  test('an execution restarted since it was indexed stops the drop: documents of the executions purged so far are deleted one by one', async () => {
    const w = world();
    const ids = Array.from({ length: 40 }, (_, i) => execution(w, 'plain', 'COMPLETED', 100, { seq: i, storedStatus: i === 20 ? 'RUNNING' : 'COMPLETED' }));
    const restarted = ids[20]!;
    const out = await w.purger().passOnce(1000);
    expect(w.periods.dropped).toEqual([]);
    expect(w.stored.has(restarted) && w.periods.has(restarted)).toBe(true);
    // Every execution that left the store left the index in the same pass, and nothing else did.
    const gone = ids.filter((id) => !w.stored.has(id));
    expect(gone.filter((id) => w.periods.has(id))).toEqual([]);
    expect(ids.filter((id) => w.stored.has(id))).toEqual([restarted]);
    expect(out.purged).toBe(39);
    expect(await w.retention.periodWalk(label(100))).toBeUndefined();
    // Once the index shows it running, the next pass does not try the period again.
    w.periods.write({ ...w.stored.get(restarted)!.workflow });
    w.loads.length = 0;
    const again = await w.purger().passOnce(1000);
    expect(again).toMatchObject({ purged: 0, kept: 0 });
    expect(w.loads).toEqual([]);
    expect(w.stored.has(restarted)).toBe(true);
  });

  test('a pass killed mid-walk leaves a cursor; the next resumes there, neither loading an execution twice nor skipping one', async () => {
    const w = world();
    const ids = Array.from({ length: 100 }, (_, i) => execution(w, 'plain', 'COMPLETED', 100, { seq: i })).sort();
    const kill = new AbortController();
    let removed = 0;
    await w.purger({ onRemove: () => void (++removed === 40 && kill.abort()) }).passOnce(1000, kill.signal);
    const walk = await w.retention.periodWalk(label(100));
    expect(walk).toEqual({ mode: 'drop', after: ids[47], walked: 48 }); // the group in flight (33-48) finished
    expect(w.periods.dropped).toEqual([]);
    expect(w.periods.docs.get(label(100))!.size).toBe(100); // documents stay until the drop
    const out = await w.purger().passOnce(1000);
    expect(out).toMatchObject({ purged: 52, droppedPeriods: [label(100)] });
    expect([...w.loads].sort()).toEqual(ids);
    expect(w.stored.size).toBe(0);
    expect(await w.retention.periodWalk(label(100))).toBeUndefined();
  });

  test('a pass killed while giving a drop up resumes there: each purged execution loses its document once', async () => {
    const w = world();
    const ids = Array.from({ length: 40 }, (_, i) =>
      execution(w, 'plain', 'COMPLETED', 100, { seq: i, storedStatus: i === 20 ? 'RUNNING' : 'COMPLETED' }),
    ).sort();
    const kill = new AbortController();
    let deletes = 0;
    await w.purger({ onIndexDelete: () => void (++deletes === 5 && kill.abort()) }).passOnce(1000, kill.signal);
    expect(await w.retention.periodWalk(label(100))).toEqual({ mode: 'undo', upTo: ids[31], after: ids[15] });
    await w.purger().passOnce(1000);
    // The undo's 31 and, on the per-document path after it, the 8 the walk had not reached: each once.
    expect(w.perDocument.sort()).toEqual(ids.filter((id) => id !== ids[20]));
    expect(ids.filter((id) => !w.stored.has(id) && w.periods.has(id))).toEqual([]);
    expect(w.periods.dropped).toEqual([]);
    expect(await w.retention.periodWalk(label(100))).toBeUndefined();
  });

  test('the budget pauses a walk between passes; a document written meanwhile makes it give up instead of dropping', async () => {
    const w = world();
    const ids = Array.from({ length: 40 }, (_, i) => execution(w, 'plain', 'COMPLETED', 100, { seq: i })).sort();
    expect(await w.purger().passOnce(32)).toMatchObject({ purged: 32 });
    expect(await w.retention.periodWalk(label(100))).toMatchObject({ mode: 'drop', walked: 32 });
    // Written behind the cursor (its id sorts first): the walk will not see it.
    const late = execution(w, 'plain', 'COMPLETED', 100, { seq: -30 });
    expect(late < ids[0]!).toBe(true);
    await w.purger().passOnce(1000);
    expect(w.periods.dropped).toEqual([]);
    expect(ids.filter((id) => w.stored.has(id) || w.periods.has(id))).toEqual([]);
    // The late one is due: the per-document path of the same pass took it.
    expect(w.stored.has(late) || w.periods.has(late)).toBe(false);
    expect(w.perDocument).toContain(late);
  });
});
