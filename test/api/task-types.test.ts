import {
  ConductorWorkflow,
  conductorEventTask,
  doWhileTask,
  dynamicForkTask,
  dynamicTask,
  forkTaskJoin,
  httpTask,
  humanTask,
  inlineTask,
  joinTask,
  jsonJqTask,
  newLoopTask,
  setVariableTask,
  simpleTask,
  startWorkflowTask,
  subWorkflowTask,
  switchTask,
  taskDefinition,
  terminateTask,
  waitTaskDuration,
  waitTaskUntil,
  type Task,
  type Workflow,
  type WorkflowTask,
} from '@io-orkes/conductor-javascript';
import { taskOf, taskRows } from '../support/api-client';
import { call, eventually } from '../support/baton';
import { startSdkHarness, uniqueName, waitForTask, waitForWorkflow, type SdkHarness } from '../support/sdk';
import { pollBatch, pollOnce, pollUntilTask, startHttpTarget, type HttpTarget, type PolledTask } from '../support/task-types';

// Every Conductor task type through the real API: each workflow is
// built with the official JS SDK's builders where the SDK has one, registered with the SDK, run on an
// embedded Baton, and driven by SDK workers (TaskManager) or direct polls.

let h: SdkHarness;
let target: HttpTarget;

beforeAll(async () => {
  h = await startSdkHarness();
  target = await startHttpTarget();
});

afterAll(async () => {
  await target?.stop();
  await h?.stop();
});

/** A ConductorWorkflow bound to the harness's executor. */
const flow = (name: string) => new ConductorWorkflow(h.executor, name);
const get = (id: string): Promise<Workflow> => h.executor.getWorkflow(id, true);
const complete = (t: PolledTask, output: Record<string, unknown> = {}) => h.executor.updateTask(t.taskId, t.workflowInstanceId, 'COMPLETED', output);
const fail = (t: PolledTask, reason: string) =>
  call(h.baton.url, 'POST', '/api/tasks', { workflowInstanceId: t.workflowInstanceId, taskId: t.taskId, status: 'FAILED', reasonForIncompletion: reason });
const api = <T = any>(method: string, path: string, body?: unknown) => call<T>(h.baton.url, method, path, body);

/** The builder's task with extra input parameters (the builders set only their own inputs). */
function withInputs<T extends { inputParameters?: Record<string, unknown> }>(task: T, extra: Record<string, unknown>): T {
  return { ...task, inputParameters: { ...task.inputParameters, ...extra } };
}

/** Registers a worker task definition without retries (so one failure fails the workflow). */
async function workerTask(prefix: string, extra: Record<string, unknown> = {}): Promise<string> {
  const name = uniqueName(prefix);
  await h.metadata.registerTask({ ...taskDefinition({ name, retryCount: 0, timeoutSeconds: 0, responseTimeoutSeconds: 30 }), ...extra });
  return name;
}

describe('SWITCH', () => {
  test('value-param (switchTask builder): the matching case runs, an unknown value takes the default case', async () => {
    const worker = await workerTask('tt_sw_a');
    const name = uniqueName('tt_switch_vp');
    await flow(name)
      .add(
        switchTask('route', '${workflow.input.kind}', { a: [simpleTask('on_a', worker, {})], b: [inlineTask('on_b', '"took b"')] }, [
          inlineTask('on_default', '"took default"'),
        ]),
      )
      .outputParameters({ b: '${on_b.output.result}', d: '${on_default.output.result}' })
      .register(true);
    const def = await h.metadata.getWorkflowDef(name);
    expect(def.tasks[0]).toMatchObject({ type: 'SWITCH', evaluatorType: 'value-param', expression: 'switchCaseValue' });

    const a = await h.executor.startWorkflow({ name, version: 1, input: { kind: 'a' } });
    const atA = await waitForTask(h.executor, a, 'on_a', ['SCHEDULED']);
    expect(atA.taskType).toBe(worker);
    expect(taskRows(await get(a))).toEqual([
      ['route', 'SWITCH', 'COMPLETED'],
      ['on_a', worker, 'SCHEDULED'],
    ]);
    expect(taskOf(await get(a), 'route').outputData).toMatchObject({ evaluationResult: ['a'] });

    const b = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { kind: 'b' } }), 'COMPLETED');
    expect(taskRows(b).map((r) => r[0])).toEqual(['route', 'on_b']);
    expect(b.output).toMatchObject({ b: 'took b' });

    const other = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { kind: 'zzz' } }), 'COMPLETED');
    expect(taskRows(other).map((r) => r[0])).toEqual(['route', 'on_default']);
    expect(taskOf(other, 'route').outputData).toMatchObject({ evaluationResult: ['zzz'] });
    expect(other.output).toMatchObject({ d: 'took default' });

    // A null value is the case "null" (Conductor stringifies the result).
    const none = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'COMPLETED');
    expect(taskOf(none, 'route').outputData).toMatchObject({ evaluationResult: ['null'] });
    await h.executor.terminate(a, 'done with it');
  });

  // switchTask only builds value-param switches: the javascript/graaljs forms override evaluatorType and expression.
  test.each(['javascript', 'graaljs'])('%s evaluator picks the case from an expression over the input', async (evaluatorType) => {
    const name = uniqueName(`tt_switch_${evaluatorType}`);
    const sw: WorkflowTask = {
      ...switchTask('size', '${workflow.input.n}', { big: [inlineTask('big', '"BIG"')], small: [inlineTask('small', '"small"')] }),
      evaluatorType,
      expression: "$.switchCaseValue > 10 ? 'big' : 'small'",
    };
    await flow(name).add(sw).outputParameters({ big: '${big.output.result}', small: '${small.output.result}' }).register(true);
    const big = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { n: 42 } }), 'COMPLETED');
    expect(taskOf(big, 'size').outputData).toMatchObject({ evaluationResult: ['big'] });
    expect(big.output).toMatchObject({ big: 'BIG' });
    const small = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { n: 3 } }), 'COMPLETED');
    expect(taskRows(small)).toEqual([
      ['size', 'SWITCH', 'COMPLETED'],
      ['small', 'INLINE', 'COMPLETED'],
    ]);
  });

  test('an expression that throws fails the SWITCH and the workflow', async () => {
    const name = uniqueName('tt_switch_err');
    await flow(name)
      .add({ ...switchTask('bad', '${workflow.input.x}', { a: [inlineTask('never', '1')] }), evaluatorType: 'javascript', expression: '$.no.such.path' })
      .register(true);
    const wf = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'FAILED');
    expect(taskRows(wf)).toEqual([['bad', 'SWITCH', 'FAILED']]);
  });
});

