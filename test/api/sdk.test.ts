import { TaskRunner, humanTask, simpleTask, taskDefinition, workflow, type Task, type WorkflowDef } from '@io-orkes/conductor-javascript';
import { taskOf } from '../support/api-client';
import { eventually } from '../support/baton';
import { startSdkHarness, uniqueName, waitForTask, waitForWorkflow, type SdkHarness } from '../support/sdk';

// Baton driven only through the official Conductor JS SDK (4.0.0): metadata, workers, executor and task clients.

let h: SdkHarness;

beforeAll(async () => {
  h = await startSdkHarness();
});

afterAll(async () => {
  await h?.stop();
});

/** A linear workflow of SIMPLE tasks named `taskName`, refs t1..tn, each passing `${workflow.input.n}` on. */
function linearWorkflow(name: string, taskName: string, refs: string[], extra: Partial<WorkflowDef> = {}): WorkflowDef {
  return {
    ...workflow(
      name,
      refs.map((ref) => simpleTask(ref, taskName, { n: '${workflow.input.n}' })),
    ),
    ...extra,
  };
}

/** A workflow whose only task is the SDK's HUMAN builder output (ref `approval`), with extra task input. */
function humanWorkflow(name: string, input: Record<string, unknown> = {}, outputParameters: Record<string, unknown> = {}): WorkflowDef {
  const human = humanTask('approval', { displayName: 'Approve' });
  return {
    name,
    version: 1,
    tasks: [{ ...human, inputParameters: { ...human.inputParameters, ...input } }],
    inputParameters: [],
    outputParameters,
    timeoutSeconds: 0,
  };
}

describe('MetadataClient', () => {
  test('registers task definitions one by one and in bulk, then reads every field back', async () => {
    const one = uniqueName('sdk_meta_task');
    const bulk = [uniqueName('sdk_meta_bulk'), uniqueName('sdk_meta_bulk')];
    const fields = {
      name: one,
      description: 'registered by the SDK test',
      retryCount: 2,
      retryLogic: 'LINEAR_BACKOFF',
      retryDelaySeconds: 3,
      timeoutSeconds: 120,
      responseTimeoutSeconds: 30,
      timeoutPolicy: 'TIME_OUT_WF',
      inputKeys: ['a'],
      outputKeys: ['b'],
      concurrentExecLimit: 4,
      rateLimitPerFrequency: 10,
      rateLimitFrequencyInSeconds: 5,
      pollTimeoutSeconds: 60,
      backoffScaleFactor: 2,
      inputTemplate: { a: 1 },
    } as const;
    await h.metadata.registerTask(
      taskDefinition({ ...fields, inputKeys: [...fields.inputKeys], outputKeys: [...fields.outputKeys], ownerEmail: 'sdk@example.com' }),
    );
    await h.metadata.registerTasks(bulk.map((name) => taskDefinition({ name, retryCount: 0 })));

    // Every field comes back as registered.
    expect(await h.metadata.getTask(one)).toMatchObject(fields);
    for (const name of bulk) expect(await h.metadata.getTask(name)).toMatchObject({ name, retryCount: 0 });
    const all = (await h.metadata.getAllTaskDefs()).map((d) => d.name);
    expect(all).toEqual(expect.arrayContaining([one, ...bulk]));

    await h.metadata.updateTask(taskDefinition({ name: one, retryCount: 5, description: 'updated' }));
    expect(await h.metadata.getTask(one)).toMatchObject({ retryCount: 5, description: 'updated' });

    await h.metadata.unregisterTask(bulk[0]);
    await expect(h.metadata.getTask(bulk[0])).rejects.toThrow();
    await expect(h.metadata.unregisterTask(bulk[0])).rejects.toThrow();
  });

  test('registers a workflow definition, overwrites it, and reads it back', async () => {
    const name = uniqueName('sdk_meta_wf');
    const def = linearWorkflow(name, uniqueName('sdk_meta_wf_task'), ['t1', 't2'], { description: 'first', outputParameters: { r: '${t2.output}' } });
    await h.metadata.registerWorkflowDef(def);
    expect(await h.metadata.getWorkflowDef(name, 1)).toMatchObject({ name, version: 1, description: 'first' });

    await h.metadata.registerWorkflowDef({ ...def, description: 'second', timeoutSeconds: 600 }, true);
    const back = await h.metadata.getWorkflowDef(name);
    expect(back).toMatchObject({ name, version: 1, description: 'second', timeoutSeconds: 600, outputParameters: { r: '${t2.output}' } });
    expect(back.tasks.map((t) => [t.taskReferenceName, t.type])).toEqual([
      ['t1', 'SIMPLE'],
      ['t2', 'SIMPLE'],
    ]);
    expect((await h.metadata.getAllWorkflowDefs()).some((d) => d.name === name)).toBe(true);

    await expect(h.metadata.getWorkflowDef(uniqueName('sdk_meta_missing'))).rejects.toThrow();
    await h.metadata.unregisterWorkflow(name, 1);
    await expect(h.metadata.getWorkflowDef(name, 1)).rejects.toThrow();
  });
});

