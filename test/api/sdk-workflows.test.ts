import {
  ConductorWorkflow,
  NonRetryableException,
  TaskHandler,
  clearWorkerRegistry,
  inlineTask,
  setVariableTask,
  simpleTask,
  subWorkflowTask,
  switchTask,
  taskDefinition,
  waitTaskDuration,
  worker,
  workflow,
  type Task,
} from '@io-orkes/conductor-javascript';
import { eventually } from '../support/baton';
import { quietLogger, startSdkHarness, uniqueName, waitForTask, waitForWorkflow, type SdkHarness } from '../support/sdk';

// Behaviours the official JS SDK's own integration suite relies on, driven through the SDK.

let h: SdkHarness;
const handlers: TaskHandler[] = [];

beforeAll(async () => {
  h = await startSdkHarness();
});

afterAll(async () => {
  for (const handler of handlers) await handler.stopWorkers();
  clearWorkerRegistry();
  await h?.stop();
});

async function startHandler(config: Omit<ConstructorParameters<typeof TaskHandler>[0], 'client'>): Promise<TaskHandler> {
  const handler = new TaskHandler({ client: h.client, logger: quietLogger, healthMonitor: { enabled: false }, ...config });
  handlers.push(handler);
  await handler.startWorkers();
  return handler;
}

describe('TaskHandler and the worker decorator', () => {
  test('registers its task definition, maps NonRetryableException to a terminal failure and a plain throw with retryCount 0 to a failed workflow', async () => {
    const decorated = uniqueName('sdk_decorated');
    const plain = uniqueName('sdk_plain_fail');
    clearWorkerRegistry();
    worker({
      taskDefName: decorated,
      workerId: 'decorated-worker',
      pollInterval: 50,
      registerTaskDef: true,
      taskDef: taskDefinition({ name: decorated, description: 'registered by the worker', retryCount: 2 }),
    })(async (t: Task) => {
      if (t.inputData?.fail) throw new NonRetryableException('input is unusable');
      return { status: 'COMPLETED', outputData: { echoed: t.inputData?.value } };
    });
    await h.metadata.registerTask(taskDefinition({ name: plain, retryCount: 0 }));
    const handler = await startHandler({
      scanForDecorated: true,
      workers: [
        {
          taskDefName: plain,
          pollInterval: 50,
          execute: async () => {
            throw new Error('plain worker failure');
          },
        },
      ],
    });
    try {
      // With overwrite (the default) the handler upserts the definition with PUT /api/metadata/taskdefs.
      expect(await h.metadata.getTask(decorated)).toMatchObject({ name: decorated, description: 'registered by the worker', retryCount: 2 });

      const name = uniqueName('sdk_decorated_wf');
      await h.executor.registerWorkflow(
        true,
        workflow(name, [simpleTask('d', decorated, { value: '${workflow.input.value}', fail: '${workflow.input.fail}' })]),
      );
      const ok = await h.executor.startWorkflow({ name, version: 1, input: { value: 'hello', fail: false } });
      const bad = await h.executor.startWorkflow({ name, version: 1, input: { value: 'x', fail: true } });

      const okWf = await waitForWorkflow(h.executor, ok, 'COMPLETED');
      expect(okWf.tasks?.[0]).toMatchObject({ status: 'COMPLETED', outputData: { echoed: 'hello' }, workerId: 'decorated-worker' });

      const badWf = await waitForWorkflow(h.executor, bad, 'FAILED');
      // FAILED_WITH_TERMINAL_ERROR is not retried even though the definition allows 2 retries.
      expect((badWf.tasks ?? []).map((t) => t.status)).toEqual(['FAILED_WITH_TERMINAL_ERROR']);
      expect(badWf.tasks?.[0].reasonForIncompletion).toContain('input is unusable');
      expect(badWf.reasonForIncompletion).toContain('input is unusable');

      const plainName = uniqueName('sdk_plain_wf');
      await h.executor.registerWorkflow(true, workflow(plainName, [simpleTask('p', plain, {})]));
      const failing = await h.executor.startWorkflow({ name: plainName, version: 1, input: {} });
      const failed = await waitForWorkflow(h.executor, failing, 'FAILED');
      expect((failed.tasks ?? []).map((t) => [t.status, t.reasonForIncompletion])).toEqual([['FAILED', 'plain worker failure']]);
    } finally {
      await handler.stopWorkers();
    }
  });
});