describe('DECISION (legacy; the SDK has no builder, so raw WorkflowTask JSON)', () => {
  test('caseValueParam and caseExpression select decisionCases, else defaultCase; output caseOutput', async () => {
    const name = uniqueName('tt_decision');
    const byParam: WorkflowTask = {
      name: 'by_param',
      taskReferenceName: 'by_param',
      type: 'DECISION',
      caseValueParam: 'kind',
      inputParameters: { kind: '${workflow.input.kind}' },
      decisionCases: { x: [inlineTask('got_x', '"x"')] },
      defaultCase: [inlineTask('got_other', '"other"')],
    };
    const byExpr: WorkflowTask = {
      name: 'by_expr',
      taskReferenceName: 'by_expr',
      type: 'DECISION',
      caseExpression: "$.n > 1 ? 'many' : 'one'",
      inputParameters: { n: '${workflow.input.n}' },
      decisionCases: { many: [inlineTask('got_many', '"many"')], one: [inlineTask('got_one', '"one"')] },
    };
    await flow(name).add(byParam).add(byExpr).register(true);
    const wf = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { kind: 'x', n: 5 } }), 'COMPLETED');
    expect(taskRows(wf)).toEqual([
      ['by_param', 'DECISION', 'COMPLETED'],
      ['got_x', 'INLINE', 'COMPLETED'],
      ['by_expr', 'DECISION', 'COMPLETED'],
      ['got_many', 'INLINE', 'COMPLETED'],
    ]);
    expect(taskOf(wf, 'by_param').outputData).toEqual({ caseOutput: ['x'] });
    expect(taskOf(wf, 'by_expr').outputData).toEqual({ caseOutput: ['many'] });

    const other = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { kind: 'y', n: 1 } }), 'COMPLETED');
    expect(taskRows(other).map((r) => r[0])).toEqual(['by_param', 'got_other', 'by_expr', 'got_one']);
  });
});

describe('FORK_JOIN and JOIN', () => {
  test('ConductorWorkflow.fork: runtime type FORK, branch heads and the JOIN at once; JOIN output per joinOn ref (TaskManager workers)', async () => {
    const upper = await workerTask('tt_fork_upper');
    const name = uniqueName('tt_fork');
    const wf = flow(name)
      .fork([[simpleTask('a1', upper, { text: 'a1' }), simpleTask('a2', upper, { text: '${a1.output.text}-a2' })], [simpleTask('b1', upper, { text: 'b1' })]])
      .add(inlineTask('after', '"after join"'));
    await wf.register(true);
    const id = await wf.startWorkflow({});
    // As in Conductor: fork COMPLETED, both branch heads SCHEDULED, the JOIN IN_PROGRESS, before any worker runs.
    expect(taskRows(await get(id))).toEqual([
      ['__fork_1', 'FORK', 'COMPLETED'],
      ['a1', upper, 'SCHEDULED'],
      ['b1', upper, 'SCHEDULED'],
      ['__join_1', 'JOIN', 'IN_PROGRESS'],
    ]);
    expect(taskOf(await get(id), '__join_1').inputData).toBeDefined();

    const workers = h.startWorkers([
      { taskDefName: upper, execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { text: String(t.inputData?.text).toUpperCase() } }) },
    ]);
    try {
      const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
      expect(taskOf(done, '__join_1')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { text: 'A1-A2' }, b1: { text: 'B1' } } });
      expect(
        taskRows(done)
          .map((r) => r[0])
          .slice(-1),
      ).toEqual(['after']);
      expect(workers.errors).toEqual([]);
    } finally {
      await workers.stop();
    }
  });

  // Baton difference (docs/differences.md): an empty joinOn waits for the last task of every branch. forkTaskJoin builds exactly that JOIN.
  test('forkTaskJoin: a JOIN with an empty joinOn waits for the end of the branch', async () => {
    const step = await workerTask('tt_fork_empty');
    const name = uniqueName('tt_fork_empty_wf');
    const [fork, join] = forkTaskJoin('fj', [simpleTask('c1', step, {}), simpleTask('c2', step, {})]);
    expect(join.joinOn).toEqual([]);
    await flow(name).add(fork).add(join).register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    await complete(await pollUntilTask(h.baton.url, step), { n: 1 });
    const mid = await waitForTask(h.executor, id, 'c2', ['SCHEDULED']);
    expect(mid.status).toBe('SCHEDULED');
    const joinNow = ((await get(id)).tasks ?? []).find((t) => t.taskType === 'JOIN');
    expect(joinNow?.status).toBe('IN_PROGRESS');
    await complete(await pollUntilTask(h.baton.url, step), { n: 2 });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(done.tasks?.find((t) => t.taskType === 'JOIN')).toMatchObject({ status: 'COMPLETED', outputData: { c2: { n: 2 } } });
  });

  test('a failed branch task without retries fails the workflow and cancels the rest', async () => {
    const step = await workerTask('tt_fork_fail');
    const name = uniqueName('tt_fork_fail_wf');
    const wf = flow(name).fork([[simpleTask('x1', step, {}), simpleTask('x2', step, {})], [simpleTask('y1', step, {})]]);
    await wf.register(true);
    const id = await wf.startWorkflow({});
    const first = await pollUntilTask(h.baton.url, step);
    const second = await pollUntilTask(h.baton.url, step);
    const y1 = [first, second].find((t) => t.referenceTaskName === 'y1')!;
    await fail(y1, 'branch broke');
    const done = await waitForWorkflow(h.executor, id, 'FAILED');
    expect(taskOf(done, 'y1').status).toBe('FAILED');
    expect(taskOf(done, 'x1').status).toBe('CANCELED');
    expect(taskOf(done, '__join_1').status).toBe('CANCELED');
    expect(done.reasonForIncompletion).toContain('branch broke');
  });

  test('an optional branch task that fails becomes COMPLETED_WITH_ERRORS, and so does the JOIN', async () => {
    const step = await workerTask('tt_fork_optional');
    const name = uniqueName('tt_fork_optional_wf');
    const wf = flow(name).fork([[simpleTask('must', step, {})], [simpleTask('may', step, {}, true)]]);
    await wf.register(true);
    const id = await wf.startWorkflow({});
    for (let i = 0; i < 2; i++) {
      const t = await pollUntilTask(h.baton.url, step);
      if (t.referenceTaskName === 'may') await fail(t, 'optional part broke');
      else await complete(t, { ok: true });
    }
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'may').status).toBe('COMPLETED_WITH_ERRORS');
    expect(taskOf(done, '__join_1').status).toBe('COMPLETED_WITH_ERRORS');
  });
});

