import { v7 } from 'uuid';
import type { Task, WorkflowRecord } from '../../src/model/execution';
import type { SearchIndex, SearchRequest } from '../../src/search/ports';
import { parseFreeText, parseQuery, parseSort, type SearchTarget } from '../../src/search/query';
import { OVERVIEW_MAX_NAMES, overviewWindow } from '../../src/search/overview';
import { summarizeTask, summarizeWorkflow } from '../../src/search/summaries';
import { makeTask, makeWorkflowRecord, T0 } from './fixtures';

/**
 * The definition of a SearchIndex: one list of behaviours every adapter must show. `settle()` makes
 * earlier writes visible to searches (an ES refresh; nothing for SQLite).
 */
export interface SearchIndexUnderTest {
  index: SearchIndex;
  cleanup(): Promise<void>;
  settle(): Promise<void>;
}

interface Params {
  query?: string;
  freeText?: string;
  sort?: string;
  start?: number;
  size?: number;
}

function request(target: SearchTarget, p: Params): SearchRequest {
  return {
    query: p.query === undefined ? undefined : parseQuery(p.query, target),
    freeText: parseFreeText(p.freeText ?? '*', target),
    sort: parseSort(p.sort, target),
    start: p.start ?? 0,
    size: p.size ?? 100,
  };
}

// Six workflows whose fields differ in the ways the operators below look at.
const a1 = makeWorkflowRecord({
  workflowId: 'wf-a1',
  workflowName: 'order_flow',
  workflowVersion: 1,
  status: 'COMPLETED',
  correlationId: 'order-123',
  startTime: T0 + 1000,
  createTime: T0 + 1000,
  endTime: T0 + 5000,
  updateTime: T0 + 5000,
  input: { customer: 'alice', amount: 10 },
  output: { result: 'shipped' },
  priority: 1,
});
const a2 = makeWorkflowRecord({
  workflowId: 'wf-a2',
  workflowName: 'order_flow',
  workflowVersion: 2,
  status: 'RUNNING',
  correlationId: 'order-456',
  startTime: T0 + 2000,
  createTime: T0 + 2000,
  updateTime: T0 + 2500,
  input: { customer: 'bob' },
  priority: 5,
});
const b1 = makeWorkflowRecord({
  workflowId: 'wf-b1',
  workflowName: 'billing',
  workflowVersion: 1,
  status: 'FAILED',
  startTime: T0 + 3000,
  createTime: T0 + 3000,
  endTime: T0 + 4000,
  updateTime: T0 + 4000,
  reasonForIncompletion: 'Card declined',
  failedReferenceTaskNames: ['charge'],
  failedTaskNames: ['charge_card'],
  input: { customer: 'alice' },
});
const b2 = makeWorkflowRecord({
  workflowId: 'wf-b2',
  workflowName: 'billing',
  workflowVersion: 1,
  status: 'TIMED_OUT',
  correlationId: 'inv-9',
  startTime: T0 + 4000,
  createTime: T0 + 4000,
  endTime: T0 + 9000,
  updateTime: T0 + 9000,
  parentWorkflowId: 'wf-a1',
});
const c1 = makeWorkflowRecord({
  workflowId: 'wf-c1',
  workflowName: 'shipping',
  workflowVersion: 3,
  status: 'TERMINATED',
  correlationId: 'order-123',
  startTime: T0 + 5000,
  createTime: T0 + 5000,
  endTime: T0 + 6000,
  updateTime: T0 + 6000,
  event: 'order_created',
  createdBy: 'ops',
  taskToDomain: { charge_card: 'eu' },
});
const c2 = makeWorkflowRecord({
  workflowId: 'wf-c2',
  workflowName: 'shipping',
  workflowVersion: 3,
  status: 'PAUSED',
  startTime: T0 + 6000,
  createTime: T0 + 6000,
  updateTime: T0 + 6500,
});
const WORKFLOWS = [a1, a2, b1, b2, c1, c2];