describe('workflows built with the SDK builders', () => {
  test('fork/join, switch and sub-workflow run to completion with a worker', async () => {
    const taskName = uniqueName('sdk_shout');
    const childName = uniqueName('sdk_child');
    const parentName = uniqueName('sdk_parent');
    const handler = await startHandler({
      scanForDecorated: false,
      workers: [
        {
          taskDefName: taskName,
          pollInterval: 50,
          concurrency: 3,
          execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { text: String(t.inputData?.text).toUpperCase() } }),
        },
      ],
    });
    try {
      const child = new ConductorWorkflow(h.executor, childName)
        .add(simpleTask('c1', taskName, { text: '${workflow.input.text}' }))
        .outputParameters({ childText: '${c1.output.text}' });
      await child.register(true);

      const parent = new ConductorWorkflow(h.executor, parentName)
        .fork([[simpleTask('left', taskName, { text: 'left ${workflow.input.word}' })], [simpleTask('right', taskName, { text: 'right' })]])
        .add(
          switchTask(
            'route',
            '${workflow.input.route}',
            {
              sub: [{ ...subWorkflowTask('call_child', childName, 1), inputParameters: { text: '${left.output.text}' } }],
            },
            [simpleTask('fallback', taskName, { text: 'fallback' })],
          ),
        )
        .outputParameters({
          left: '${left.output.text}',
          right: '${right.output.text}',
          child: '${call_child.output.childText}',
          fallback: '${fallback.output.text}',
        });
      await parent.register(true);
      const def = await h.metadata.getWorkflowDef(parentName);
      expect(def.tasks.map((t) => t.type)).toEqual(['FORK_JOIN', 'JOIN', 'SWITCH']);

      const viaSub = await parent.startWorkflow({ word: 'go', route: 'sub' }, 'fork-corr');
      const viaDefault = await parent.startWorkflow({ word: 'stay', route: 'other' });

      const subWf = await waitForWorkflow(h.executor, viaSub, 'COMPLETED');
      expect(subWf.correlationId).toBe('fork-corr');
      expect(subWf.output).toMatchObject({ left: 'LEFT GO', right: 'RIGHT', child: 'LEFT GO' });
      const join = (subWf.tasks ?? []).find((t) => t.taskType === 'JOIN');
      expect(join?.outputData).toMatchObject({ left: { text: 'LEFT GO' }, right: { text: 'RIGHT' } });
      const route = (subWf.tasks ?? []).find((t) => t.referenceTaskName === 'route');
      expect(route?.outputData?.evaluationResult).toEqual(['sub']);
      const call = (subWf.tasks ?? []).find((t) => t.referenceTaskName === 'call_child');
      expect(call?.subWorkflowId).toBeTruthy();
      const childRun = await h.executor.getWorkflow(call!.subWorkflowId!, true);
      expect(childRun).toMatchObject({ workflowName: childName, status: 'COMPLETED', output: { childText: 'LEFT GO' } });

      const defaultWf = await waitForWorkflow(h.executor, viaDefault, 'COMPLETED');
      expect(defaultWf.output).toMatchObject({ left: 'LEFT STAY', fallback: 'FALLBACK' });
      expect((defaultWf.tasks ?? []).some((t) => t.referenceTaskName === 'call_child')).toBe(false);
    } finally {
      await handler.stopWorkers();
    }
  });

  // POST /api/workflow/execute/{name}/{version}, used by ConductorWorkflow.execute and WorkflowExecutor.executeWorkflow.
  test('executeWorkflow runs a SET_VARIABLE + INLINE workflow synchronously', async () => {
    const name = uniqueName('sdk_sync');
    const sum = inlineTask('sum', '(function () { return $.a + $.b; })()', 'graaljs');
    const wf = new ConductorWorkflow(h.executor, name)
      .add(setVariableTask('remember', { seen: '${workflow.input.a}' }))
      .add({ ...sum, inputParameters: { ...sum.inputParameters, a: '${workflow.input.a}', b: '${workflow.input.b}' } })
      .outputParameters({ result: '${sum.output.result}', seen: '${workflow.variables.seen}' });
    await wf.register(true);
    const run = await wf.execute({ a: 1, b: 2 });
    expect(run).toMatchObject({ status: 'COMPLETED', output: { result: 3, seen: 1 } });
    expect(run.workflowId).toBeTruthy();
    expect((await h.executor.getWorkflow(run.workflowId!, false)).status).toBe('COMPLETED');
  });

  // POST /api/workflow/test, used by WorkflowExecutor.testWorkflow.
  test('testWorkflow simulates a run from mocked task outputs', async () => {
    const name = uniqueName('sdk_simulated');
    const def = { ...workflow(name, [simpleTask('simple_ref', uniqueName('sdk_mocked'), {})]), outputParameters: { message: '${simple_ref.output.message}' } };
    const run = await h.executor.testWorkflow({
      name,
      version: 1,
      input: {},
      workflowDef: def,
      taskRefToMockOutput: { simple_ref: [{ status: 'COMPLETED', output: { message: 'mocked' } }] },
    });
    expect(run).toMatchObject({ status: 'COMPLETED', output: { message: 'mocked' } });
  });
});

