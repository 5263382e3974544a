import { ConductorWorkflow, Consistency, ReturnStrategy, simpleTask, workflow, type WorkflowDef } from '@io-orkes/conductor-javascript';
import { call, eventually } from '../support/baton';
import { startSdkHarness, uniqueName, waitForTask, waitForWorkflow, type SdkHarness } from '../support/sdk';

// Execution with a return strategy, idempotent starts, variables and state, through the official JS SDK's
// WorkflowExecutor (4.0.0), which sends execute's query parameters and reads SignalResponse shapes.

let h: SdkHarness;

beforeAll(async () => {
  h = await startSdkHarness();
});
afterAll(async () => {
  await h?.stop();
});

const waitTask = (ref: string, input: Record<string, unknown> = {}) => ({ name: ref, taskReferenceName: ref, type: 'WAIT' as never, inputParameters: input });

/** A parent that runs a child (SUB_WORKFLOW) whose first task is a WAIT: the blocking workflow is the child. */
async function parentWithWaitingChild(): Promise<string> {
  const child = uniqueName('sdk_exec_child');
  const parent = uniqueName('sdk_exec_parent');
  await h.executor.registerWorkflow(true, workflow(child, [waitTask('child_wait', { asked: '${workflow.input.q}' })]));
  const def: WorkflowDef = workflow(parent, [
    {
      name: 'call_child',
      taskReferenceName: 'call_child',
      type: 'SUB_WORKFLOW' as never,
      inputParameters: { q: '${workflow.input.q}' },
      subWorkflowParam: { name: child, version: 1 },
    },
  ]);
  await h.executor.registerWorkflow(true, def);
  return parent;
}