const t1 = makeTask({
  taskId: 'task-1',
  taskType: 'charge_card',
  taskDefName: 'charge_card',
  status: 'COMPLETED',
  workflowInstanceId: 'wf-a1',
  workflowType: 'order_flow',
  correlationId: 'order-123',
  scheduledTime: T0 + 1100,
  startTime: T0 + 1200,
  endTime: T0 + 1500,
  updateTime: T0 + 1500,
  inputData: { card: 'visa' },
  outputData: { ok: true },
  domain: 'eu',
});
const t2 = makeTask({
  taskId: 'task-2',
  taskType: 'HTTP',
  taskDefName: 'HTTP',
  status: 'FAILED',
  workflowInstanceId: 'wf-a1',
  workflowType: 'order_flow',
  correlationId: 'order-123',
  scheduledTime: T0 + 1600,
  startTime: T0 + 1700,
  endTime: T0 + 1800,
  updateTime: T0 + 1800,
  reasonForIncompletion: 'Connection refused',
});
const t3 = makeTask({
  taskId: 'task-3',
  taskType: 'charge_card',
  taskDefName: 'charge_card',
  status: 'SCHEDULED',
  workflowInstanceId: 'wf-a2',
  workflowType: 'order_flow',
  correlationId: 'order-456',
  scheduledTime: T0 + 2100,
  updateTime: T0 + 2100,
});
const TASKS = [t1, t2, t3];