describe('WorkflowExecutor extras', () => {
  test('WAIT task: updates by ref name merge into its output, an update by task id replaces it', async () => {
    const name = uniqueName('sdk_wait');
    await h.executor.registerWorkflow(true, workflow(name, [{ name: 'wait', taskReferenceName: 'waiter', type: 'WAIT' as never, inputParameters: {} }]));
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const waiting = await waitForTask(h.executor, id, 'waiter', ['IN_PROGRESS']);
    await h.executor.updateTaskByRefName('waiter', id, 'IN_PROGRESS', { step: 1, extra: true });
    await h.executor.updateTaskByRefName('waiter', id, 'IN_PROGRESS', { step: 2 });
    // POST /api/tasks/{wf}/{ref}/{status} merges the body into the existing output.
    expect(await h.executor.getTask(waiting.taskId!)).toMatchObject({ status: 'IN_PROGRESS', outputData: { step: 2, extra: true } });
    expect((await h.executor.getWorkflow(id, false)).status).toBe('RUNNING');
    // POST /api/tasks carries a whole TaskResult, whose outputData replaces the task's.
    await h.executor.updateTask(waiting.taskId!, id, 'COMPLETED', { step: 3 });
    const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(wf.tasks?.[0].outputData).toEqual({ step: 3 });
  });

  test('a WAIT with a duration completes on its own', async () => {
    const name = uniqueName('sdk_wait_duration');
    await h.executor.registerWorkflow(true, workflow(name, [waitTaskDuration('pause', '1s')]));
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(wf.tasks?.[0]).toMatchObject({ taskType: 'WAIT', status: 'COMPLETED' });
  });

  test('startWorkflowByName, getExecution, goBackToFirstTaskMatchingType and deleteWorkflow', async () => {
    const first = uniqueName('sdk_first');
    const second = uniqueName('sdk_second');
    const name = uniqueName('sdk_goback');
    await h.executor.registerWorkflow(true, workflow(name, [simpleTask('a', first, { n: '${workflow.input.n}' }), simpleTask('b', second, {})]));
    const id = await h.executor.startWorkflowByName(name, { n: 4 }, 1, 'by-name');
    const started = await h.executor.getExecution(id);
    expect(started).toMatchObject({ workflowId: id, workflowName: name, correlationId: 'by-name', input: { n: 4 } });

    await waitForTask(h.executor, id, 'a', ['SCHEDULED']);
    await h.executor.updateTaskByRefName('a', id, 'COMPLETED', { a: 1 });
    await waitForTask(h.executor, id, 'b', ['SCHEDULED']);
    await h.executor.updateTaskByRefName('b', id, 'COMPLETED', { b: 1 });
    await waitForWorkflow(h.executor, id, 'COMPLETED');

    await h.executor.goBackToFirstTaskMatchingType(id, second);
    const back = await waitForWorkflow(h.executor, id, 'RUNNING');
    expect((back.tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['a', 'COMPLETED'],
      ['b', 'SCHEDULED'],
    ]);
    await expect(h.executor.goBackToFirstTaskMatchingType(id, uniqueName('sdk_no_such_type'))).rejects.toThrow();

    await h.executor.terminate(id, 'before delete');
    await h.executor.deleteWorkflow(id, false);
    await expect(h.executor.getWorkflow(id, false)).rejects.toThrow();
  });
});