describe('WorkflowExecutor.executeWorkflow with each return strategy', () => {
  let parent: string;
  beforeAll(async () => {
    parent = await parentWithWaitingChild();
  });
  const execute = (strategy: ReturnStrategy, consistency: Consistency = Consistency.DURABLE) =>
    h.executor.executeWorkflow({ name: parent, version: 1, input: { q: 'why' } }, parent, 1, uniqueName('req'), '', 10, consistency, strategy);

  test('TARGET_WORKFLOW answers the started (parent) execution, still running', async () => {
    const r = await execute(ReturnStrategy.TARGET_WORKFLOW);
    expect(r.isTargetWorkflow()).toBe(true);
    expect(r.getWorkflow()).toMatchObject({ status: 'RUNNING', input: { q: 'why' } });
    expect(r.getWorkflowId()).toBe(r.targetWorkflowId);
    expect((await h.executor.getWorkflow(r.targetWorkflowId!, false)).workflowName).toBe(parent);
  });

  test('BLOCKING_WORKFLOW answers the child that holds the waiting task', async () => {
    const r = await execute(ReturnStrategy.BLOCKING_WORKFLOW, Consistency.SYNCHRONOUS);
    expect(r.isBlockingWorkflow()).toBe(true);
    const blocking = r.getWorkflow();
    expect(blocking.workflowId).not.toBe(r.targetWorkflowId);
    expect((blocking.tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([['child_wait', 'IN_PROGRESS']]);
    expect((await h.executor.getWorkflow(blocking.workflowId!, false)).parentWorkflowId).toBe(r.targetWorkflowId);
  });

  test('BLOCKING_TASK answers the waiting task, with its input and output', async () => {
    const r = await execute(ReturnStrategy.BLOCKING_TASK, Consistency.REGION_DURABLE);
    expect(r.isBlockingTask()).toBe(true);
    expect(r.getBlockingTask()).toMatchObject({ taskType: 'WAIT', referenceTaskName: 'child_wait', status: 'IN_PROGRESS', inputData: { asked: 'why' } });
  });

  test('BLOCKING_TASK_INPUT answers the waiting task without its output', async () => {
    const r = await execute(ReturnStrategy.BLOCKING_TASK_INPUT);
    expect(r.isBlockingTaskInput()).toBe(true);
    expect(r.getTaskInput()).toEqual({ asked: 'why' });
    expect(r.output).toBeUndefined();
  });

  test('waitUntilTaskRef answers once that task ended, while the workflow goes on', async () => {
    const name = uniqueName('sdk_exec_until');
    const worker = uniqueName('sdk_exec_until_task');
    await h.executor.registerWorkflow(true, workflow(name, [simpleTask('a', worker, {}), simpleTask('b', worker, {})]));
    const running = h.executor.executeWorkflow(
      { name, version: 1, input: {} },
      name,
      1,
      uniqueName('req'),
      'a',
      20,
      Consistency.DURABLE,
      ReturnStrategy.TARGET_WORKFLOW,
    );
    const id = await eventually(async () => (await call<string[]>(h.baton.url, 'GET', `/api/workflow/running/${name}`)).body[0]);
    await waitForTask(h.executor, id, 'a', ['SCHEDULED']);
    await h.tasks.updateTaskResult(id, 'a', 'COMPLETED', { done: 1 });
    const r = await running;
    expect(r.getWorkflow()).toMatchObject({ status: 'RUNNING' });
    expect((r.getWorkflow().tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['a', 'COMPLETED'],
      ['b', 'SCHEDULED'],
    ]);
  });

  test('an unknown consistency or return strategy is a 400', async () => {
    const base = `/api/workflow/execute/${parent}/1?requestId=x`;
    expect((await call(h.baton.url, 'POST', `${base}&consistency=EVENTUAL`, {})).status).toBe(400);
    expect((await call(h.baton.url, 'POST', `${base}&returnStrategy=NONE`, {})).status).toBe(400);
  });
});

describe('idempotent starts through the SDK', () => {
  test('ConductorWorkflow.startWorkflow with RETURN_EXISTING answers the same execution; FAIL rejects', async () => {
    const name = uniqueName('sdk_idem');
    const wf = new ConductorWorkflow(h.executor, name).add(waitTask('w'));
    await wf.register(true);
    const first = await wf.startWorkflow({}, undefined, undefined, 'order-9', 'RETURN_EXISTING');
    expect(await wf.startWorkflow({}, undefined, undefined, 'order-9', 'RETURN_EXISTING')).toBe(first);
    await expect(wf.startWorkflow({}, undefined, undefined, 'order-9', 'FAIL')).rejects.toThrow(/idempotency key order-9 already exists/);
    expect((await h.executor.getWorkflow(first, false)).status).toBe('RUNNING');
  });

  test('executeWorkflow with a key: the retried execute answers the first execution', async () => {
    const name = uniqueName('sdk_idem_exec');
    await h.executor.registerWorkflow(true, workflow(name, [waitTask('w')]));
    const request = { name, version: 1, input: {}, idempotencyKey: 'e-1', idempotencyStrategy: 'RETURN_EXISTING' as const };
    const first = await h.executor.executeWorkflow(request, name, 1, uniqueName('req'), '', 5, Consistency.DURABLE, ReturnStrategy.TARGET_WORKFLOW);
    const again = await h.executor.executeWorkflow(request, name, 1, uniqueName('req'), '', 5, Consistency.DURABLE, ReturnStrategy.BLOCKING_TASK);
    expect(again.getBlockingTask().workflowInstanceId).toBe(first.targetWorkflowId);
    expect(again.targetWorkflowId).toBe(first.targetWorkflowId);
  });
});

describe('variables and state', () => {
  test('updateVariables replaces the named variables of a running execution and answers it', async () => {
    const name = uniqueName('sdk_vars');
    await h.executor.registerWorkflow(true, { ...workflow(name, [waitTask('w')]), variables: { keep: 1, change: 'old' } } as WorkflowDef);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const wf = await h.executor.updateVariables(id, { change: 'new', added: [1, 2] });
    expect(wf).toMatchObject({ workflowId: id, status: 'RUNNING', variables: { keep: 1, change: 'new', added: [1, 2] } });
    expect((await h.executor.getWorkflow(id, false)).variables).toEqual({ keep: 1, change: 'new', added: [1, 2] });
    await h.executor.terminate(id, 'done');
    await expect(h.executor.updateVariables(id, { late: true })).rejects.toThrow();
  });

  test('updateState sets variables and completes a task by reference in one call, answering once the next task waits', async () => {
    const name = uniqueName('sdk_state');
    await h.executor.registerWorkflow(true, {
      ...workflow(name, [waitTask('first'), waitTask('second', { seen: '${workflow.variables.note}', prev: '${first.output.ok}' })]),
      variables: {},
    } as WorkflowDef);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    await waitForTask(h.executor, id, 'first', ['IN_PROGRESS']);
    const run = await h.executor.updateState(
      id,
      { taskReferenceName: 'first', taskResult: { status: 'COMPLETED', outputData: { ok: true } } as never, variables: { note: 'hi' } },
      uniqueName('req'),
      undefined,
      10,
    );
    expect(run).toMatchObject({ workflowId: id, status: 'RUNNING', variables: { note: 'hi' } });
    expect(run.tasks?.map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['first', 'COMPLETED'],
      ['second', 'IN_PROGRESS'],
    ]);
    expect(run.tasks?.[1]?.inputData).toEqual({ seen: 'hi', prev: true });
  });

  test('getByCorrelationIds answers the executions of the named definitions for each correlation id', async () => {
    const [a, b] = [uniqueName('sdk_corr_a'), uniqueName('sdk_corr_b')];
    for (const n of [a, b]) await h.executor.registerWorkflow(true, workflow(n, [waitTask('w')]));
    const ida = await h.executor.startWorkflow({ name: a, version: 1, input: {}, correlationId: 'c1' });
    const idb = await h.executor.startWorkflow({ name: b, version: 1, input: {}, correlationId: 'c1' });
    const closed = await h.executor.startWorkflow({ name: a, version: 1, input: {}, correlationId: 'c2' });
    await h.executor.terminate(closed, 'done');
    await waitForWorkflow(h.executor, closed, 'TERMINATED');

    const open = await h.executor.getByCorrelationIds({ workflowNames: [a, b], correlationIds: ['c1', 'c2', 'none'] });
    expect(Object.keys(open).sort()).toEqual(['c1', 'c2', 'none']);
    expect(open.c1!.map((w) => w.workflowId).sort()).toEqual([ida, idb].sort());
    expect(open.c2).toEqual([]);
    const all = await h.executor.getByCorrelationIds({ workflowNames: [a], correlationIds: ['c2'] }, true, true);
    expect(all.c2!.map((w) => [w.workflowId, w.status, w.tasks?.length])).toEqual([[closed, 'TERMINATED', 1]]);
  });
});
