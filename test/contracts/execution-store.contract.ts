import { randomUUID } from 'node:crypto';
import type { Effect } from '../../src/model/effects';
import type { Task, WorkflowRecord } from '../../src/model/execution';
import type { WorkflowStatus } from '../../src/model/statuses';
import { type ExecutionStore, PayloadTooLargeError, StaleWriteError } from '../../src/store/ports';
import { makeCommit, makeTask, makeWorkflowRecord, T0 } from './fixtures';

/**
 * The definition of an ExecutionStore: every adapter runs this one list of behaviours. Stores may be
 * shared between tests (a Cassandra keyspace), so every test uses fresh ids and workflow names.
 * Adapters must be configured with the default payload limits (task 3 MB, workflow 10 MB).
 */
export interface ExecutionStoreUnderTest {
  store: ExecutionStore;
  cleanup(): Promise<void>;
}

const uid = (): string => randomUUID();

/** A workflow with fresh id and name, plus tasks of it. */
function execution(over: Partial<WorkflowRecord> = {}) {
  const workflow = makeWorkflowRecord({ workflowId: uid(), workflowName: `wf_${uid().slice(0, 8)}`, ...over });
  const task = (seq: number, t: Partial<Task> = {}): Task =>
    makeTask({
      taskId: uid(),
      seq,
      referenceTaskName: `t${seq}`,
      workflowInstanceId: workflow.workflowId,
      workflowType: workflow.workflowName,
      ...t,
    });
  return { workflow, task };
}

const enqueue = (task: Task): Effect => ({
  kind: 'enqueue',
  taskId: task.taskId,
  workflowId: task.workflowInstanceId,
  queue: { taskType: task.taskType },
  priority: 0,
  visibleAt: T0,
});

async function collect(it: AsyncIterable<string>): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const id of it) out.add(id);
  return out;
}

const big = (bytes: number): string => 'x'.repeat(bytes);