describe('TaskManager workers with WorkflowExecutor', () => {
  test('two workers run a three-task SIMPLE workflow, each step feeding the next', async () => {
    const doubler = uniqueName('sdk_double');
    const incrementer = uniqueName('sdk_increment');
    const name = uniqueName('sdk_chain');
    await h.executor.registerWorkflow(true, {
      ...workflow(name, [
        simpleTask('t1', doubler, { x: '${workflow.input.x}' }),
        simpleTask('t2', incrementer, { y: '${t1.output.doubled}' }),
        simpleTask('t3', doubler, { x: '${t2.output.plusOne}' }),
      ]),
      outputParameters: { result: '${t3.output.doubled}', middle: '${t2.output.plusOne}' },
    });
    const workers = h.startWorkers(
      [
        {
          taskDefName: doubler,
          concurrency: 3,
          pollInterval: 50,
          execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { doubled: Number(t.inputData?.x) * 2 } }),
        },
        {
          taskDefName: incrementer,
          concurrency: 2,
          pollInterval: 50,
          execute: async (t: Task) => ({ status: 'COMPLETED', outputData: { plusOne: Number(t.inputData?.y) + 1 } }),
        },
      ],
      { concurrency: 2 },
    );
    try {
      const inputs = [1, 5, 10, 21];
      const ids = await Promise.all(inputs.map((x, i) => h.executor.startWorkflow({ name, version: 1, input: { x }, correlationId: `corr-${i}` })));
      expect(new Set(ids).size).toBe(inputs.length);

      for (const [i, id] of ids.entries()) {
        const x = inputs[i];
        const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
        expect(wf.correlationId).toBe(`corr-${i}`);
        expect(wf.output).toEqual({ result: (x * 2 + 1) * 2, middle: x * 2 + 1 });
        const tasks = wf.tasks ?? [];
        expect(tasks.map((t) => [t.referenceTaskName, t.taskType, t.status])).toEqual([
          ['t1', doubler, 'COMPLETED'],
          ['t2', incrementer, 'COMPLETED'],
          ['t3', doubler, 'COMPLETED'],
        ]);
        expect(tasks[0]).toMatchObject({ inputData: { x }, outputData: { doubled: x * 2 }, workerId: 'sdk-test-worker' });
        expect(tasks[1]).toMatchObject({ inputData: { y: x * 2 }, outputData: { plusOne: x * 2 + 1 } });
        expect(tasks[2]).toMatchObject({ inputData: { x: x * 2 + 1 }, outputData: { doubled: (x * 2 + 1) * 2 } });

        const status = await h.executor.getWorkflowStatus(id, true, false);
        expect(status).toMatchObject({ workflowId: id, status: 'COMPLETED', output: { result: (x * 2 + 1) * 2 } });
      }
      // The runner probes update-v2 once per process and falls back to POST /api/tasks only on 404/405.
      expect((TaskRunner as unknown as { updateV2Available: boolean | null }).updateV2Available).toBe(true);
      expect(workers.errors).toEqual([]);
    } finally {
      await workers.stop();
    }
  });

  test('a worker that throws fails the task, which is retried per its definition and then succeeds', async () => {
    const taskName = uniqueName('sdk_flaky');
    const name = uniqueName('sdk_retry_wf');
    await h.metadata.registerTask(taskDefinition({ name: taskName, retryCount: 1, retryDelaySeconds: 0, retryLogic: 'FIXED' }));
    await h.executor.registerWorkflow(true, {
      ...workflow(name, [simpleTask('flaky', taskName, { n: '${workflow.input.n}' })]),
      outputParameters: { n: '${flaky.output.n}' },
    });
    const seen: Array<{ taskId: string; retryCount: number }> = [];
    const workers = h.startWorkers([
      {
        taskDefName: taskName,
        execute: async (t: Task) => {
          seen.push({ taskId: t.taskId!, retryCount: t.retryCount ?? -1 });
          if ((t.retryCount ?? 0) === 0) throw new Error('first attempt breaks');
          return { status: 'COMPLETED', outputData: { n: t.inputData?.n, attempt: t.retryCount } };
        },
      },
    ]);
    try {
      const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 7 } });
      const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
      expect(wf.output).toEqual({ n: 7 });
      const attempts = (wf.tasks ?? []).filter((t) => t.referenceTaskName === 'flaky');
      expect(attempts.map((t) => [t.status, t.retryCount])).toEqual([
        ['FAILED', 0],
        ['COMPLETED', 1],
      ]);
      expect(attempts[0].reasonForIncompletion).toContain('first attempt breaks');
      expect(attempts[0].retried).toBe(true);
      expect(attempts[1].outputData).toEqual({ n: 7, attempt: 1 });
      expect(seen.map((s) => s.retryCount)).toEqual([0, 1]);
      expect(seen[0].taskId).not.toBe(seen[1].taskId);
      // onError saw the worker's exception only: no result update was refused.
      expect(workers.errors.map((e) => (e as Error).message)).toEqual(['first attempt breaks']);
      // The runner sends the stack trace as a task log with the FAILED result.
      const logs = await h.tasks.getTaskLogs(attempts[0].taskId!);
      expect(logs.some((l) => String(l.log).includes('first attempt breaks'))).toBe(true);
    } finally {
      await workers.stop();
    }
  });

  test('a worker answering IN_PROGRESS with callbackAfterSeconds gets the same task again later', async () => {
    const taskName = uniqueName('sdk_callback');
    const name = uniqueName('sdk_callback_wf');
    await h.executor.registerWorkflow(true, { ...workflow(name, [simpleTask('slow', taskName, {})]), outputParameters: { phase: '${slow.output.phase}' } });
    const deliveries: Array<{ taskId: string; at: number; pollCount: number }> = [];
    const workers = h.startWorkers([
      {
        taskDefName: taskName,
        execute: async (t: Task) => {
          deliveries.push({ taskId: t.taskId!, at: Date.now(), pollCount: t.pollCount ?? 0 });
          if (deliveries.filter((d) => d.taskId === t.taskId).length === 1)
            return { status: 'IN_PROGRESS', callbackAfterSeconds: 1, outputData: { phase: 'waiting' } };
          return { status: 'COMPLETED', outputData: { phase: 'done' } };
        },
      },
    ]);
    try {
      const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
      const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
      expect(wf.output).toEqual({ phase: 'done' });
      const tasks = wf.tasks ?? [];
      expect(tasks).toHaveLength(1);
      expect(tasks[0]).toMatchObject({ status: 'COMPLETED', outputData: { phase: 'done' }, retryCount: 0 });
      expect(tasks[0].pollCount).toBeGreaterThanOrEqual(2);
      expect(deliveries).toHaveLength(2);
      expect(deliveries[1].taskId).toBe(deliveries[0].taskId);
      // Correctness of the postponement, not speed: the task must not come back before its callback delay.
      expect(deliveries[1].at - deliveries[0].at).toBeGreaterThanOrEqual(900);
    } finally {
      await workers.stop();
    }
  });
});