describe('FORK_JOIN_DYNAMIC', () => {
  test('dynamicForkTasksParam + dynamicForkTasksInputParamName (dynamicForkTask builder): one branch per task, JOIN on the generated refs', async () => {
    const doubler = await workerTask('tt_dyn_double');
    const name = uniqueName('tt_dynfork');
    const df = dynamicForkTask('df', [simpleTask('p0', doubler, {}), simpleTask('p1', doubler, {})], '${workflow.input.perBranch}');
    await flow(name).add(df).add(joinTask('dj', [])).outputParameters({ joined: '${dj.output}' }).register(true);
    const workers = h.startWorkers([
      { taskDefName: doubler, execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { doubled: Number(t.inputData?.n) * 2 } }) },
    ]);
    try {
      const id = await h.executor.startWorkflow({ name, version: 1, input: { perBranch: { p0: { n: 1 }, p1: { n: 2 } } } });
      const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
      expect(taskRows(done)).toEqual([
        ['df', 'FORK', 'COMPLETED'],
        ['p0', doubler, 'COMPLETED'],
        ['p1', doubler, 'COMPLETED'],
        ['dj', 'JOIN', 'COMPLETED'],
      ]);
      expect(taskOf(done, 'df').inputData?.forkedTasks).toEqual(['p0', 'p1']);
      expect(taskOf(done, 'p1').inputData).toEqual({ n: 2 });
      expect(done.output).toEqual({ joined: { p0: { doubled: 2 }, p1: { doubled: 4 } } });
    } finally {
      await workers.stop();
    }
  });

  test('a duplicate reference name among the forked tasks, or an input map that is not a map, fails the workflow', async () => {
    const echo = await workerTask('tt_dyn_dup');
    const name = uniqueName('tt_dynfork_dup');
    await flow(name)
      .add(dynamicForkTask('dupf', [simpleTask('same', echo, {}), simpleTask('same', echo, {})], '${workflow.input.inputs}'))
      .add(joinTask('dupj', []))
      .register(true);
    const dup = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { inputs: { same: {} } } }), 'FAILED');
    expect(taskOf(dup, 'dupf')).toMatchObject({ taskType: 'FORK', status: 'FAILED' });
    expect(dup.reasonForIncompletion).toContain('same');
    const notMap = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { inputs: ['not', 'a', 'map'] } }), 'FAILED');
    expect(taskOf(notMap, 'dupf').status).toBe('FAILED');
    expect(await pollOnce(h.baton.url, echo)).toBeUndefined();
  });

  // The simple form (forkTaskName/forkTaskInputs) has no SDK builder: raw WorkflowTask JSON.
  test('forkTaskName + forkTaskInputs: refs _<name>_<i>, inputs get __index, scalars are wrapped as {input}', async () => {
    const echo = await workerTask('tt_fan');
    const name = uniqueName('tt_dynfork_simple');
    const fan: WorkflowTask = {
      name: 'fan',
      taskReferenceName: 'fan',
      type: 'FORK_JOIN_DYNAMIC',
      inputParameters: { forkTaskName: echo, forkTaskInputs: '${workflow.input.items}' },
    };
    await flow(name).add(fan).add(joinTask('fan_join', [])).register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { items: [{ v: 'first' }, 'second'] } });
    const polled = [await pollUntilTask(h.baton.url, echo), await pollUntilTask(h.baton.url, echo)];
    const byRef = Object.fromEntries(polled.map((t) => [t.referenceTaskName, t]));
    expect(Object.keys(byRef).sort()).toEqual([`_${echo}_0`, `_${echo}_1`]);
    expect(byRef[`_${echo}_0`]!.inputData).toEqual({ v: 'first', __index: 0 });
    expect(byRef[`_${echo}_1`]!.inputData).toEqual({ input: 'second', __index: 1 });
    for (const t of polled) await complete(t, { echoed: t.inputData.__index });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'fan').taskType).toBe('FORK');
    expect(taskOf(done, 'fan_join').outputData).toEqual({ [`_${echo}_0`]: { echoed: 0 }, [`_${echo}_1`]: { echoed: 1 } });

    // An empty list forks nothing: the JOIN completes at once, as in Conductor.
    const empty = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { items: [] } }), 'COMPLETED');
    expect(taskRows(empty)).toEqual([
      ['fan', 'FORK', 'COMPLETED'],
      ['fan_join', 'JOIN', 'COMPLETED'],
    ]);
  });
});

describe('DO_WHILE', () => {
  test('newLoopTask: a fixed number of iterations, refs ref__N, output iteration and one entry per iteration', async () => {
    const name = uniqueName('tt_loop_n');
    const body = withInputs(inlineTask('times10', '$.it * 10'), { it: '${loop.output.iteration}' });
    await flow(name)
      .add(newLoopTask('loop', 3, [body]))
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'COMPLETED');
    expect(taskRows(done)).toEqual([
      ['loop', 'DO_WHILE', 'COMPLETED'],
      ['times10__1', 'INLINE', 'COMPLETED'],
      ['times10__2', 'INLINE', 'COMPLETED'],
      ['times10__3', 'INLINE', 'COMPLETED'],
    ]);
    expect(taskOf(done, 'loop').outputData).toEqual({
      iteration: 3,
      '1': { times10: { result: 10 } },
      '2': { times10: { result: 20 } },
      '3': { times10: { result: 30 } },
    });
    expect(done.tasks?.map((t) => t.iteration)).toEqual([3, 1, 2, 3]);
  });

  test('doWhileTask: loopCondition reads the body task output; a worker task per iteration', async () => {
    const checker = await workerTask('tt_loop_check');
    const name = uniqueName('tt_loop_cond');
    await flow(name)
      .add(doWhileTask('poller', "$.check['done'] != true", [simpleTask('check', checker, { attempt: '${poller.output.iteration}' })]))
      .outputParameters({ iterations: '${poller.output.iteration}', last: '${check.output.done}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const first = await pollUntilTask(h.baton.url, checker);
    expect(first).toMatchObject({ referenceTaskName: 'check__1', inputData: { attempt: 1 } });
    expect(taskRows(await get(id))).toEqual([
      ['poller', 'DO_WHILE', 'IN_PROGRESS'],
      ['check__1', checker, 'IN_PROGRESS'],
    ]);
    await complete(first, { done: false });
    const second = await pollUntilTask(h.baton.url, checker);
    expect(second).toMatchObject({ referenceTaskName: 'check__2', inputData: { attempt: 2 } });
    await complete(second, { done: true });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskRows(done).map((r) => r[0])).toEqual(['poller', 'check__1', 'check__2']);
    expect(done.output).toEqual({ iterations: 2, last: true });
  });

  // doWhileTask has no `items` argument: the OSS `items` field is added to what it builds.
  test('items: one iteration per list element, the body sees item and index', async () => {
    const name = uniqueName('tt_loop_items');
    const body = withInputs(inlineTask('shout', '$.item.toUpperCase() + $.index'), { item: '${each.output.item}', index: '${each.output.index}' });
    await flow(name)
      .add({ ...doWhileTask('each', 'true', [body]), items: '${workflow.input.list}' } as WorkflowTask)
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { list: ['a', 'b', 'c'] } }), 'COMPLETED');
    expect(taskRows(done).map((r) => r[0])).toEqual(['each', 'shout__1', 'shout__2', 'shout__3']);
    expect(taskOf(done, 'each').outputData).toMatchObject({ iteration: 3, '1': { shout: { result: 'A0' } }, '3': { shout: { result: 'C2' } } });
  });

  test('a nested loop runs the inner loop fully in every outer iteration', async () => {
    const name = uniqueName('tt_loop_nested');
    const leaf = withInputs(inlineTask('leaf', '$.o * 10 + $.i'), { o: '${outer.output.iteration}', i: '${inner.output.iteration}' });
    await flow(name)
      .add(doWhileTask('outer', "$.outer['iteration'] < 2", [doWhileTask('inner', "$.inner['iteration'] < 3", [leaf])]))
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'COMPLETED');
    const leaves = (done.tasks ?? []).filter((t) => t.taskType === 'INLINE');
    expect(leaves.map((t) => t.outputData?.result)).toEqual([11, 12, 13, 21, 22, 23]);
    // Baton names nested iterations ref__<outer>__<inner> (the reference fixes only the single-level ref__N).
    expect(leaves.map((t) => t.referenceTaskName)).toEqual(['leaf__1__1', 'leaf__1__2', 'leaf__1__3', 'leaf__2__1', 'leaf__2__2', 'leaf__2__3']);
    expect((done.tasks ?? []).filter((t) => t.taskType === 'DO_WHILE').map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['outer', 'COMPLETED'],
      ['inner__1', 'COMPLETED'],
      ['inner__2', 'COMPLETED'],
    ]);
    expect(taskOf(done, 'outer').outputData?.iteration).toBe(2);
  });
});