describe('lease extension', () => {
  test('heartbeats keep a long task alive past its response timeout; without them it times out', async () => {
    const leased = uniqueName('sdk_leased');
    const unleased = uniqueName('sdk_unleased');
    for (const taskName of [leased, unleased])
      await h.metadata.registerTask(taskDefinition({ name: taskName, retryCount: 0, responseTimeoutSeconds: 2, timeoutSeconds: 60 }));
    const name = uniqueName('sdk_lease_wf');
    await h.executor.registerWorkflow(true, workflow(name, [simpleTask('leased', leased, {}), simpleTask('unleased', unleased, {})]));
    const seenUpdates = new Set<number>();

    const workers = h.startWorkers([
      {
        taskDefName: leased,
        leaseExtendEnabled: true,
        // Holds the task until the server has recorded two heartbeats (each ~1.6 s apart), i.e. past the 2 s response timeout.
        execute: async (t: Task) => {
          await eventually(async () => {
            const now = await h.executor.getTask(t.taskId!);
            if (now.status !== 'IN_PROGRESS') throw new Error(`leased task is ${now.status}`);
            seenUpdates.add(Number(now.updateTime));
            return seenUpdates.size >= 3;
          });
          return { status: 'COMPLETED', outputData: { heartbeats: seenUpdates.size - 1 } };
        },
      },
      {
        taskDefName: unleased,
        // Holds the task until the server gives up on it; the late result must not revive it.
        execute: async (t: Task) => {
          await eventually(async () => (await h.executor.getTask(t.taskId!)).status === 'TIMED_OUT');
          return { status: 'COMPLETED', outputData: { late: true } };
        },
      },
    ]);
    try {
      const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
      const wf = await waitForWorkflow(h.executor, id, ['FAILED', 'TIMED_OUT']);
      const [first, second] = wf.tasks ?? [];
      expect(first).toMatchObject({ referenceTaskName: 'leased', status: 'COMPLETED', retryCount: 0 });
      expect(Number(first.outputData?.heartbeats)).toBeGreaterThanOrEqual(2);
      expect(second).toMatchObject({ referenceTaskName: 'unleased', status: 'TIMED_OUT' });
      expect(second.outputData).not.toHaveProperty('late');
      expect(wf.tasks).toHaveLength(2);
      // The late COMPLETED for the timed-out task is ignored by the server, not refused: the SDK saw no update error.
      await eventually(async () => workers.updatedTaskIds.includes(second.taskId!) || workers.errors.length > 0);
      expect(workers.errors).toEqual([]);
      expect(await h.executor.getTask(second.taskId!)).toMatchObject({ status: 'TIMED_OUT' });
    } finally {
      await workers.stop();
    }
  });
});