describe('TaskManager under a backlog and with domains', () => {
  test('a backlog of workflows is worked off with every task delivered exactly once (update-v2 chaining)', async () => {
    const taskName = uniqueName('sdk_backlog');
    const name = uniqueName('sdk_backlog_wf');
    await h.executor.registerWorkflow(true, {
      ...workflow(name, [
        simpleTask('s1', taskName, { v: '${workflow.input.v}' }),
        simpleTask('s2', taskName, { v: '${s1.output.v}' }),
        simpleTask('s3', taskName, { v: '${s2.output.v}' }),
      ]),
      outputParameters: { v: '${s3.output.v}' },
    });
    // Started before any worker exists, so the first polls and update-v2 answers find a full queue.
    const ids = await Promise.all(Array.from({ length: 20 }, (_, v) => h.executor.startWorkflow({ name, version: 1, input: { v } })));
    const delivered: string[] = [];
    const workers = h.startWorkers([
      {
        taskDefName: taskName,
        concurrency: 4,
        execute: async (t: Task) => {
          delivered.push(t.taskId!);
          return { status: 'COMPLETED', outputData: { v: Number(t.inputData?.v) + 100 } };
        },
      },
    ]);
    try {
      for (const [v, id] of ids.entries()) expect((await waitForWorkflow(h.executor, id, 'COMPLETED')).output).toEqual({ v: v + 300 });
      expect(delivered).toHaveLength(60);
      expect(new Set(delivered).size).toBe(60);
      expect(workers.errors).toEqual([]);
    } finally {
      await workers.stop();
    }
  });

  test('taskToDomain routes a task to the worker polling that domain only', async () => {
    const taskName = uniqueName('sdk_domain');
    const name = uniqueName('sdk_domain_wf');
    await h.executor.registerWorkflow(true, workflow(name, [simpleTask('d1', taskName, {})]));
    const seenBy: Array<{ worker: string; domain: string | undefined }> = [];
    const plain = h.startWorkers([
      {
        taskDefName: taskName,
        execute: async (t: Task) => (seenBy.push({ worker: 'plain', domain: t.domain }), { status: 'COMPLETED', outputData: { by: 'plain' } }),
      },
    ]);
    const blue = h.startWorkers([
      {
        taskDefName: taskName,
        domain: 'blue',
        execute: async (t: Task) => (seenBy.push({ worker: 'blue', domain: t.domain }), { status: 'COMPLETED', outputData: { by: 'blue' } }),
      },
    ]);
    try {
      const inBlue = await h.executor.startWorkflow({ name, version: 1, input: {}, taskToDomain: { [taskName]: 'blue' } });
      const noDomain = await h.executor.startWorkflow({ name, version: 1, input: {} });
      const blueWf = await waitForWorkflow(h.executor, inBlue, 'COMPLETED');
      expect(blueWf.tasks?.[0]).toMatchObject({ domain: 'blue', outputData: { by: 'blue' } });
      const plainWf = await waitForWorkflow(h.executor, noDomain, 'COMPLETED');
      expect(plainWf.tasks?.[0].outputData).toEqual({ by: 'plain' });
      expect(plainWf.tasks?.[0].domain ?? null).toBeNull();
      expect(seenBy).toEqual(expect.arrayContaining([{ worker: 'blue', domain: 'blue' }]));
      expect(seenBy.filter((s) => s.worker === 'plain' && s.domain === 'blue')).toEqual([]);
    } finally {
      await Promise.all([plain.stop(), blue.stop()]);
    }
  });

  test('getWorkflowStatus returns output and variables on request', async () => {
    const name = uniqueName('sdk_status_wf');
    await h.executor.registerWorkflow(true, {
      ...workflow(name, [{ name: 'set', taskReferenceName: 'set', type: 'SET_VARIABLE' as never, inputParameters: { colour: '${workflow.input.colour}' } }]),
      outputParameters: { colour: '${workflow.variables.colour}' },
    });
    const id = await h.executor.startWorkflow({ name, version: 1, input: { colour: 'green' }, correlationId: 'status-corr' });
    await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(await h.executor.getWorkflowStatus(id, true, true)).toMatchObject({
      workflowId: id,
      correlationId: 'status-corr',
      status: 'COMPLETED',
      output: { colour: 'green' },
      variables: { colour: 'green' },
    });
    const bare = await h.executor.getWorkflowStatus(id, false, false);
    expect(bare.status).toBe('COMPLETED');
    expect(bare.output ?? null).toBeNull();
    expect(bare.variables ?? null).toBeNull();
  });
});