describe('SUB_WORKFLOW', () => {
  async function registerChild(name: string, version: number, label: string): Promise<void> {
    await new ConductorWorkflow(h.executor, name, version)
      .add(inlineTask('label', `'${label}'`))
      .outputParameters({ label: '${label.output.result}', x: '${workflow.input.x}' })
      .register(true);
  }

  test('a pinned version and the latest version; parent/child linkage and output', async () => {
    const child = uniqueName('tt_child');
    await registerChild(child, 1, 'v1');
    await registerChild(child, 2, 'v2');
    const name = uniqueName('tt_parent');
    await flow(name)
      .add({ ...subWorkflowTask('pinned', child, 1), inputParameters: { x: '${workflow.input.x}' } })
      .add({ ...subWorkflowTask('latest', child), inputParameters: { x: 'fixed' } })
      .outputParameters({ pinned: '${pinned.output.label}', latest: '${latest.output.label}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { x: 7 }, correlationId: 'tt-corr' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(done.output).toEqual({ pinned: 'v1', latest: 'v2' });
    const pinned = taskOf(done, 'pinned');
    expect(pinned).toMatchObject({ taskType: 'SUB_WORKFLOW', status: 'COMPLETED' });
    expect(pinned.outputData).toMatchObject({ label: 'v1', x: 7, subWorkflowId: pinned.subWorkflowId });
    const childRun = await get(pinned.subWorkflowId!);
    expect(childRun).toMatchObject({
      workflowName: child,
      workflowVersion: 1,
      status: 'COMPLETED',
      parentWorkflowId: id,
      parentWorkflowTaskId: pinned.taskId,
      correlationId: 'tt-corr',
      input: { x: 7 },
    });
    expect((await get(taskOf(done, 'latest').subWorkflowId!)).workflowVersion).toBe(2);
  });

  test('without a version the child version is pinned when the parent starts', async () => {
    const gate = await workerTask('tt_before_child');
    const child = uniqueName('tt_child_pinned');
    await registerChild(child, 1, 'v1');
    const name = uniqueName('tt_parent_pins');
    await flow(name)
      .add(simpleTask('first', gate, {}))
      .add(subWorkflowTask('later', child))
      .outputParameters({ label: '${later.output.label}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    // A newer child version registered after the parent started does not change what the parent runs.
    await registerChild(child, 2, 'v2');
    await complete(await pollUntilTask(h.baton.url, gate));
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(done.output).toEqual({ label: 'v1' });
  });

  // subWorkflowTask has no taskToDomain argument: it is set on the subWorkflowParam the builder made.
  test('subWorkflowParam.taskToDomain routes the child worker task to the domain', async () => {
    const worker = await workerTask('tt_child_worker');
    const child = uniqueName('tt_child_domain');
    await flow(child)
      .add(simpleTask('work', worker, {}))
      .outputParameters({ by: '${work.output.by}' })
      .register(true);
    const name = uniqueName('tt_parent_domain');
    const sub = subWorkflowTask('call', child, 1);
    await flow(name)
      .add({ ...sub, subWorkflowParam: { ...sub.subWorkflowParam, taskToDomain: { [worker]: 'blue' } } })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const task = await pollUntilTask(h.baton.url, worker, { domain: 'blue' });
    expect(task).toMatchObject({ domain: 'blue', referenceTaskName: 'work' });
    expect(await pollOnce(h.baton.url, worker)).toBeUndefined();
    await complete(task, { by: 'blue worker' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'call').outputData).toMatchObject({ by: 'blue worker' });
    expect((await get(taskOf(done, 'call').subWorkflowId!)).taskToDomain).toEqual({ [worker]: 'blue' });
  });

  test('terminating the parent terminates the running child', async () => {
    const child = uniqueName('tt_child_waits');
    await flow(child).add(humanTask('hold')).register(true);
    const name = uniqueName('tt_parent_terminated');
    await flow(name)
      .add(subWorkflowTask('call', child, 1))
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const call = await waitForTask(h.executor, id, 'call', ['IN_PROGRESS']);
    const childId = await eventually(async () =>
      (await get(call.subWorkflowId!).catch(() => undefined))?.status === 'RUNNING' ? call.subWorkflowId! : undefined,
    );
    await h.executor.terminate(id, 'stop everything');
    const parent = await waitForWorkflow(h.executor, id, 'TERMINATED');
    expect(taskOf(parent, 'call').status).toBe('CANCELED');
    const childRun = await waitForWorkflow(h.executor, childId, 'TERMINATED');
    expect(taskOf(childRun, 'hold').status).toBe('CANCELED');
  });

  test('an inline child definition (ConductorWorkflow.toSubWorkflowTask) runs without registration', async () => {
    const childName = uniqueName('tt_inline_child');
    const childTask = flow(childName)
      .add(withInputs(inlineTask('sum', '$.a + $.b'), { a: '${workflow.input.a}', b: 2 }))
      .outputParameters({ sum: '${sum.output.result}' })
      .toSubWorkflowTask('inline_child');
    const name = uniqueName('tt_inline_parent');
    await flow(name)
      .add({ ...childTask, inputParameters: { a: '${workflow.input.a}' } })
      .outputParameters({ sum: '${inline_child.output.sum}' })
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { a: 40 } }), 'COMPLETED');
    expect(done.output).toEqual({ sum: 42 });
    const childRun = await get(taskOf(done, 'inline_child').subWorkflowId!);
    expect(childRun).toMatchObject({ workflowName: childName, status: 'COMPLETED' });
    await expect(h.metadata.getWorkflowDef(childName)).rejects.toBeDefined();
  });

  /** A child whose only task is a worker task without retries, and a parent calling it. */
  async function failingChildSetup() {
    const worker = await workerTask('tt_child_step');
    const child = uniqueName('tt_child_fails');
    await flow(child)
      .add(simpleTask('step', worker, {}))
      .outputParameters({ step: '${step.output.ok}' })
      .register(true);
    const name = uniqueName('tt_parent_retry');
    await flow(name)
      .add(subWorkflowTask('call', child, 1))
      .outputParameters({ step: '${call.output.step}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    await fail(await pollUntilTask(h.baton.url, worker), 'child step broke');
    const failed = await waitForWorkflow(h.executor, id, 'FAILED');
    return { worker, child, id, failed };
  }

  test('a failed child fails the parent; retrying the parent starts a new child attempt that completes it', async () => {
    const { worker, child, id, failed } = await failingChildSetup();
    const firstCall = taskOf(failed, 'call');
    expect(firstCall.status).toBe('FAILED');
    expect(firstCall.reasonForIncompletion).toContain(`Sub workflow ${child}.1/${firstCall.subWorkflowId} failure reason:`);
    expect((await get(firstCall.subWorkflowId!)).status).toBe('FAILED');

    await h.executor.retry(id, false);
    await waitForWorkflow(h.executor, id, 'RUNNING');
    await complete(await pollUntilTask(h.baton.url, worker), { ok: 'second time' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    const calls = (done.tasks ?? []).filter((t) => t.referenceTaskName === 'call');
    expect(calls.map((t) => [t.status, t.retryCount])).toEqual([
      ['FAILED', 0],
      ['COMPLETED', 1],
    ]);
    expect(calls[1]!.subWorkflowId).not.toBe(firstCall.subWorkflowId);
    expect(done.output).toEqual({ step: 'second time' });
  });

  test('retry with resumeSubworkflowTasks=true retries inside the failed child instead of starting a new one', async () => {
    const { worker, id, failed } = await failingChildSetup();
    const childId = taskOf(failed, 'call').subWorkflowId!;
    await h.executor.retry(id, true);
    await complete(await pollUntilTask(h.baton.url, worker), { ok: 'resumed' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'call').subWorkflowId).toBe(childId);
    expect((await get(childId)).status).toBe('COMPLETED');
  });

  test('retrying the failed child itself brings the parent back and completes it', async () => {
    const { worker, id, failed } = await failingChildSetup();
    const childId = taskOf(failed, 'call').subWorkflowId!;
    await h.executor.retry(childId, false);
    await waitForWorkflow(h.executor, id, 'RUNNING');
    expect(taskOf(await get(id), 'call').status).toBe('IN_PROGRESS');
    await complete(await pollUntilTask(h.baton.url, worker), { ok: 'child retried' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'call').subWorkflowId).toBe(childId);
    expect(done.output).toEqual({ step: 'child retried' });
  });

  test('restarting the parent starts over with a new child', async () => {
    const { worker, id, failed } = await failingChildSetup();
    const oldChild = taskOf(failed, 'call').subWorkflowId!;
    await h.executor.restart(id, false);
    const running = await waitForWorkflow(h.executor, id, 'RUNNING');
    expect(taskRows(running).map((r) => r[0])).toEqual(['call']);
    await complete(await pollUntilTask(h.baton.url, worker), { ok: 'restarted' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'call')).toMatchObject({ retryCount: 0, status: 'COMPLETED' });
    expect(taskOf(done, 'call').subWorkflowId).not.toBe(oldChild);
    expect(done.output).toEqual({ step: 'restarted' });
  });
});

describe('START_WORKFLOW', () => {
  test('startWorkflowTask starts an independent workflow and completes at once with its id', async () => {
    const started = uniqueName('tt_started');
    await flow(started).add(humanTask('hold')).register(true);
    const name = uniqueName('tt_starter');
    await flow(name)
      .add(startWorkflowTask('launch', started, { greeting: '${workflow.input.g}' }, 1))
      .outputParameters({ launched: '${launch.output.workflowId}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { g: 'hi' }, correlationId: 'tt-start' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskRows(done)).toEqual([['launch', 'START_WORKFLOW', 'COMPLETED']]);
    const launched = String(done.output?.launched);
    expect(launched).toBeTruthy();
    const other = await eventually(async () => await h.executor.getWorkflow(launched, true).catch(() => undefined));
    // Still RUNNING in its HUMAN task: the starter did not wait for it, and it is not a child.
    expect(other).toMatchObject({ workflowName: started, status: 'RUNNING', input: { greeting: 'hi' }, correlationId: 'tt-start' });
    expect(other.parentWorkflowId).toBeFalsy();
    await h.executor.terminate(launched, 'test over');
  });
});

describe('WAIT', () => {
  test('waitTaskDuration: IN_PROGRESS with callbackAfterSeconds, then completes by itself', async () => {
    const name = uniqueName('tt_wait_duration');
    await flow(name).add(waitTaskDuration('pause', '1s')).register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    expect(taskOf(await get(id), 'pause')).toMatchObject({ taskType: 'WAIT', status: 'IN_PROGRESS', callbackAfterSeconds: 1 });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'pause').status).toBe('COMPLETED');
  });

  test('waitTaskUntil: a time in the past completes at once, a far one keeps waiting', async () => {
    const past = uniqueName('tt_wait_past');
    await flow(past).add(waitTaskUntil('until', '2020-01-01 00:00 UTC')).register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name: past, version: 1, input: {} }), 'COMPLETED');
    expect(taskOf(done, 'until')).toMatchObject({ taskType: 'WAIT', status: 'COMPLETED' });

    const future = uniqueName('tt_wait_future');
    await flow(future).add(waitTaskUntil('until', '2099-01-01 00:00 UTC')).register(true);
    const id = await h.executor.startWorkflow({ name: future, version: 1, input: {} });
    const waiting = taskOf(await get(id), 'until');
    expect(waiting.status).toBe('IN_PROGRESS');
    expect(Number(waiting.callbackAfterSeconds)).toBeGreaterThan(365 * 86400);
    await h.executor.terminate(id, 'not waiting that long');
  });

  // A WAIT with neither duration nor until has no builder (waitTaskDuration/Until always set one): raw JSON.
  // The signal goes over plain HTTP: the SDK's WorkflowExecutor.signalAsync wraps the output as {taskOutput: …},
  // which any server (Conductor included) stores as is, so it cannot show that the body becomes the output.
  test('without duration or until it waits for POST /api/tasks/{wf}/COMPLETED/signal', async () => {
    const name = uniqueName('tt_wait_signal');
    await flow(name)
      .add({ name: 'gate', taskReferenceName: 'gate', type: 'WAIT', inputParameters: {} })
      .outputParameters({ approvedBy: '${gate.output.approvedBy}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    expect(taskOf(await get(id), 'gate').status).toBe('IN_PROGRESS');
    expect((await api('POST', `/api/tasks/${id}/COMPLETED/signal`, { approvedBy: 'ops' })).status).toBe(200);
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'gate')).toMatchObject({ status: 'COMPLETED', outputData: { approvedBy: 'ops' } });
    expect(done.output).toEqual({ approvedBy: 'ops' });
  });
});

describe('TERMINATE and failureWorkflow', () => {
  test('terminateTask COMPLETED: workflowOutput becomes the output, later tasks never run', async () => {
    const worker = await workerTask('tt_never');
    const name = uniqueName('tt_terminate_ok');
    const stop = terminateTask('stop', 'COMPLETED', 'enough');
    await flow(name)
      .add(withInputs(stop, { workflowOutput: { result: '${workflow.input.v}' } }))
      .add(simpleTask('never', worker, {}))
      .outputParameters({ ignored: true })
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { v: 9 } }), 'COMPLETED');
    expect(taskRows(done)).toEqual([['stop', 'TERMINATE', 'COMPLETED']]);
    expect(done.output).toEqual({ result: 9 });
  });

  // terminateTask's type allows COMPLETED|FAILED only; TERMINATED is a valid terminationStatus too, set on what it builds.
  test('terminationStatus TERMINATED ends the workflow TERMINATED with the reason', async () => {
    const name = uniqueName('tt_terminate_terminated');
    const stop = terminateTask('stop', 'FAILED', 'called off');
    await flow(name)
      .add(withInputs(stop, { terminationStatus: 'TERMINATED' }))
      .register(true);
    const wf = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'TERMINATED');
    expect(wf.reasonForIncompletion).toBe('called off');
    expect(taskRows(wf)).toEqual([['stop', 'TERMINATE', 'COMPLETED']]);
  });

  test('terminateTask FAILED starts the failureWorkflow with the failed workflow id, reason and status', async () => {
    const onFailure = uniqueName('tt_on_failure');
    await flow(onFailure)
      .add(withInputs(inlineTask('note', '$.reason + "/" + $.status'), { reason: '${workflow.input.reason}', status: '${workflow.input.failureStatus}' }))
      .outputParameters({ note: '${note.output.result}' })
      .register(true);
    const name = uniqueName('tt_terminate_fail');
    await flow(name)
      .add(terminateTask('stop', 'FAILED', 'bad input'))
      .failureWorkflow(onFailure)
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { order: 1 }, correlationId: 'tt-fail' });
    const failed = await waitForWorkflow(h.executor, id, 'FAILED');
    expect(failed.reasonForIncompletion).toBe('bad input');
    const failureId = String(failed.output?.['conductor.failure_workflow']);
    const handled = await eventually(async () => {
      const wf = await h.executor.getWorkflow(failureId, true).catch(() => undefined);
      return wf?.status === 'COMPLETED' ? wf : undefined;
    });
    expect(handled).toMatchObject({ workflowName: onFailure, correlationId: 'tt-fail', output: { note: 'bad input/FAILED' } });
    expect(handled.input).toMatchObject({ order: 1, workflowId: id, reason: 'bad input', failureStatus: 'FAILED' });
    expect((handled.input as { failedWorkflow?: Workflow }).failedWorkflow).toMatchObject({ workflowId: id, status: 'FAILED' });
  });

  // Conductor records the TERMINATE task as the failed task and passes its id (Conductor's WorkflowExecutor.terminate).
  test('the failure workflow of a TERMINATE-task failure gets failureTaskId = the TERMINATE task id', async () => {
    const onFailure = uniqueName('tt_on_failure_id');
    await flow(onFailure).add({ name: 'nothing', taskReferenceName: 'nothing', type: 'NOOP' }).register(true);
    const name = uniqueName('tt_terminate_fail_id');
    await flow(name)
      .add(terminateTask('stop', 'FAILED', 'bad input'))
      .failureWorkflow(onFailure)
      .register(true);
    const failed = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'FAILED');
    const handled = await eventually(async () => h.executor.getWorkflow(String(failed.output?.['conductor.failure_workflow']), false).catch(() => undefined));
    expect(handled.input).toMatchObject({ failureTaskId: taskOf(failed, 'stop').taskId });
  });

  test('a worker task failure starts the failureWorkflow with failureTaskId = the failed task', async () => {
    const worker = await workerTask('tt_fails_for_fw');
    const onFailure = uniqueName('tt_on_task_failure');
    await flow(onFailure).add({ name: 'nothing', taskReferenceName: 'nothing', type: 'NOOP' }).register(true);
    const name = uniqueName('tt_task_fail_fw');
    await flow(name)
      .add(simpleTask('job', worker, {}))
      .failureWorkflow(onFailure)
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { k: 'v' } });
    await fail(await pollUntilTask(h.baton.url, worker), 'worker gave up');
    const failed = await waitForWorkflow(h.executor, id, 'FAILED');
    const handled = await eventually(async () => {
      const wf = await h.executor.getWorkflow(String(failed.output?.['conductor.failure_workflow']), false).catch(() => undefined);
      return wf?.status === 'COMPLETED' ? wf : undefined;
    });
    expect(handled.input).toMatchObject({ k: 'v', workflowId: id, failureStatus: 'FAILED', failureTaskId: taskOf(failed, 'job').taskId });
    expect(String(handled.input?.reason)).toContain('worker gave up');
  });
});