export function describeExecutionStoreContract(name: string, make: () => Promise<ExecutionStoreUnderTest>): void {
  describe(`ExecutionStore contract: ${name}`, () => {
    let store: ExecutionStore;
    let cleanup: () => Promise<void>;

    beforeAll(async () => {
      ({ store, cleanup } = await make());
    });
    afterAll(async () => {
      await cleanup?.();
    });

    describe('commit and load', () => {
      it('round-trips the workflow, its tasks in seq order and the outbox, at rev 1', async () => {
        const { workflow, task } = execution({ input: { order: 7, nested: { list: [1, 'two', null] } }, correlationId: 'c-1' });
        const t2 = task(2);
        const t1 = task(1, { inputData: { q: 'é€😀' } });
        const outbox = [enqueue(t1), { kind: 'index', workflowId: workflow.workflowId, taskIds: [t1.taskId] } as Effect];
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t2, t1], outbox }));

        const loaded = await store.load(workflow.workflowId);
        expect(loaded).toEqual({ workflow, tasks: [t1, t2], outbox, rev: 1 });
      });

      it('returns undefined for an unknown execution', async () => {
        expect(await store.load(uid())).toBeUndefined();
      });

      it('increments rev on every commit, updates changed tasks and keeps unchanged ones', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        const t2 = task(2);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1, t2], outbox: [enqueue(t1)] }));
        const t1done = { ...t1, status: 'COMPLETED' as const, outputData: { ok: true }, endTime: T0 + 5 };
        const t3 = task(3);
        const wf2 = { ...workflow, updateTime: T0 + 5, variables: { x: 1 } };
        await store.commit(makeCommit(wf2, 1, { upsertTasks: [t1done, t3], outbox: [enqueue(t3)] }));

        const loaded = await store.load(workflow.workflowId);
        expect(loaded?.rev).toBe(2);
        expect(loaded?.workflow).toEqual(wf2);
        expect(loaded?.tasks).toEqual([t1done, t2, t3]);
        expect(loaded?.outbox).toEqual([enqueue(t3)]);
      });

      it('replaces the outbox with each commit, and an empty outbox clears it', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1], outbox: [enqueue(t1)] }));
        await store.commit(makeCommit(workflow, 1));
        expect((await store.load(workflow.workflowId))?.outbox).toEqual([]);
      });
    });

    describe('rev fencing', () => {
      it('refuses the second of two commits made from the same rev, and none of it is visible', async () => {
        const { workflow, task } = execution({ correlationId: `corr-${uid()}` });
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1], outbox: [enqueue(t1)] }));

        const winner = { ...workflow, variables: { who: 'first' } };
        const t2 = task(2);
        await store.commit(makeCommit(winner, 1, { upsertTasks: [t2], outbox: [enqueue(t2)] }));

        const loserTask = task(3, { referenceTaskName: 'loser' });
        const loser = { ...workflow, status: 'TERMINATED' as WorkflowStatus, variables: { who: 'second' } };
        const attempt = store.commit(makeCommit(loser, 1, { upsertTasks: [loserTask, { ...t1, status: 'CANCELED' }], deleteTaskIds: [t2.taskId], outbox: [] }));
        await expect(attempt).rejects.toBeInstanceOf(StaleWriteError);
        await expect(attempt).rejects.toMatchObject({ workflowId: workflow.workflowId, expectedRev: 1 });

        const loaded = await store.load(workflow.workflowId);
        expect(loaded?.rev).toBe(2);
        expect(loaded?.workflow).toEqual(winner);
        expect(loaded?.tasks).toEqual([t1, t2]);
        expect(loaded?.outbox).toEqual([enqueue(t2)]);
        expect(await store.getTask(loserTask.taskId)).toBeUndefined();
        expect(await store.workflowIdOfTask(loserTask.taskId)).toBeUndefined();
        expect(await store.getTask(t2.taskId)).toEqual(t2);
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
        expect(await store.workflowIdsByCorrelationId(workflow.workflowName, workflow.correlationId!, false)).toEqual([workflow.workflowId]);
      });

      it('refuses a second new execution with the same id (expectedRev 0 twice)', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1] }));
        const other = task(1, { referenceTaskName: 'other' });
        await expect(store.commit(makeCommit({ ...workflow, input: { second: true } }, 0, { upsertTasks: [other] }))).rejects.toBeInstanceOf(StaleWriteError);
        const loaded = await store.load(workflow.workflowId);
        expect(loaded).toEqual({ workflow, tasks: [t1], outbox: [], rev: 1 });
        expect(await store.getTask(other.taskId)).toBeUndefined();
      });

      it('refuses a commit at a rev ahead of the stored one, and one for an execution that does not exist', async () => {
        const { workflow } = execution();
        await store.commit(makeCommit(workflow, 0));
        await expect(store.commit(makeCommit(workflow, 5))).rejects.toBeInstanceOf(StaleWriteError);
        const missing = execution().workflow;
        await expect(store.commit(makeCommit(missing, 1))).rejects.toBeInstanceOf(StaleWriteError);
        expect(await store.load(missing.workflowId)).toBeUndefined();
        expect((await store.load(workflow.workflowId))?.rev).toBe(1);
      });

      it('revOf answers the stored rev after every commit (the fence an activation checks before an in-process turn); undefined once removed or never stored', async () => {
        const { workflow, task } = execution();
        expect(await store.revOf(workflow.workflowId)).toBeUndefined();
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [task(1)] }));
        expect(await store.revOf(workflow.workflowId)).toBe(1);
        await store.commit(makeCommit(workflow, 1));
        expect(await store.revOf(workflow.workflowId)).toBe(2);
        await store.remove(workflow.workflowId);
        expect(await store.revOf(workflow.workflowId)).toBeUndefined();
      });
    });

    describe('tasks', () => {
      it('finds a task and its workflow by task id', async () => {
        const { workflow, task } = execution();
        const t1 = task(1, { outputData: { n: 1 } });
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1] }));
        expect(await store.getTask(t1.taskId)).toEqual(t1);
        expect(await store.workflowIdOfTask(t1.taskId)).toBe(workflow.workflowId);
        expect(await store.getTask(uid())).toBeUndefined();
        expect(await store.workflowIdOfTask(uid())).toBeUndefined();
      });

      it('deletes tasks named in deleteTaskIds (restart, rerun) and keeps the rest', async () => {
        const { workflow, task } = execution();
        const [t1, t2, t3] = [task(1), task(2), task(3)];
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1, t2, t3] }));
        const t4 = task(4);
        await store.commit(makeCommit(workflow, 1, { upsertTasks: [t4], deleteTaskIds: [t2.taskId, t3.taskId] }));

        expect((await store.load(workflow.workflowId))?.tasks).toEqual([t1, t4]);
        expect(await store.getTask(t2.taskId)).toBeUndefined();
        expect(await store.workflowIdOfTask(t3.taskId)).toBeUndefined();
        expect(await store.getTask(t4.taskId)).toEqual(t4);
      });

      it('keeps a task that is both deleted and upserted in one turn (upsert wins)', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1] }));
        const reset = { ...t1, status: 'SCHEDULED' as const, pollCount: 0, outputData: {} };
        await store.commit(makeCommit(workflow, 1, { upsertTasks: [reset], deleteTaskIds: [t1.taskId] }));
        expect(await store.getTask(t1.taskId)).toEqual(reset);
      });
    });

    describe('running executions by name', () => {
      it('lists RUNNING and PAUSED executions by name, and by version', async () => {
        const name = `wf_${uid().slice(0, 8)}`;
        const v1 = execution({ workflowName: name, workflowVersion: 1 }).workflow;
        const v2 = execution({ workflowName: name, workflowVersion: 2, status: 'PAUSED' }).workflow;
        const v2late = execution({ workflowName: name, workflowVersion: 2, createTime: T0 + 3 * 86_400_000 }).workflow;
        const done = execution({ workflowName: name, workflowVersion: 1, status: 'COMPLETED' }).workflow;
        for (const w of [v1, v2, v2late, done]) await store.commit(makeCommit(w, 0));

        expect((await store.runningWorkflowIds(name)).sort()).toEqual([v1.workflowId, v2.workflowId, v2late.workflowId].sort());
        expect(await store.runningWorkflowIds(name, 1)).toEqual([v1.workflowId]);
        expect((await store.runningWorkflowIds(name, 2)).sort()).toEqual([v2.workflowId, v2late.workflowId].sort());
        expect(await store.runningWorkflowIds(name, 3)).toEqual([]);
        expect(await store.runningWorkflowIds(`nope_${uid()}`)).toEqual([]);
      });

      it('drops an execution when it becomes terminal, and lists it again when it is retried', async () => {
        const { workflow } = execution();
        await store.commit(makeCommit(workflow, 0));
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
        await store.commit(makeCommit({ ...workflow, status: 'FAILED', endTime: T0 + 10 }, 1));
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([]);
        expect(await store.runningWorkflowIds(workflow.workflowName, workflow.workflowVersion)).toEqual([]);
        await store.commit(makeCommit({ ...workflow, status: 'RUNNING', lastRetriedTime: T0 + 20 }, 2));
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
      });

      it('follows a restart that moves the execution to a new createTime and definition version', async () => {
        const { workflow } = execution();
        await store.commit(makeCommit(workflow, 0));
        await store.commit(makeCommit({ ...workflow, status: 'TERMINATED', endTime: T0 + 1 }, 1));
        const restarted = { ...workflow, createTime: T0 + 40 * 86_400_000, startTime: T0 + 40 * 86_400_000, workflowVersion: 2 };
        await store.commit(makeCommit(restarted, 2));
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
        expect(await store.runningWorkflowIds(workflow.workflowName, 1)).toEqual([]);
        expect(await store.runningWorkflowIds(workflow.workflowName, 2)).toEqual([workflow.workflowId]);
      });
    });

    describe('correlation id', () => {
      it('finds executions of a name by correlation id, closed ones only with includeClosed', async () => {
        const name = `wf_${uid().slice(0, 8)}`;
        const corr = `order-${uid()}`;
        const open = execution({ workflowName: name, correlationId: corr }).workflow;
        const closed = execution({ workflowName: name, correlationId: corr, status: 'COMPLETED' }).workflow;
        const otherName = execution({ correlationId: corr }).workflow;
        const otherCorr = execution({ workflowName: name, correlationId: `x-${uid()}` }).workflow;
        for (const w of [open, closed, otherName, otherCorr]) await store.commit(makeCommit(w, 0));

        expect(await store.workflowIdsByCorrelationId(name, corr, false)).toEqual([open.workflowId]);
        expect((await store.workflowIdsByCorrelationId(name, corr, true)).sort()).toEqual([open.workflowId, closed.workflowId].sort());
        expect(await store.workflowIdsByCorrelationId(name, `none-${uid()}`, true)).toEqual([]);

        await store.commit(makeCommit({ ...open, status: 'TERMINATED' }, 1));
        expect(await store.workflowIdsByCorrelationId(name, corr, false)).toEqual([]);
        expect((await store.workflowIdsByCorrelationId(name, corr, true)).sort()).toEqual([open.workflowId, closed.workflowId].sort());
      });
    });

    describe('recovery', () => {
      it('lists non-terminal executions and terminal ones that still owe effects', async () => {
        const { workflow: running } = execution();
        const { workflow: paused } = execution({ status: 'PAUSED' });
        const owing = execution({ status: 'COMPLETED' });
        const t = owing.task(1);
        const { workflow: settled } = execution({ status: 'COMPLETED' });
        await store.commit(makeCommit(running, 0));
        await store.commit(makeCommit(paused, 0));
        await store.commit(makeCommit(owing.workflow, 0, { upsertTasks: [t], outbox: [enqueue(t)] }));
        await store.commit(makeCommit(settled, 0));

        const ids = await collect(store.idsNeedingRecovery());
        expect(ids.has(running.workflowId)).toBe(true);
        expect(ids.has(paused.workflowId)).toBe(true);
        expect(ids.has(owing.workflow.workflowId)).toBe(true);
        expect(ids.has(settled.workflowId)).toBe(false);
      });

      it('stops listing an execution once it is terminal with an empty outbox', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1], outbox: [enqueue(t1)] }));
        await store.commit(makeCommit({ ...workflow, status: 'COMPLETED' }, 1, { outbox: [{ kind: 'index', workflowId: workflow.workflowId, taskIds: [] }] }));
        expect((await collect(store.idsNeedingRecovery())).has(workflow.workflowId)).toBe(true);
        await store.commit(makeCommit({ ...workflow, status: 'COMPLETED' }, 2, { outbox: [] }));
        expect((await collect(store.idsNeedingRecovery())).has(workflow.workflowId)).toBe(false);
      });
    });

    describe('listWorkflowIds', () => {
      it('lists open and closed executions, and no removed one', async () => {
        const open = execution().workflow;
        const closed = { ...execution().workflow, status: 'COMPLETED' as WorkflowStatus };
        const removed = execution().workflow;
        for (const w of [open, closed, removed]) await store.commit(makeCommit(w, 0));
        await store.remove(removed.workflowId);
        const ids = await collect(store.listWorkflowIds());
        expect(ids.has(open.workflowId)).toBe(true);
        expect(ids.has(closed.workflowId)).toBe(true);
        expect(ids.has(removed.workflowId)).toBe(false);
      });
    });

    describe('remove', () => {
      it('deletes the execution, its tasks, their lookups and its index entries', async () => {
        const { workflow, task } = execution({ correlationId: `corr-${uid()}` });
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1], outbox: [enqueue(t1)] }));
        await store.remove(workflow.workflowId);

        expect(await store.load(workflow.workflowId)).toBeUndefined();
        expect(await store.getTask(t1.taskId)).toBeUndefined();
        expect(await store.workflowIdOfTask(t1.taskId)).toBeUndefined();
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([]);
        expect(await store.workflowIdsByCorrelationId(workflow.workflowName, workflow.correlationId!, true)).toEqual([]);
        expect((await collect(store.idsNeedingRecovery())).has(workflow.workflowId)).toBe(false);
      });

      it('is a no-op for an unknown id, and the id can be used again afterwards (expectedRev 0)', async () => {
        await expect(store.remove(uid())).resolves.toBeUndefined();
        const { workflow, task } = execution();
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [task(1)] }));
        await store.remove(workflow.workflowId);
        const again = { ...workflow, input: { again: true } };
        await store.commit(makeCommit(again, 0));
        expect(await store.load(workflow.workflowId)).toEqual({ workflow: again, tasks: [], outbox: [], rev: 1 });
      });
    });

    describe('task logs', () => {
      it('returns a task’s logs in order of creation, across appends, and none for an unknown task', async () => {
        const taskId = uid();
        const other = uid();
        await store.appendTaskLogs([
          { taskId, log: 'first', createdTime: T0 + 1 },
          { taskId, log: 'second', createdTime: T0 + 1 },
          { taskId: other, log: 'elsewhere', createdTime: T0 },
        ]);
        await store.appendTaskLogs([{ taskId, log: 'third', createdTime: T0 + 2 }]);

        expect(await store.taskLogs(taskId)).toEqual([
          { taskId, log: 'first', createdTime: T0 + 1 },
          { taskId, log: 'second', createdTime: T0 + 1 },
          { taskId, log: 'third', createdTime: T0 + 2 },
        ]);
        expect(await store.taskLogs(uid())).toEqual([]);
      });

      it('keeps at most the limit of lines per task, the first ones: appends past it store nothing and say how many were stored', async () => {
        const { lines } = store.taskLogLimits;
        const taskId = uid();
        const other = uid();
        const line = (i: number) => ({ taskId, log: `line ${i}`, createdTime: T0 + i });
        // Appends of at most 50 lines, as workers make them (an update carries at most 10).
        for (let from = 0; from < lines - 2; from += 50) {
          const chunk = Array.from({ length: Math.min(50, lines - 2 - from) }, (_, k) => line(from + k));
          expect(await store.appendTaskLogs(chunk)).toBe(chunk.length);
        }
        expect(await store.appendTaskLogs([line(lines - 2), line(lines - 1), line(lines), { taskId: other, log: 'elsewhere', createdTime: T0 }])).toBe(3);
        expect(await store.appendTaskLogs([line(lines + 1)])).toBe(0);
        const kept = await store.taskLogs(taskId);
        expect(kept).toHaveLength(lines);
        expect(kept[0]).toEqual({ taskId, log: 'line 0', createdTime: T0 });
        expect(kept[lines - 1]).toEqual({ taskId, log: `line ${lines - 1}`, createdTime: T0 + lines - 1 });
        expect(await store.taskLogs(other)).toEqual([{ taskId: other, log: 'elsewhere', createdTime: T0 }]);
      });

      it('cuts a line over the longest kept on a character boundary, marking the cut', async () => {
        const { lineBytes } = store.taskLogLimits;
        const taskId = uid();
        expect(
          await store.appendTaskLogs([
            { taskId, log: '€'.repeat(lineBytes), createdTime: T0 },
            { taskId, log: 'x'.repeat(lineBytes), createdTime: T0 + 1 },
          ]),
        ).toBe(2);
        const [cut, whole] = await store.taskLogs(taskId);
        expect(Buffer.byteLength(cut!.log, 'utf8')).toBeLessThanOrEqual(lineBytes);
        expect(cut!.log).toMatch(/^€+ …\[cut: BATON_TASK_LOG_MAX_LINE_BYTES\]$/);
        expect(whole!.log).toBe('x'.repeat(lineBytes));
      });
    });

    describe('payload limits', () => {
      it('refuses a task output over 3 MB, naming the field and size, and writes nothing', async () => {
        const { workflow, task } = execution();
        const huge = task(1, { outputData: { blob: big(3 * 1024 * 1024) } });
        const attempt = store.commit(makeCommit(workflow, 0, { upsertTasks: [huge] }));
        await expect(attempt).rejects.toBeInstanceOf(PayloadTooLargeError);
        await expect(attempt).rejects.toThrow(/outputData.*\d+ bytes/);
        expect(await store.load(workflow.workflowId)).toBeUndefined();
        expect(await store.getTask(huge.taskId)).toBeUndefined();
        expect(await store.workflowIdOfTask(huge.taskId)).toBeUndefined();
        expect((await collect(store.idsNeedingRecovery())).has(workflow.workflowId)).toBe(false);
      });

      it('refuses a workflow input over 10 MB on an existing execution and leaves it as it was', async () => {
        const { workflow, task } = execution();
        const t1 = task(1);
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1] }));
        const attempt = store.commit(makeCommit({ ...workflow, status: 'COMPLETED', input: { blob: big(10 * 1024 * 1024) } }, 1, { upsertTasks: [task(2)] }));
        await expect(attempt).rejects.toBeInstanceOf(PayloadTooLargeError);
        await expect(attempt).rejects.toThrow(/input.*\d+ bytes/);
        expect(await store.load(workflow.workflowId)).toEqual({ workflow, tasks: [t1], outbox: [], rev: 1 });
        expect(await store.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
      });

      it('accepts payloads just under the limits', async () => {
        const { workflow, task } = execution({ output: { blob: big(1024 * 1024) } });
        const t1 = task(1, { inputData: { blob: big(2 * 1024 * 1024) } });
        await store.commit(makeCommit(workflow, 0, { upsertTasks: [t1] }));
        expect(await store.getTask(t1.taskId)).toEqual(t1);
      });
    });
  });
}