describe('WorkflowExecutor management (tasks completed through the executor, no worker)', () => {
  test('pause holds scheduling, resume continues, terminate records the reason, restart starts over', async () => {
    const taskName = uniqueName('sdk_manual');
    const name = uniqueName('sdk_pause_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1', 't2']));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 1 } });
    await waitForTask(h.executor, id, 't1', ['SCHEDULED']);

    await h.executor.pause(id);
    expect((await h.executor.getWorkflowStatus(id, false, false)).status).toBe('PAUSED');
    await h.executor.updateTaskByRefName('t1', id, 'COMPLETED', { done: 1 });
    const paused = await h.executor.getWorkflow(id, true);
    expect(paused.status).toBe('PAUSED');
    expect((paused.tasks ?? []).map((t) => t.referenceTaskName)).toEqual(['t1']);

    await h.executor.resume(id);
    await waitForTask(h.executor, id, 't2', ['SCHEDULED']);
    expect((await h.executor.getWorkflow(id, false)).status).toBe('RUNNING');

    await h.executor.terminate(id, 'stopped by the SDK test');
    const terminated = await waitForWorkflow(h.executor, id, 'TERMINATED');
    expect(terminated.reasonForIncompletion).toContain('stopped by the SDK test');
    expect((terminated.tasks ?? []).find((t) => t.referenceTaskName === 't2')?.status).toBe('CANCELED');

    await h.executor.restart(id, false);
    const restarted = await waitForWorkflow(h.executor, id, 'RUNNING');
    expect((restarted.tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([['t1', 'SCHEDULED']]);
    await h.executor.terminate(id, 'cleanup');
  });

  test('retry after a FAILED task reschedules it and the workflow can complete', async () => {
    const taskName = uniqueName('sdk_failing');
    const name = uniqueName('sdk_retry_api_wf');
    await h.metadata.registerTask(taskDefinition({ name: taskName, retryCount: 0 }));
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1']));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 2 } });
    const t1 = await waitForTask(h.executor, id, 't1', ['SCHEDULED']);

    const updated = await h.executor.updateTask(t1.taskId!, id, 'FAILED', { why: 'manual failure' });
    expect(updated).toBe(t1.taskId);
    const failed = await waitForWorkflow(h.executor, id, 'FAILED');
    expect(failed.tasks?.[0]?.status).toBe('FAILED');

    await h.executor.retry(id, false);
    await waitForWorkflow(h.executor, id, 'RUNNING');
    const again = await waitForTask(h.executor, id, 't1', ['SCHEDULED']);
    expect(again.taskId).not.toBe(t1.taskId);

    await h.executor.updateTaskByRefName('t1', id, 'COMPLETED', { ok: true });
    const done = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect((done.tasks ?? []).map((t) => t.status)).toEqual(['FAILED', 'COMPLETED']);
  });

  test('rerun from a task keeps earlier tasks; rerun with new input starts over', async () => {
    const taskName = uniqueName('sdk_rerun');
    const name = uniqueName('sdk_rerun_wf');
    await h.executor.registerWorkflow(true, { ...linearWorkflow(name, taskName, ['t1', 't2']), outputParameters: { last: '${t2.output.v}' } });
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 1 } });
    await waitForTask(h.executor, id, 't1', ['SCHEDULED']);
    await h.executor.updateTaskByRefName('t1', id, 'COMPLETED', { v: 'one' });
    await waitForTask(h.executor, id, 't2', ['SCHEDULED']);
    await h.executor.updateTaskByRefName('t2', id, 'COMPLETED', { v: 'two' });
    const first = await waitForWorkflow(h.executor, id, 'COMPLETED');
    const [t1, t2] = first.tasks ?? [];

    const rerunId = await h.executor.reRun(id, { reRunFromTaskId: t2.taskId, taskInput: { n: 99 } });
    expect(rerunId).toBe(id);
    const rerun = await waitForWorkflow(h.executor, id, 'RUNNING');
    const rerunTasks = rerun.tasks ?? [];
    expect(rerunTasks.find((t) => t.referenceTaskName === 't1')).toMatchObject({ taskId: t1.taskId, status: 'COMPLETED', outputData: { v: 'one' } });
    // The rerun task is reset in place (same id, output cleared, new input), as OSS does.
    const newT2 = await waitForTask(h.executor, id, 't2', ['SCHEDULED']);
    expect(newT2.taskId).toBe(t2.taskId);
    expect(newT2.inputData).toEqual({ n: 99 });
    expect(newT2.outputData ?? {}).toEqual({});
    expect(rerunTasks.filter((t) => t.referenceTaskName === 't2')).toHaveLength(1);
    await h.executor.updateTaskByRefName('t2', id, 'COMPLETED', { v: 'two again' });
    expect((await waitForWorkflow(h.executor, id, 'COMPLETED')).output).toEqual({ last: 'two again' });

    expect(await h.executor.reRun(id, { workflowInput: { n: 5 } })).toBe(id);
    const fresh = await waitForWorkflow(h.executor, id, 'RUNNING');
    expect(fresh.input).toEqual({ n: 5 });
    const freshT1 = await waitForTask(h.executor, id, 't1', ['SCHEDULED']);
    expect(freshT1.inputData).toEqual({ n: 5 });
    await h.executor.terminate(id, 'cleanup');
  });

  test('skipping a task that is not scheduled yet marks it SKIPPED when its turn comes', async () => {
    const taskName = uniqueName('sdk_skip');
    const name = uniqueName('sdk_skip_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1', 't2', 't3']));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 3 } });
    await waitForTask(h.executor, id, 't1', ['SCHEDULED']);

    await h.executor.skipTasksFromWorkflow(id, 't2', { taskOutput: { skipped: true } });
    await h.executor.updateTaskByRefName('t1', id, 'COMPLETED', {});
    await waitForTask(h.executor, id, 't3', ['SCHEDULED']);
    expect(taskOf(await h.executor.getWorkflow(id, true), 't2').status).toBe('SKIPPED');
    await h.executor.updateTaskByRefName('t3', id, 'COMPLETED', {});
    const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
    // Listed first, as Conductor numbers a task skipped before it was scheduled 0.
    expect((wf.tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['t2', 'SKIPPED'],
      ['t1', 'COMPLETED'],
      ['t3', 'COMPLETED'],
    ]);
  });

  test('skipping the task the workflow waits on: SKIPPED with the given output, the next task scheduled', async () => {
    const taskName = uniqueName('sdk_skipnow');
    const name = uniqueName('sdk_skipnow_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1', 't2']));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 2 } });
    await waitForTask(h.executor, id, 't1', ['SCHEDULED']);

    await h.executor.skipTasksFromWorkflow(id, 't1', { taskOutput: { skipped: 'now' } });
    await waitForTask(h.executor, id, 't2', ['SCHEDULED']);
    expect(taskOf(await h.executor.getWorkflow(id, true), 't1')).toMatchObject({ status: 'SKIPPED', outputData: { skipped: 'now' } });
    // A second skip of the same (now ended) task is refused.
    await expect(h.executor.skipTasksFromWorkflow(id, 't1', {})).rejects.toThrow();
    await h.executor.updateTaskByRefName('t2', id, 'COMPLETED', {});
    await waitForWorkflow(h.executor, id, 'COMPLETED');
  });

  test('search finds workflows by type and status', async () => {
    const taskName = uniqueName('sdk_search');
    const name = uniqueName('sdk_search_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1']));
    const ids = await Promise.all([0, 1, 2].map((i) => h.executor.startWorkflow({ name, version: 1, input: { n: i }, correlationId: `search-${i}` })));
    await h.executor.terminate(ids[0], 'to be found as TERMINATED');

    const all = await eventually(async () => {
      const r = await h.executor.search(0, 10, `workflowType IN (${name})`, '*');
      return r.totalHits === 3 ? r : undefined;
    });
    expect((all.results ?? []).map((s) => s.workflowId).sort()).toEqual([...ids].sort());
    expect(all.results?.[0]).toMatchObject({ workflowType: name, version: 1 });

    const terminated = await eventually(async () => {
      const r = await h.executor.search(0, 10, `workflowType IN (${name}) AND status IN (TERMINATED)`, '*');
      return r.totalHits === 1 ? r : undefined;
    });
    expect(terminated.results?.[0]).toMatchObject({ workflowId: ids[0], status: 'TERMINATED', correlationId: 'search-0' });
    await Promise.all(ids.slice(1).map((id) => h.executor.terminate(id, 'cleanup')));
  });

  test('HUMAN task: getTask, an IN_PROGRESS update by ref name, then completion by task id', async () => {
    const name = uniqueName('sdk_human_wf');
    await h.executor.registerWorkflow(true, humanWorkflow(name, { who: '${workflow.input.who}' }, { approved: '${approval.output.approved}' }));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { who: 'ana' } });
    const human = await waitForTask(h.executor, id, 'approval', ['IN_PROGRESS', 'SCHEDULED']);
    const fetched = await h.executor.getTask(human.taskId!);
    expect(fetched).toMatchObject({
      taskId: human.taskId,
      taskType: 'HUMAN',
      referenceTaskName: 'approval',
      workflowInstanceId: id,
      inputData: { who: 'ana' },
    });

    const byRef = await h.executor.updateTaskByRefName('approval', id, 'IN_PROGRESS', { draft: 'looks fine' });
    expect(byRef).toBe(human.taskId);
    const pending = await h.executor.getTask(human.taskId!);
    expect(pending).toMatchObject({ status: 'IN_PROGRESS', outputData: { draft: 'looks fine' } });
    expect((await h.executor.getWorkflow(id, false)).status).toBe('RUNNING');

    expect(await h.executor.updateTask(human.taskId!, id, 'COMPLETED', { approved: true })).toBe(human.taskId);
    const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(wf.output).toEqual({ approved: true });
    expect(await h.executor.getTask(human.taskId!)).toMatchObject({ status: 'COMPLETED', outputData: { approved: true } });
  });

  test('updateTaskSync completes a HUMAN task and answers with the workflow', async () => {
    const name = uniqueName('sdk_human_sync_wf');
    await h.executor.registerWorkflow(true, humanWorkflow(name));
    const viaExecutor = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const viaTaskClient = await h.executor.startWorkflow({ name, version: 1, input: {} });
    await waitForTask(h.executor, viaExecutor, 'approval', ['IN_PROGRESS', 'SCHEDULED']);
    await waitForTask(h.executor, viaTaskClient, 'approval', ['IN_PROGRESS', 'SCHEDULED']);

    // The JS SDK's WorkflowExecutor wraps the output as {taskOutput: ...}; the body is stored as the task's output map.
    const wf1 = await h.executor.updateTaskSync('approval', viaExecutor, 'COMPLETED' as never, { ok: 1 });
    expect(wf1).toMatchObject({ workflowId: viaExecutor, status: 'COMPLETED' });
    expect(wf1.tasks?.[0]).toMatchObject({ status: 'COMPLETED', outputData: { taskOutput: { ok: 1 } } });

    const wf2 = await h.tasks.updateTaskSync(viaTaskClient, 'approval', 'COMPLETED', { ok: 2 }, 'sdk-sync-worker');
    expect(wf2).toMatchObject({ workflowId: viaTaskClient, status: 'COMPLETED' });
    expect(wf2.tasks?.[0]).toMatchObject({ status: 'COMPLETED', outputData: { ok: 2 } });

    await expect(h.tasks.updateTaskSync(uniqueName('no-such-workflow'), 'approval', 'COMPLETED', {})).rejects.toThrow();
  });

  test('unknown ids and names are rejected with the server message', async () => {
    const missing = uniqueName('missing-wf');
    await expect(h.executor.getWorkflow(missing, true)).rejects.toThrow(missing);
    await expect(h.executor.getTask(uniqueName('missing-task'))).rejects.toThrow();
    const unregistered = uniqueName('sdk_not_registered');
    await expect(h.executor.startWorkflow({ name: unregistered, version: 1, input: {} })).rejects.toThrow(unregistered);
    await expect(h.metadata.unregisterWorkflow(unregistered, 1)).rejects.toThrow();
  });

  test('operations that do not fit the workflow state are rejected and change nothing', async () => {
    const taskName = uniqueName('sdk_invalid_ops');
    const name = uniqueName('sdk_invalid_ops_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, taskName, ['t1', 't2']));
    const id = await h.executor.startWorkflow({ name, version: 1, input: { n: 1 } });
    await waitForTask(h.executor, id, 't1', ['SCHEDULED']);

    await expect(h.executor.retry(id, false)).rejects.toThrow();
    await expect(h.executor.reRun(id, { workflowInput: { n: 2 } })).rejects.toThrow();
    await expect(h.executor.restart(id, false)).rejects.toThrow();
    await expect(h.executor.skipTasksFromWorkflow(id, 'no_such_ref', {})).rejects.toThrow();

    const wf = await h.executor.getWorkflow(id, true);
    expect(wf).toMatchObject({ status: 'RUNNING', input: { n: 1 } });
    expect((wf.tasks ?? []).map((t) => [t.referenceTaskName, t.status])).toEqual([['t1', 'SCHEDULED']]);
    await h.executor.terminate(id, 'cleanup');
    await expect(h.executor.skipTasksFromWorkflow(id, 't2', {})).rejects.toThrow();
  });
});