describe('SET_VARIABLE, INLINE, JSON_JQ_TRANSFORM, LAMBDA, NOOP', () => {
  test('workflow variables start from the definition; setVariableTask merges into them', async () => {
    const name = uniqueName('tt_vars');
    await flow(name)
      .variables({ count: 1, keep: 'kept' })
      .add(setVariableTask('sv', { count: '${workflow.input.n}', added: 'yes' }))
      .add(withInputs(inlineTask('read', '$.c + 1'), { c: '${workflow.variables.count}' }))
      .outputParameters({ vars: '${workflow.variables}', next: '${read.output.result}' })
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { n: 5 } }), 'COMPLETED');
    expect(done.variables).toEqual({ count: 5, keep: 'kept', added: 'yes' });
    expect(done.output).toEqual({ vars: { count: 5, keep: 'kept', added: 'yes' }, next: 6 });
    expect(taskOf(done, 'sv')).toMatchObject({ taskType: 'SET_VARIABLE', status: 'COMPLETED' });
  });

  test('SET_VARIABLE above 256 KB fails with FAILED_WITH_TERMINAL_ERROR and leaves the variables as they were', async () => {
    const name = uniqueName('tt_vars_too_big');
    await flow(name)
      .variables({ small: 1 })
      .add(setVariableTask('huge', { blob: '${workflow.input.blob}' }))
      .register(true);
    const wf = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { blob: 'x'.repeat(300 * 1024) } }), 'FAILED');
    expect(taskOf(wf, 'huge').status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(wf.variables).toEqual({ small: 1 });
  });

  test.each(['javascript', 'graaljs'] as const)('inlineTask (%s): result from the whole input as $', async (evaluatorType) => {
    const name = uniqueName(`tt_inline_${evaluatorType}`);
    const script = '(function () { return { total: $.items.reduce(function (s, x) { return s + x; }, 0), who: $.who }; })()';
    const t = inlineTask('calc', script, evaluatorType);
    await flow(name)
      .add(withInputs(t, { items: '${workflow.input.items}', who: 'me' }))
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { items: [1, 2, 3] } }), 'COMPLETED');
    expect(taskOf(done, 'calc')).toMatchObject({ taskType: 'INLINE', status: 'COMPLETED', outputData: { result: { total: 6, who: 'me' } } });
  });

  test('an INLINE script that throws fails the task for good with output.error, as Conductor does', async () => {
    const name = uniqueName('tt_inline_err');
    await flow(name).add(inlineTask('boom', '$.missing.deeper')).register(true);
    const wf = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: {} }), 'FAILED');
    const t = taskOf(wf, 'boom');
    expect(t.status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(t.reasonForIncompletion).toMatch(/^Error evaluating the script `JavaScript error during evaluation: TypeError/);
    expect(t.outputData?.error).toEqual(expect.stringMatching(/\S/));
    expect(wf.reasonForIncompletion).toBeTruthy();
  });

  test('jsonJqTask: result is the first value, resultList all of them; a bad query fails the task', async () => {
    const name = uniqueName('tt_jq');
    const sum = jsonJqTask('sum', '{ total: (.a + .b) }');
    const each = jsonJqTask('each', '.items[] | .name');
    await flow(name)
      .add(withInputs(sum, { a: '${workflow.input.a}', b: 2 }))
      .add(withInputs(each, { items: '${workflow.input.items}' }))
      .outputParameters({ total: '${sum.output.result.total}', names: '${each.output.resultList}', first: '${each.output.result}' })
      .register(true);
    const done = await waitForWorkflow(
      h.executor,
      await h.executor.startWorkflow({ name, version: 1, input: { a: 1, items: [{ name: 'x' }, { name: 'y' }] } }),
      'COMPLETED',
    );
    expect(taskOf(done, 'sum')).toMatchObject({ taskType: 'JSON_JQ_TRANSFORM', outputData: { result: { total: 3 }, resultList: [{ total: 3 }] } });
    expect(done.output).toEqual({ total: 3, names: ['x', 'y'], first: 'x' });

    const bad = uniqueName('tt_jq_bad');
    await flow(bad).add(jsonJqTask('broken', '.a | ||| nonsense')).register(true);
    const failed = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name: bad, version: 1, input: {} }), 'FAILED');
    expect(taskOf(failed, 'broken').status).toBe('FAILED');
    expect(taskOf(failed, 'broken').outputData?.error).toBeTruthy();
  });

  // LAMBDA (deprecated) and NOOP have no SDK builders: raw WorkflowTask JSON.
  test('LAMBDA runs scriptExpression as a function body; NOOP just completes', async () => {
    const name = uniqueName('tt_lambda_noop');
    await flow(name)
      .add({ name: 'nothing', taskReferenceName: 'nothing', type: 'NOOP' })
      .add({
        name: 'lam',
        taskReferenceName: 'lam',
        type: 'LAMBDA',
        inputParameters: { v: '${workflow.input.v}', scriptExpression: 'if ($.v > 1) { return { doubled: $.v * 2 }; } return null;' },
      })
      .outputParameters({ doubled: '${lam.output.result.doubled}' })
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { v: 21 } }), 'COMPLETED');
    expect(taskRows(done)).toEqual([
      ['nothing', 'NOOP', 'COMPLETED'],
      ['lam', 'LAMBDA', 'COMPLETED'],
    ]);
    expect(taskOf(done, 'lam').outputData).toEqual({ result: { doubled: 42 } });
    expect(done.output).toEqual({ doubled: 42 });
  });
});

describe('EVENT', () => {
  test('conductorEventTask publishes on conductor:<workflow>:<name>; an event handler on that event starts a workflow', async () => {
    const reacting = uniqueName('tt_reacting');
    await flow(reacting)
      .add(withInputs(inlineTask('seen', '$.orderId'), { orderId: '${workflow.input.orderId}' }))
      .register(true);
    const name = uniqueName('tt_publisher');
    const emit = conductorEventTask('emit', 'orders');
    await flow(name)
      .add({ ...emit, inputParameters: { orderId: '${workflow.input.orderId}' } })
      .register(true);
    const event = `conductor:${name}:orders`;
    const handler = uniqueName('tt_handler');
    // Registered over plain HTTP: the SDK v4 EventClient.addEventHandler posts a list (Orkes' form), while
    // POST /api/event takes one EventHandler in Conductor OSS and in Baton.
    const added = await api('POST', '/api/event', {
      name: handler,
      event,
      active: true,
      actions: [
        {
          action: 'start_workflow',
          start_workflow: { name: reacting, version: 1, correlationId: '${correlationId}', input: { orderId: '${orderId}', from: '${workflowType}' } },
        },
      ],
    });
    expect(added.status).toBe(200);
    const corr = uniqueName('tt_evt_corr');
    const id = await h.executor.startWorkflow({ name, version: 1, input: { orderId: 'o-1' }, correlationId: corr });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'emit')).toMatchObject({ taskType: 'EVENT', status: 'COMPLETED', outputData: { orderId: 'o-1', event_produced: event } });

    const started = await eventually(async () => {
      const r = await api<Workflow[]>('GET', `/api/workflow/${reacting}/correlated/${corr}?includeClosed=true&includeTasks=true`);
      return r.body.find((w) => w.status === 'COMPLETED');
    });
    expect(started).toMatchObject({ input: { orderId: 'o-1', from: name }, event });
    expect(taskOf(started, 'seen').outputData).toEqual({ result: 'o-1' });
    expect((await api('DELETE', `/api/event/${handler}`)).status).toBe(200);
  });
  // conductorEventTask has no asyncComplete argument: the flag is set on what it builds.
  test('asyncComplete: the EVENT task publishes and stays IN_PROGRESS until completed externally', async () => {
    const name = uniqueName('tt_event_async');
    await flow(name)
      .add({ ...conductorEventTask('emit', 'later'), asyncComplete: true })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    expect(taskOf(await get(id), 'emit')).toMatchObject({ taskType: 'EVENT', status: 'IN_PROGRESS' });
    await h.executor.updateTaskByRefName('emit', id, 'COMPLETED', { acknowledged: true });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'emit').outputData).toMatchObject({ acknowledged: true });
  });
});

describe('DYNAMIC', () => {
  test('dynamicTask: the task type comes from the input; workers poll that type', async () => {
    const real = await workerTask('tt_dyn_target');
    const name = uniqueName('tt_dynamic');
    await flow(name)
      .add({ ...dynamicTask('dyn', '${workflow.input.which}'), inputParameters: { taskToExecute: '${workflow.input.which}', payload: 'p' } })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { which: real } });
    const polled = await pollUntilTask(h.baton.url, real);
    expect(polled).toMatchObject({ referenceTaskName: 'dyn', taskType: real, inputData: { payload: 'p' } });
    await complete(polled, { done: true });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(taskOf(done, 'dyn')).toMatchObject({ taskType: real, taskDefName: real, status: 'COMPLETED' });
  });

  test('a task name without a registered definition fails the workflow', async () => {
    const name = uniqueName('tt_dynamic_missing');
    await flow(name).add(dynamicTask('dyn', '${workflow.input.which}')).register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: { which: uniqueName('tt_not_registered') } });
    const wf = await waitForWorkflow(h.executor, id, 'FAILED');
    expect(wf.reasonForIncompletion).toContain('Invalid task specified');
  });
});

describe('EXCLUSIVE_JOIN (no SDK builder: raw WorkflowTask JSON)', () => {
  test('completes with the output of the branch that ran, or of the default task', async () => {
    const name = uniqueName('tt_exclusive');
    const xj: WorkflowTask = { name: 'xj', taskReferenceName: 'xj', type: 'EXCLUSIVE_JOIN', joinOn: ['ran_a', 'ran_b'], defaultExclusiveJoinTask: ['ran_d'] };
    await flow(name)
      .add(switchTask('pick', '${workflow.input.k}', { a: [inlineTask('ran_a', "'A'")], b: [inlineTask('ran_b', "'B'")] }, [inlineTask('ran_d', "'D'")]))
      .add(xj)
      .outputParameters({ picked: '${xj.output.result}' })
      .register(true);
    const b = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { k: 'b' } }), 'COMPLETED');
    expect(taskRows(b)).toEqual([
      ['pick', 'SWITCH', 'COMPLETED'],
      ['ran_b', 'INLINE', 'COMPLETED'],
      ['xj', 'EXCLUSIVE_JOIN', 'COMPLETED'],
    ]);
    expect(b.output).toEqual({ picked: 'B' });
    const d = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { k: 'q' } }), 'COMPLETED');
    expect(d.output).toEqual({ picked: 'D' });
  });
});

describe('HTTP', () => {
  test('httpTask against a local server: 2xx completes with the response, 5xx fails', async () => {
    const name = uniqueName('tt_http');
    await flow(name)
      .add(httpTask('call', { uri: `${target.url}/echo`, method: 'POST', headers: { 'X-Test': 'yes' }, body: { order: '${workflow.input.order}' } }))
      .outputParameters({ got: '${call.output.response.body.got}', status: '${call.output.response.statusCode}' })
      .register(true);
    const done = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name, version: 1, input: { order: 17 } }), 'COMPLETED');
    expect(done.output).toEqual({ got: { order: 17 }, status: 200 });
    expect(taskOf(done, 'call')).toMatchObject({ taskType: 'HTTP', status: 'COMPLETED', outputData: { response: { body: { header: 'yes' } } } });
    expect(target.received.some((r) => r.path === '/echo' && (r.body as { order?: number }).order === 17)).toBe(true);

    const failing = uniqueName('tt_http_fail');
    await flow(failing)
      .add(httpTask('call', { uri: `${target.url}/fail`, method: 'GET' }))
      .register(true);
    const failed = await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name: failing, version: 1, input: {} }), 'FAILED');
    expect(taskOf(failed, 'call').status).toBe('FAILED');
    // Reason text as Conductor's HttpTask words it; Baton keeps `response` as {statusCode, …} where Conductor puts the exception string.
    expect(taskOf(failed, 'call').reasonForIncompletion).toMatch(/^Failed to invoke HTTP task due to: .*500.*target is down/);
  });

  test('asyncComplete (httpTask third argument): the call is made, the task stays IN_PROGRESS until completed externally', async () => {
    const name = uniqueName('tt_http_async');
    const before = target.received.length;
    await flow(name)
      .add(httpTask('call', { uri: `${target.url}/echo`, method: 'POST', body: { async: true } }, true))
      .outputParameters({ confirmed: '${call.output.confirmed}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    await eventually(async () => target.received.slice(before).some((r) => (r.body as { async?: boolean }).async === true));
    const waiting = await waitForTask(h.executor, id, 'call', ['IN_PROGRESS']);
    expect(waiting.taskType).toBe('HTTP');
    expect((await get(id)).status).toBe('RUNNING');
    await h.executor.updateTaskByRefName('call', id, 'COMPLETED', { confirmed: 'by callback' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(done.output).toEqual({ confirmed: 'by callback' });
  });
});

describe('HUMAN', () => {
  test('humanTask stays IN_PROGRESS, is never handed to a worker, and completes by a task update', async () => {
    const name = uniqueName('tt_human');
    await flow(name)
      .add(humanTask('approve', { displayName: 'Approve order' }))
      .outputParameters({ by: '${approve.output.by}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const t = taskOf(await get(id), 'approve');
    expect(t).toMatchObject({ taskType: 'HUMAN', status: 'IN_PROGRESS' });
    expect(t.inputData).toMatchObject({ __humanTaskDefinition: { displayName: 'Approve order' } });
    expect(await pollOnce(h.baton.url, 'HUMAN')).toBeUndefined();
    await h.executor.updateTaskByRefName('approve', id, 'COMPLETED', { by: 'alice' });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(done.output).toEqual({ by: 'alice' });
  });
});

describe('task and workflow settings', () => {
  test('startDelay: the task is scheduled with the delay and handed out only after it', async () => {
    const worker = await workerTask('tt_delayed');
    const name = uniqueName('tt_start_delay');
    await flow(name)
      .add({ ...simpleTask('late', worker, {}), startDelay: 2 })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    expect(taskOf(await get(id), 'late')).toMatchObject({ status: 'SCHEDULED', startDelayInSeconds: 2, callbackAfterSeconds: 2 });
    expect(await pollOnce(h.baton.url, worker)).toBeUndefined();
    const polled = await pollUntilTask(h.baton.url, worker);
    expect(polled.referenceTaskName).toBe('late');
    await complete(polled);
    await waitForWorkflow(h.executor, id, 'COMPLETED');
  });

  test('inputTemplate: workflow defaults fill missing input; a TaskDef template fills missing and null task inputs', async () => {
    const worker = await workerTask('tt_templated', { inputTemplate: { mode: 'fast', retries: 3 } });
    const name = uniqueName('tt_input_template');
    const wf = flow(name)
      .inputTemplate({ region: 'eu', tier: 'basic' })
      .add(simpleTask('job', worker, { mode: '${workflow.input.mode}', region: '${workflow.input.region}', tier: '${workflow.input.tier}' }));
    await wf.register(true);
    const id = await wf.startWorkflow({ tier: 'gold' });
    expect((await get(id)).input).toEqual({ tier: 'gold', region: 'eu' });
    const polled = await pollUntilTask(h.baton.url, worker);
    expect(polled.inputData).toEqual({ mode: 'fast', retries: 3, region: 'eu', tier: 'gold' });
    await complete(polled);
    await waitForWorkflow(h.executor, id, 'COMPLETED');
  });

  test('rateLimitPerFrequency/rateLimitFrequencyInSeconds: one task per window is handed out; the other follows later', async () => {
    const worker = await workerTask('tt_rate', { rateLimitPerFrequency: 1, rateLimitFrequencyInSeconds: 1 });
    const name = uniqueName('tt_rate_wf');
    await flow(name)
      .add(simpleTask('limited', worker, {}))
      .register(true);
    const ids = [await h.executor.startWorkflow({ name, version: 1, input: {} }), await h.executor.startWorkflow({ name, version: 1, input: {} })];
    const first = await pollBatch(h.baton.url, worker, 2, 200);
    expect(first).toHaveLength(1);
    const second = await pollUntilTask(h.baton.url, worker);
    expect(new Set([first[0]!.workflowInstanceId, second.workflowInstanceId])).toEqual(new Set(ids));
    await complete(first[0]!);
    await complete(second);
    for (const id of ids) await waitForWorkflow(h.executor, id, 'COMPLETED');
  });

  test('concurrentExecLimit: no second task while one is IN_PROGRESS; completing it frees the slot', async () => {
    const worker = await workerTask('tt_conc', { concurrentExecLimit: 1 });
    const name = uniqueName('tt_conc_wf');
    await flow(name)
      .add(simpleTask('limited', worker, {}))
      .register(true);
    const ids = [await h.executor.startWorkflow({ name, version: 1, input: {} }), await h.executor.startWorkflow({ name, version: 1, input: {} })];
    const first = await pollBatch(h.baton.url, worker, 2, 200);
    expect(first).toHaveLength(1);
    // A long poll that outlasts Baton's 1 s postponement still gets nothing while the slot is taken.
    expect(await pollBatch(h.baton.url, worker, 1, 1500)).toEqual([]);
    await complete(first[0]!);
    const second = await pollUntilTask(h.baton.url, worker);
    expect(second.workflowInstanceId).not.toBe(first[0]!.workflowInstanceId);
    await complete(second);
    for (const id of ids) await waitForWorkflow(h.executor, id, 'COMPLETED');
  });

  test('isolationGroupId: the queue is named <type>-<group>, and a TaskManager worker polling the type still gets the task', async () => {
    const worker = await workerTask('tt_isolated', { isolationGroupId: 'grpA' });
    const name = uniqueName('tt_isolated_wf');
    await flow(name)
      .add(simpleTask('iso', worker, { n: 1 }))
      .outputParameters({ n: '${iso.output.n}' })
      .register(true);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const queues = await eventually(async () => {
      const r = await api<Record<string, number>>('GET', '/api/tasks/queue/all');
      return r.body[`${worker}-grpA`] === 1 ? r.body : undefined;
    });
    expect(queues).not.toHaveProperty(worker);
    expect((await api('GET', `/api/tasks/queue/size?taskType=${worker}&isolationGroupId=grpA`)).body).toBe(1);

    const workers = h.startWorkers([
      { taskDefName: worker, execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { n: Number(t.inputData?.n) + 1 } }) },
    ]);
    try {
      const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
      expect(done.output).toEqual({ n: 2 });
      expect(taskOf(done, 'iso')).toMatchObject({ isolationGroupId: 'grpA', workerId: 'sdk-test-worker' });
      expect((await api<Record<string, number>>('GET', '/api/tasks/queue/all')).body[`${worker}-grpA`]).toBe(0);
    } finally {
      await workers.stop();
    }
  });
});