export function describeSearchIndexContract(name: string, make: () => Promise<SearchIndexUnderTest>): void {
  describe(`SearchIndex contract: ${name}`, () => {
    let sut: SearchIndexUnderTest;

    beforeEach(async () => {
      sut = await make();
    });
    afterEach(async () => {
      await sut.cleanup();
    });

    async function load(workflows: WorkflowRecord[] = WORKFLOWS, tasks: Task[] = []): Promise<void> {
      await sut.index.indexWorkflows(workflows);
      if (tasks.length > 0) await sut.index.indexTasks(tasks);
      await sut.settle();
    }
    const searchWorkflows = (p: Params = {}) => sut.index.searchWorkflows(request('workflow', p));
    const searchTasks = (p: Params = {}) => sut.index.searchTasks(request('task', p));
    /** Ids of the hits in result order. */
    async function ids(p: Params = {}): Promise<string[]> {
      return (await searchWorkflows(p)).results.map((r) => r.workflowId);
    }
    /** Ids of the hits, order ignored. */
    async function idSet(p: Params): Promise<string[]> {
      return (await ids({ ...p, size: 100 })).sort();
    }
    async function taskIds(p: Params = {}): Promise<string[]> {
      return (await searchTasks(p)).results.map((r) => r.taskId);
    }

    describe('workflows', () => {
      it('returns every indexed workflow as its summary, newest start first by default', async () => {
        await load();
        const result = await searchWorkflows();
        expect(result.totalHits).toBe(6);
        expect(result.results.map((r) => r.workflowId)).toEqual(['wf-c2', 'wf-c1', 'wf-b2', 'wf-b1', 'wf-a2', 'wf-a1']);
        for (const w of WORKFLOWS) {
          expect(result.results.find((r) => r.workflowId === w.workflowId)).toEqual(summarizeWorkflow(w));
        }
      });

      it('finds nothing in an empty index', async () => {
        await sut.settle();
        expect(await searchWorkflows({ query: "status='RUNNING'" })).toEqual({ totalHits: 0, results: [] });
      });

      it('matches = on keyword fields exactly and case-sensitively, quoted or bare', async () => {
        await load();
        expect(await idSet({ query: "status='COMPLETED'" })).toEqual(['wf-a1']);
        expect(await idSet({ query: 'status=RUNNING' })).toEqual(['wf-a2']);
        expect(await idSet({ query: 'workflowType="billing"' })).toEqual(['wf-b1', 'wf-b2']);
        expect(await idSet({ query: "status='running'" })).toEqual([]);
        expect(await idSet({ query: "workflowId='wf-c1'" })).toEqual(['wf-c1']);
        expect(await idSet({ query: "event='order_created'" })).toEqual(['wf-c1']);
        expect(await idSet({ query: "createdBy='ops'" })).toEqual(['wf-c1']);
        expect(await idSet({ query: "reasonForIncompletion='Card declined'" })).toEqual(['wf-b1']);
      });

      it('matches = on number fields', async () => {
        await load();
        expect(await idSet({ query: 'version=3' })).toEqual(['wf-c1', 'wf-c2']);
        expect(await idSet({ query: 'executionTime=4000' })).toEqual(['wf-a1']);
        expect(await idSet({ query: 'priority >= 1' })).toEqual(['wf-a1', 'wf-a2']);
      });

      it('matches != including records that lack the field', async () => {
        await load();
        expect(await idSet({ query: "status != 'RUNNING'" })).toEqual(['wf-a1', 'wf-b1', 'wf-b2', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: "correlationId!='order-123'" })).toEqual(['wf-a2', 'wf-b1', 'wf-b2', 'wf-c2']);
      });

      it('compares times with >, <, >=, <= given epoch millis', async () => {
        await load();
        expect(await idSet({ query: `startTime > ${T0 + 4000}` })).toEqual(['wf-c1', 'wf-c2']);
        expect(await idSet({ query: `startTime >= ${T0 + 4000}` })).toEqual(['wf-b2', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: `startTime < ${T0 + 2000}` })).toEqual(['wf-a1']);
        expect(await idSet({ query: `startTime <= ${T0 + 2000}` })).toEqual(['wf-a1', 'wf-a2']);
        expect(await idSet({ query: `updateTime > ${T0 + 6000}` })).toEqual(['wf-b2', 'wf-c2']);
      });

      it('compares times given ISO-8601 strings, quoted or bare', async () => {
        await load();
        expect(await idSet({ query: "startTime >= '2024-01-01T00:00:04.000Z'" })).toEqual(['wf-b2', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: 'startTime<2024-01-01T00:00:02Z' })).toEqual(['wf-a1']);
      });

      it('leaves records without an end time out of end time ranges', async () => {
        await load();
        expect(await idSet({ query: `endTime < ${T0 + 100_000}` })).toEqual(['wf-a1', 'wf-b1', 'wf-b2', 'wf-c1']);
      });

      it('matches IN lists with bare and quoted items', async () => {
        await load();
        expect(await idSet({ query: 'status IN (RUNNING, PAUSED)' })).toEqual(['wf-a2', 'wf-c2']);
        expect(await idSet({ query: `workflowType IN ('billing', "shipping")` })).toEqual(['wf-b1', 'wf-b2', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: 'version IN (2,3)' })).toEqual(['wf-a2', 'wf-c1', 'wf-c2']);
      });

      it('matches IS NULL and IS NOT NULL', async () => {
        await load();
        expect(await idSet({ query: 'correlationId IS NULL' })).toEqual(['wf-b1', 'wf-c2']);
        expect(await idSet({ query: 'correlationId IS NOT NULL' })).toEqual(['wf-a1', 'wf-a2', 'wf-b2', 'wf-c1']);
        expect(await idSet({ query: 'endTime IS null' })).toEqual(['wf-a2', 'wf-c2']);
        expect(await idSet({ query: 'reasonForIncompletion IS not null' })).toEqual(['wf-b1']);
      });

      it('treats a top-level workflow as having no parentWorkflowId', async () => {
        await load();
        expect(await idSet({ query: 'parentWorkflowId IS NULL' })).toEqual(['wf-a1', 'wf-a2', 'wf-b1', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: "parentWorkflowId = 'wf-a1'" })).toEqual(['wf-b2']);
        expect((await searchWorkflows({ query: "workflowId='wf-a1'" })).results[0]!.parentWorkflowId).toBe('');
      });

      it('matches BETWEEN inclusively', async () => {
        await load();
        expect(await idSet({ query: `startTime BETWEEN ${T0 + 2000} AND ${T0 + 4000}` })).toEqual(['wf-a2', 'wf-b1', 'wf-b2']);
        expect(await idSet({ query: 'version BETWEEN 2 AND 3' })).toEqual(['wf-a2', 'wf-c1', 'wf-c2']);
      });

      it('matches STARTS_WITH case-sensitively', async () => {
        await load();
        expect(await idSet({ query: "workflowType STARTS_WITH 'ship'" })).toEqual(['wf-c1', 'wf-c2']);
        expect(await idSet({ query: "correlationId STARTS_WITH 'order-'" })).toEqual(['wf-a1', 'wf-a2', 'wf-c1']);
        expect(await idSet({ query: "workflowType STARTS_WITH 'SHIP'" })).toEqual([]);
      });

      it('combines with AND, OR and parentheses, AND binding tighter', async () => {
        await load();
        expect(await idSet({ query: "workflowType='billing' AND status='FAILED'" })).toEqual(['wf-b1']);
        expect(await idSet({ query: "status='FAILED' OR status='TIMED_OUT'" })).toEqual(['wf-b1', 'wf-b2']);
        // (FAILED AND billing) OR shipping, not FAILED AND (billing OR shipping) as Conductor's ES parser reads it.
        expect(await idSet({ query: "status='FAILED' AND workflowType='billing' OR workflowType='shipping'" })).toEqual(['wf-b1', 'wf-c1', 'wf-c2']);
        expect(await idSet({ query: "status='FAILED' AND (workflowType='billing' OR workflowType='shipping')" })).toEqual(['wf-b1']);
        expect(await idSet({ query: "(workflowType=order_flow OR workflowType=shipping) and correlationId='order-123'" })).toEqual(['wf-a1', 'wf-c1']);
        expect(await idSet({ query: `((status IN (RUNNING,PAUSED)) OR (endTime IS NOT NULL AND startTime < ${T0 + 2000}))` })).toEqual([
          'wf-a1',
          'wf-a2',
          'wf-c2',
        ]);
      });

      it('matches freeText field:value terms exactly, or by wildcard case-insensitively', async () => {
        await load();
        expect(await idSet({ freeText: 'workflowType:billing' })).toEqual(['wf-b1', 'wf-b2']);
        expect(await idSet({ freeText: 'workflowId:"wf-c2"' })).toEqual(['wf-c2']);
        expect(await idSet({ freeText: 'correlationId:order-*' })).toEqual(['wf-a1', 'wf-a2', 'wf-c1']);
        expect(await idSet({ freeText: 'correlationId:ORDER-*' })).toEqual(['wf-a1', 'wf-a2', 'wf-c1']);
        expect(await idSet({ freeText: 'correlationId:*' })).toEqual(['wf-a1', 'wf-a2', 'wf-b2', 'wf-c1']);
        expect(await idSet({ freeText: 'version:3' })).toEqual(['wf-c1', 'wf-c2']);
        expect(await idSet({ freeText: 'workflowType:billing status:FAILED' })).toEqual(['wf-b1']);
      });

      it('matches freeText words in ids, correlation id, type, reason, input and output, all words required', async () => {
        await load();
        expect(await idSet({ freeText: 'alice' })).toEqual(['wf-a1', 'wf-b1']);
        expect(await idSet({ freeText: 'order-456' })).toEqual(['wf-a2']);
        expect(await idSet({ freeText: 'wf-b' })).toEqual(['wf-b1', 'wf-b2']);
        expect(await idSet({ freeText: 'declined' })).toEqual(['wf-b1']);
        expect(await idSet({ freeText: 'shipping' })).toEqual(['wf-c1', 'wf-c2']);
        expect(await idSet({ freeText: 'alice shipped' })).toEqual(['wf-a1']);
        expect(await idSet({ freeText: 'ALICE' })).toEqual(['wf-a1', 'wf-b1']);
        expect(await idSet({ freeText: 'alice AND workflowType:billing' })).toEqual(['wf-b1']);
        expect(await idSet({ freeText: 'zebra' })).toEqual([]);
        expect(await idSet({ freeText: '*' })).toHaveLength(6);
      });

      it('applies query and freeText together', async () => {
        await load();
        expect(await idSet({ freeText: 'alice', query: "status='COMPLETED'" })).toEqual(['wf-a1']);
        expect(await idSet({ freeText: 'workflowType:billing', query: 'correlationId IS NULL' })).toEqual(['wf-b1']);
      });

      it('sorts by a field in both orders, in every sort syntax', async () => {
        await load();
        const ascending = ['wf-a1', 'wf-a2', 'wf-b1', 'wf-b2', 'wf-c1', 'wf-c2'];
        expect(await ids({ sort: 'startTime:ASC' })).toEqual(ascending);
        expect(await ids({ sort: 'ASC:startTime' })).toEqual(ascending);
        expect(await ids({ sort: 'startTime' })).toEqual(ascending);
        expect(await ids({ sort: 'startTime:DESC' })).toEqual([...ascending].reverse());
        expect(await ids({ sort: 'DESC:startTime' })).toEqual([...ascending].reverse());
        expect(await ids({ sort: 'updateTime:DESC' })).toEqual(['wf-b2', 'wf-c2', 'wf-c1', 'wf-a1', 'wf-b1', 'wf-a2']);
      });

      it('sorts by several keys, ties broken by workflowId, missing values last', async () => {
        await load();
        expect(await ids({ sort: 'workflowType:ASC|startTime:DESC' })).toEqual(['wf-b2', 'wf-b1', 'wf-a2', 'wf-a1', 'wf-c2', 'wf-c1']);
        expect(await ids({ sort: 'version:DESC,workflowType:ASC' })).toEqual(['wf-c1', 'wf-c2', 'wf-a2', 'wf-b1', 'wf-b2', 'wf-a1']);
        expect(await ids({ sort: 'correlationId:ASC' })).toEqual(['wf-b2', 'wf-a1', 'wf-c1', 'wf-a2', 'wf-b1', 'wf-c2']);
        expect(await ids({ sort: 'correlationId:DESC' })).toEqual(['wf-a2', 'wf-a1', 'wf-c1', 'wf-b2', 'wf-b1', 'wf-c2']);
      });

      it('pages with start and size while totalHits counts every match', async () => {
        await load();
        const page = await searchWorkflows({ sort: 'startTime:ASC', start: 2, size: 2 });
        expect(page.totalHits).toBe(6);
        expect(page.results.map((r) => r.workflowId)).toEqual(['wf-b1', 'wf-b2']);
        expect(await searchWorkflows({ start: 6, size: 2 })).toEqual({ totalHits: 6, results: [] });
        expect(await searchWorkflows({ size: 0 })).toEqual({ totalHits: 6, results: [] });
        const filtered = await searchWorkflows({ query: 'workflowType IN (billing, shipping)', sort: 'startTime', start: 1, size: 2 });
        expect(filtered.totalHits).toBe(4);
        expect(filtered.results.map((r) => r.workflowId)).toEqual(['wf-b2', 'wf-c1']);
      });

      it('walks a larger result set page by page without gaps or repeats', async () => {
        const many = Array.from({ length: 37 }, (_, i) =>
          makeWorkflowRecord({ workflowId: `wf-many-${String(i).padStart(2, '0')}`, workflowName: 'bulk', startTime: T0 + (i % 5) * 1000 }),
        );
        await load(many);
        const seen: string[] = [];
        for (let start = 0; start < 37; start += 8) {
          const page = await searchWorkflows({ query: 'workflowType=bulk', sort: 'startTime:ASC', start, size: 8 });
          expect(page.totalHits).toBe(37);
          seen.push(...page.results.map((r) => r.workflowId));
        }
        const expected = [...many].sort((x, y) => x.startTime - y.startTime || x.workflowId.localeCompare(y.workflowId));
        expect(seen).toEqual(expected.map((w) => w.workflowId));
      });

      it('replaces a record with a newer one and ignores a stale one', async () => {
        await load();
        const finished = { ...a2, status: 'COMPLETED' as const, endTime: T0 + 10_000, updateTime: T0 + 10_000, output: { done: true } };
        await sut.index.indexWorkflows([finished]);
        await sut.index.indexWorkflows([a2]);
        await sut.settle();
        const hit = await searchWorkflows({ query: "workflowId='wf-a2'" });
        expect(hit.results).toEqual([summarizeWorkflow(finished)]);
        expect(await idSet({ query: "status='RUNNING'" })).toEqual([]);
      });

      it('keeps the newest record when one batch holds several versions of it', async () => {
        const v1 = makeWorkflowRecord({ workflowId: 'wf-v', startTime: T0, updateTime: T0 + 1 });
        const v2 = { ...v1, status: 'PAUSED' as const, updateTime: T0 + 2 };
        const v3 = { ...v1, status: 'RUNNING' as const, updateTime: T0 + 3, variables: { resumed: true } };
        await load([v1, v3, v2]);
        const hit = await searchWorkflows({ query: "workflowId='wf-v'" });
        expect(hit.totalHits).toBe(1);
        expect(hit.results[0]).toEqual(summarizeWorkflow(v3));
      });

      it('applies a record with an equal update time (re-driven effects are idempotent)', async () => {
        await load([a2]);
        const sameTime = { ...a2, correlationId: 'order-789' };
        await load([sameTime]);
        expect(await idSet({ query: "correlationId='order-789'" })).toEqual(['wf-a2']);
      });

      it('removes a workflow together with its tasks; removing an unknown id is harmless', async () => {
        await load(WORKFLOWS, TASKS);
        await sut.index.removeWorkflow('wf-a1');
        await sut.index.removeWorkflow('wf-unknown');
        await sut.settle();
        expect(await idSet({})).toEqual(['wf-a2', 'wf-b1', 'wf-b2', 'wf-c1', 'wf-c2']);
        expect((await searchWorkflows()).totalHits).toBe(5);
        expect(await taskIds()).toEqual(['task-3']);
      });

      it('keeps one summary per execution whatever month its time-ordered id was made in, across updates and removals', async () => {
        // UUIDv7 ids of two months (Elasticsearch keeps them in the index of their month) and one client id.
        const jan = v7({ msecs: Date.UTC(2026, 0, 31, 23, 59, 59, 999) });
        const feb = v7({ msecs: Date.UTC(2026, 1, 1) });
        const own = 'client-chosen-id';
        const wfs = [jan, feb, own].map((workflowId) => makeWorkflowRecord({ workflowId, workflowName: 'periods', status: 'RUNNING' }));
        const tasks = [jan, feb, own].map((workflowInstanceId, i) =>
          makeTask({ taskId: `${workflowInstanceId}-t`, workflowInstanceId, workflowType: 'periods', seq: i }),
        );
        await load(wfs, tasks);
        // A later update (a restart keeps the id, not the start time) replaces the summary in place.
        await load(
          [{ ...wfs[0]!, status: 'COMPLETED', startTime: T0 + 10 * 86_400_000, updateTime: T0 + 10 * 86_400_000 }],
          [{ ...tasks[0]!, status: 'COMPLETED', updateTime: T0 + 10 * 86_400_000 }],
        );
        expect(await idSet({ query: "workflowType='periods'" })).toEqual([jan, feb, own].sort());
        expect(await idSet({ query: "workflowType='periods' AND status='COMPLETED'" })).toEqual([jan]);
        expect((await taskIds({ query: "workflowType='periods'" })).sort()).toEqual(tasks.map((t) => t.taskId).sort());
        await sut.index.removeWorkflow(jan);
        await sut.index.removeWorkflow(own);
        await sut.settle();
        expect(await idSet({ query: "workflowType='periods'" })).toEqual([feb]);
        expect(await taskIds({ query: "workflowType='periods'" })).toEqual([`${feb}-t`]);
      });
    });

    describe('tasks', () => {
      it('returns every indexed task as its summary, latest scheduled first by default', async () => {
        await load([], TASKS);
        const result = await searchTasks();
        expect(result.totalHits).toBe(3);
        expect(result.results).toEqual([summarizeTask(t3), summarizeTask(t2), summarizeTask(t1)]);
      });

      it('filters tasks with the query operators', async () => {
        await load([], TASKS);
        expect(await taskIds({ query: "taskType='HTTP'" })).toEqual(['task-2']);
        expect((await taskIds({ query: "status IN (COMPLETED, FAILED) AND workflowId='wf-a1'" })).sort()).toEqual(['task-1', 'task-2']);
        expect((await taskIds({ query: 'domain IS NULL' })).sort()).toEqual(['task-2', 'task-3']);
        expect((await taskIds({ query: "taskDefName STARTS_WITH 'charge'" })).sort()).toEqual(['task-1', 'task-3']);
        expect((await taskIds({ query: `scheduledTime >= ${T0 + 1600}` })).sort()).toEqual(['task-2', 'task-3']);
        expect((await taskIds({ query: 'queueWaitTime > 0' })).sort()).toEqual(['task-1', 'task-2']);
        expect(await taskIds({ query: "status='SCHEDULED' OR domain='eu' AND workflowType='nope'" })).toEqual(['task-3']);
      });

      it('matches task freeText words and field terms', async () => {
        await load([], TASKS);
        expect(await taskIds({ freeText: 'visa' })).toEqual(['task-1']);
        expect(await taskIds({ freeText: 'refused' })).toEqual(['task-2']);
        expect((await taskIds({ freeText: 'taskType:charge*' })).sort()).toEqual(['task-1', 'task-3']);
        expect(await taskIds({ freeText: 'order-456' })).toEqual(['task-3']);
      });

      it('sorts and pages tasks', async () => {
        await load([], TASKS);
        expect(await taskIds({ sort: 'scheduledTime:ASC' })).toEqual(['task-1', 'task-2', 'task-3']);
        expect(await taskIds({ sort: 'taskType:DESC|scheduledTime:ASC' })).toEqual(['task-1', 'task-3', 'task-2']);
        const page = await searchTasks({ sort: 'scheduledTime:ASC', start: 1, size: 1 });
        expect(page).toEqual({ totalHits: 3, results: [summarizeTask(t2)] });
      });

      it('ignores a stale task update', async () => {
        await load([], TASKS);
        const started = { ...t3, status: 'IN_PROGRESS' as const, startTime: T0 + 3000, updateTime: T0 + 3000, pollCount: 1 };
        await sut.index.indexTasks([started]);
        await sut.index.indexTasks([t3]);
        await sut.settle();
        const hit = await searchTasks({ query: "taskId='task-3'" });
        expect(hit.results).toEqual([summarizeTask(started)]);
      });
    });

    describe('overview', () => {
      const MIN = 60_000;
      const wf = (id: string, name: string, status: WorkflowRecord['status'], startTime: number, endTime = 0) =>
        makeWorkflowRecord({ workflowId: id, workflowName: name, status, startTime, createTime: startTime, endTime, updateTime: endTime || startTime });
      const task = (id: string, taskType: string, scheduledTime: number, startTime: number) =>
        makeTask({
          taskId: id,
          taskType,
          taskDefName: taskType,
          status: startTime ? 'IN_PROGRESS' : 'SCHEDULED',
          scheduledTime,
          startTime,
          updateTime: startTime || scheduledTime,
        });

      it('counts starts and ends per minute by name and final status, durations of completed ones and task queue waits, inside the window only', async () => {
        await load(
          [
            wf('ov-1', 'ov_alpha', 'COMPLETED', T0 + MIN + 1000, T0 + 2 * MIN + 5000),
            wf('ov-2', 'ov_alpha', 'FAILED', T0 + MIN + 2000, T0 + MIN + 30_000),
            wf('ov-3', 'ov_alpha', 'RUNNING', T0 + 3 * MIN),
            wf('ov-4', 'ov_beta', 'COMPLETED', T0 + 2 * MIN, T0 + 2 * MIN + 500),
            wf('ov-5', 'ov_beta', 'TIMED_OUT', T0 - 120 * MIN, T0 + 4 * MIN),
            wf('ov-6', 'ov_gamma', 'COMPLETED', T0 - 180 * MIN, T0 - 179 * MIN),
          ],
          [
            task('ov-k1', 'ov_t1', T0 + MIN, T0 + MIN + 300),
            task('ov-k2', 'ov_t1', T0 + MIN + 10_000, T0 + MIN + 10_100),
            task('ov-k3', 'ov_t2', T0 + 2 * MIN, 0),
            task('ov-k4', 'ov_t3', T0 - 120 * MIN, T0 - 120 * MIN + 5),
          ],
        );
        const w = overviewWindow(T0 + 10 * MIN + 5);
        expect(w).toEqual({ from: T0 - 49 * MIN, to: T0 + 11 * MIN, bucketMs: MIN, maxNames: OVERVIEW_MAX_NAMES });
        const rows = await sut.index.overview(w);
        const order = (a: object, b: object) => JSON.stringify(a).localeCompare(JSON.stringify(b));
        expect([...rows.started].sort(order)).toEqual(
          [
            { name: 'ov_alpha', bucket: 50, count: 2 },
            { name: 'ov_alpha', bucket: 52, count: 1 },
            { name: 'ov_beta', bucket: 51, count: 1 },
          ].sort(order),
        );
        expect([...rows.ended].sort(order)).toEqual(
          [
            { name: 'ov_alpha', status: 'COMPLETED', bucket: 51, count: 1 },
            { name: 'ov_alpha', status: 'FAILED', bucket: 50, count: 1 },
            { name: 'ov_beta', status: 'COMPLETED', bucket: 51, count: 1 },
            { name: 'ov_beta', status: 'TIMED_OUT', bucket: 53, count: 1 },
          ].sort(order),
        );
        expect([...rows.durations].sort((a, b) => a.name.localeCompare(b.name))).toEqual([
          { name: 'ov_alpha', count: 1, avgMs: 64_000, maxMs: 64_000 },
          { name: 'ov_beta', count: 1, avgMs: 500, maxMs: 500 },
        ]);
        expect(rows.taskWaits).toEqual([{ taskType: 'ov_t1', count: 2, avgMs: 200, maxMs: 300 }]);
      });
    });
  });
}