describe('TaskClient', () => {
  test('task logs, queue sizes, poll data and updateTaskResult', async () => {
    const queued = uniqueName('sdk_queued');
    const name = uniqueName('sdk_queue_wf');
    await h.executor.registerWorkflow(true, linearWorkflow(name, queued, ['t1']));
    const ids = await Promise.all([0, 1].map((n) => h.executor.startWorkflow({ name, version: 1, input: { n } })));
    const task = await waitForTask(h.executor, ids[0], 't1', ['SCHEDULED']);

    const sizes = await eventually(async () => {
      const s = await h.tasks.getQueueSizeForTask([queued]);
      return s[queued] === 2 ? s : undefined;
    });
    expect(sizes).toEqual({ [queued]: 2 });

    expect(await h.tasks.getTask(task.taskId!)).toMatchObject({ taskId: task.taskId, status: 'SCHEDULED', referenceTaskName: 't1' });
    await h.tasks.addTaskLog(task.taskId!, 'first line');
    await h.tasks.addTaskLog(task.taskId!, 'second line');
    const logs = await h.tasks.getTaskLogs(task.taskId!);
    expect(logs.map((l) => l.log)).toEqual(['first line', 'second line']);
    expect(logs.every((l) => l.taskId === task.taskId && typeof l.createdTime === 'number')).toBe(true);

    const found = await eventually(async () => {
      const r = await h.tasks.search(0, 10, undefined, '*', `taskType IN (${queued})`);
      return r.totalHits === 2 ? r : undefined;
    });
    expect((found.results ?? []).map((t) => t.workflowId).sort()).toEqual([...ids].sort());
    expect(found.results?.[0]).toMatchObject({ taskType: queued, taskDefName: queued, workflowType: name, status: 'SCHEDULED' });
    expect(found.results?.map((t) => t.taskId)).toContain(task.taskId);

    const returned = await h.tasks.updateTaskResult(ids[0], 't1', 'COMPLETED', { via: 'TaskClient' });
    expect(returned).toBe(task.taskId);
    await waitForWorkflow(h.executor, ids[0], 'COMPLETED');
    await eventually(async () => (await h.tasks.getQueueSizeForTask([queued]))[queued] === 1);

    // A worker's polls are recorded as poll data for its queue.
    const polled = uniqueName('sdk_polled');
    const workers = h.startWorkers([{ taskDefName: polled, execute: async () => ({ status: 'COMPLETED', outputData: {} }) }]);
    try {
      const data = await eventually(async () => {
        const d = await h.tasks.getTaskPollData(polled);
        return d.length > 0 ? d : undefined;
      });
      expect(data[0]).toMatchObject({ queueName: polled, workerId: 'sdk-test-worker' });
      expect(data[0].lastPollTime).toBeGreaterThan(0);
    } finally {
      await workers.stop();
    }
    await h.executor.terminate(ids[1], 'cleanup');
  });
});
