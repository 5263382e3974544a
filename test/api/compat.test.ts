import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';
import { allRouteTemplates } from '../../src/api/routes';

// The rest of Conductor's API over real HTTP: execute, the mocked test run (`/api/workflow/test`),
// signals, bulk operations, terminate-remove, admin, /api-docs.

let b: TestBaton;
const api = apiClient(() => b.url);

beforeAll(async () => {
  b = await startBaton({ CASSANDRA_PASSWORD: 'hunter2', APP_API_TOKEN: 'app-token-value', REDIS_URL: 'redis://alice:s3cret@127.0.0.1:6379' });
});
afterAll(async () => {
  await b?.stop();
});

/** A workflow of one worker task of a fresh type, started once. */
async function startOneTask(prefix: string): Promise<{ name: string; type: string; id: string }> {
  const name = api.uniq(prefix);
  const type = api.uniq(`${prefix}_t`);
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'x' }] });
  return { name, type, id: await api.start(name) };
}

/** A parent whose SUB_WORKFLOW child waits in two HUMAN tasks. */
async function registerNestedHumans(): Promise<{ parent: string; child: string }> {
  const child = api.uniq('child');
  await api.register({
    name: child,
    tasks: [
      { name: 'h1', taskReferenceName: 'h1', type: 'HUMAN' },
      { name: 'h2', taskReferenceName: 'h2', type: 'HUMAN', inputParameters: { prev: '${h1.output.answer}' } },
    ],
    outputParameters: { answer: '${h2.output.answer}' },
  });
  const parent = api.uniq('parent');
  await api.register({
    name: parent,
    tasks: [{ name: 'call', taskReferenceName: 'call', type: 'SUB_WORKFLOW', subWorkflowParam: { name: child, version: 1 } }],
    outputParameters: { answer: '${call.output.answer}' },
  });
  return { parent, child };
}

describe('POST /api/workflow/execute/{name}/{version}', () => {
  test('answers when the execution blocks in a WAIT task, with the WorkflowRun fields and the request id', async () => {
    const name = api.uniq('exec_wait');
    await api.register({
      name,
      tasks: [
        { name: 'set', taskReferenceName: 'set', type: 'SET_VARIABLE', inputParameters: { k: '${workflow.input.k}' } },
        { name: 'gate', taskReferenceName: 'gate', type: 'WAIT' },
      ],
    });
    const r = await api.call('POST', `/api/workflow/execute/${name}/1?requestId=req-1`, { input: { k: 'v' }, correlationId: 'corr' });
    expect(r.status).toBe(200);
    expect(r.contentType).toContain('application/json');
    expect(r.body).toMatchObject({
      responseType: 'TARGET_WORKFLOW',
      requestId: 'req-1',
      targetWorkflowStatus: 'RUNNING',
      status: 'RUNNING',
      correlationId: 'corr',
      input: { k: 'v' },
      variables: { k: 'v' },
      signalTimeout: false,
    });
    expect(r.body.workflowId).toBe(r.body.targetWorkflowId);
    expect(r.body.tasks.map((t: any) => [t.referenceTaskName, t.status])).toEqual([
      ['set', 'COMPLETED'],
      ['gate', 'IN_PROGRESS'],
    ]);
  });

  test('blocking strategies descend into the running sub-workflow', async () => {
    const { parent, child } = await registerNestedHumans();
    const task = await api.call('POST', `/api/workflow/execute/${parent}/1?returnStrategy=BLOCKING_TASK`, { input: {} });
    expect(task.body).toMatchObject({
      responseType: 'BLOCKING_TASK',
      taskType: 'HUMAN',
      referenceTaskName: 'h1',
      status: 'IN_PROGRESS',
      workflowType: child,
      targetWorkflowStatus: 'RUNNING',
      output: {},
    });
    expect(task.body.workflowId).not.toBe(task.body.targetWorkflowId);
    expect((await api.workflow(task.body.workflowId)).parentWorkflowId).toBe(task.body.targetWorkflowId);

    const flow = await api.call('POST', `/api/workflow/execute/${parent}/1?returnStrategy=BLOCKING_WORKFLOW`, { input: {} });
    expect(flow.body.responseType).toBe('BLOCKING_WORKFLOW');
    expect(flow.body.tasks.map((t: any) => t.referenceTaskName)).toEqual(['h1']);
    expect((await api.workflow(flow.body.workflowId)).workflowName).toBe(child);

    const input = await api.call('POST', `/api/workflow/execute/${parent}/1?returnStrategy=BLOCKING_TASK_INPUT`, { input: {} });
    expect(input.body).toMatchObject({ responseType: 'BLOCKING_TASK_INPUT', referenceTaskName: 'h1', input: {} });
    expect(input.body).not.toHaveProperty('output');
  });

  test('waitUntilTaskRef answers once that task ends, before the execution does', async () => {
    const name = api.uniq('exec_until');
    const type = api.uniq('exec_worker');
    await api.register({
      name,
      tasks: [
        { name: type, taskReferenceName: 'first', type: 'SIMPLE' },
        { name: type, taskReferenceName: 'second', type: 'SIMPLE' },
      ],
    });
    const pending = api.call('POST', `/api/workflow/execute/${name}/1?waitUntilTaskRef=first,other&waitForSeconds=30`, { input: {} });
    const first = await api.pollOne(type);
    expect(first.referenceTaskName).toBe('first');
    await api.complete(first, { done: 1 });
    const r = await pending;
    expect(r.body).toMatchObject({ status: 'RUNNING', signalTimeout: false });
    expect(r.body.tasks.map((t: any) => [t.referenceTaskName, t.status])).toEqual([
      ['first', 'COMPLETED'],
      ['second', 'SCHEDULED'],
    ]);
  });

  test('after waitForSeconds it answers the current state with signalTimeout', async () => {
    const name = api.uniq('exec_slow');
    await api.register({ name, tasks: [{ name: api.uniq('nobody_polls'), taskReferenceName: 'slow', type: 'SIMPLE' }] });
    const r = await api.call('POST', `/api/workflow/execute/${name}/1?waitForSeconds=1`, { input: {} });
    expect(r.body).toMatchObject({ status: 'RUNNING', signalTimeout: true, tasks: [{ referenceTaskName: 'slow', status: 'SCHEDULED' }] });
  });

  test('version 0 is the latest version; the path names the workflow', async () => {
    const name = api.uniq('exec_versions');
    for (const version of [1, 2])
      await api.register({ name, version, tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }], outputParameters: { version } });
    expect((await api.call('POST', `/api/workflow/execute/${name}/1`, { name: 'ignored', input: {} })).body).toMatchObject({
      status: 'COMPLETED',
      output: { version: 1 },
    });
    expect((await api.call('POST', `/api/workflow/execute/${name}/0`, {})).body).toMatchObject({ status: 'COMPLETED', output: { version: 2 } });
  });

  test('bad requests are refused and start nothing', async () => {
    const name = api.uniq('exec_bad');
    await api.register({ name, tasks: [{ name: 'gate', taskReferenceName: 'gate', type: 'WAIT' }] });
    expect((await api.call('POST', `/api/workflow/execute/${api.uniq('unknown')}/1`, {})).status).toBe(404);
    expect((await api.call('POST', `/api/workflow/execute/${name}/1?returnStrategy=SOMETHING`, {})).status).toBe(400);
    expect((await api.call('POST', `/api/workflow/execute/${name}/x`, {})).status).toBe(400);
    expect((await api.call('POST', `/api/workflow/execute/${name}/1?waitForSeconds=-1`, {})).status).toBe(400);
    expect((await api.call('POST', `/api/workflow/execute/${name}/1`, { input: 'not an object' })).status).toBe(400);
    expect((await api.call('GET', `/api/workflow/running/${name}`)).body).toEqual([]);
  });
});

describe('signals', () => {
  test('POST .../{status}/signal completes the waiting task with the body as output', async () => {
    const name = api.uniq('signal_async');
    await api.register({ name, tasks: [{ name: 'gate', taskReferenceName: 'gate', type: 'WAIT' }], outputParameters: { got: '${gate.output.value}' } });
    const id = await api.start(name);
    await api.waitForTask(id, 'gate', 'IN_PROGRESS');
    const r = await api.call('POST', `/api/tasks/${id}/COMPLETED/signal`, { value: 42 });
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
    expect((await api.waitForStatus(id, 'COMPLETED')).output).toEqual({ got: 42 });
  });

  test('signal/sync reaches into the sub-workflow and answers at the next blocking point', async () => {
    const { parent } = await registerNestedHumans();
    const id = await api.start(parent);
    await eventually(async () => (await api.workflow(id)).tasks[0]?.subWorkflowId);
    const childId = (await api.workflow(id)).tasks[0].subWorkflowId;
    await api.waitForTask(childId, 'h1', 'IN_PROGRESS');

    const first = await api.call('POST', `/api/task/${id}/COMPLETED/signal/sync?returnStrategy=BLOCKING_TASK`, { answer: 'yes' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({
      responseType: 'BLOCKING_TASK',
      referenceTaskName: 'h2',
      workflowId: childId,
      targetWorkflowId: id,
      input: { prev: 'yes' },
      signalTimeout: false,
    });

    const second = await api.call('POST', `/api/tasks/${id}/COMPLETED/signal/sync`, { answer: 'done' });
    expect(second.body).toMatchObject({ responseType: 'TARGET_WORKFLOW', workflowId: id, status: 'COMPLETED', output: { answer: 'done' } });
  });

  test('an IN_PROGRESS signal updates the task and leaves it waiting', async () => {
    const name = api.uniq('signal_progress');
    await api.register({ name, tasks: [{ name: 'gate', taskReferenceName: 'gate', type: 'HUMAN' }] });
    const id = await api.start(name);
    await api.waitForTask(id, 'gate', 'IN_PROGRESS');
    const r = await api.call('POST', `/api/tasks/${id}/IN_PROGRESS/signal/sync?returnStrategy=BLOCKING_TASK`, { step: 1 });
    expect(r.body).toMatchObject({ responseType: 'BLOCKING_TASK', referenceTaskName: 'gate', status: 'IN_PROGRESS', output: { step: 1 } });
  });

  test('nothing waiting: signal/sync is a 404, the asynchronous signal is acknowledged (Orkes) and changes nothing; an unknown workflow or a bad status is refused', async () => {
    const name = api.uniq('signal_none');
    await api.register({ name, tasks: [{ name: api.uniq('worker'), taskReferenceName: 'w', type: 'SIMPLE' }] });
    const id = await api.start(name);
    expect((await api.call('POST', `/api/tasks/${id}/COMPLETED/signal/sync`, {})).status).toBe(404);
    expect((await api.call('POST', `/api/tasks/${id}/COMPLETED/signal`, {})).status).toBe(200);
    expect((await api.call('POST', `/api/tasks/${api.uniq('nope')}/COMPLETED/signal`, {})).status).toBe(404);
    expect((await api.call('POST', `/api/tasks/${id}/DONE/signal`, {})).status).toBe(400);
    expect((await api.workflow(id)).tasks[0].status).toBe('SCHEDULED');
  });
});

describe('POST /api/workflow/test', () => {
  test('mocks drive worker tasks in order, a failed mock is retried by the next one, operators decide themselves', async () => {
    const name = api.uniq('mocked');
    const def = {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [
        { name: 'fetch', taskReferenceName: 'fetch', type: 'SIMPLE' },
        {
          name: 'route',
          taskReferenceName: 'route',
          type: 'SWITCH',
          evaluatorType: 'value-param',
          expression: 'kind',
          inputParameters: { kind: '${fetch.output.kind}' },
          decisionCases: { big: [{ name: 'big', taskReferenceName: 'big', type: 'SIMPLE' }] },
          defaultCase: [{ name: 'small', taskReferenceName: 'small', type: 'SIMPLE' }],
        },
        { name: 'gate', taskReferenceName: 'gate', type: 'WAIT' },
      ],
      outputParameters: { result: '${big.output.r}', gate: '${gate.output.ok}' },
    };
    const r = await api.call('POST', '/api/workflow/test', {
      name,
      workflowDef: def,
      input: {},
      taskRefToMockOutput: {
        fetch: [
          { status: 'FAILED', output: {} },
          { status: 'COMPLETED', output: { kind: 'big' } },
        ],
        big: [{ output: { r: 'mocked big' } }],
        gate: [{ status: 'COMPLETED', output: { ok: true } }],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { result: 'mocked big', gate: true } });
    expect(r.body.tasks.map((t: any) => [t.referenceTaskName, t.status])).toEqual([
      ['fetch', 'FAILED'],
      ['fetch', 'COMPLETED'],
      ['route', 'COMPLETED'],
      ['big', 'COMPLETED'],
      ['gate', 'COMPLETED'],
    ]);
    // Every task ran in a domain of its own, which no worker polls.
    expect(new Set(r.body.tasks.filter((t: any) => t.taskType === 'big').map((t: any) => t.domain)).size).toBe(1);
    expect(r.body.taskToDomain['*']).toEqual(expect.any(String));
  });

  test('subWorkflowTestRequest mocks the tasks of a child', async () => {
    const child = api.uniq('mock_child');
    await api.register({ name: child, tasks: [{ name: 'inner', taskReferenceName: 'inner', type: 'SIMPLE' }], outputParameters: { v: '${inner.output.v}' } });
    const parent = api.uniq('mock_parent');
    await api.register({
      name: parent,
      tasks: [{ name: 'call', taskReferenceName: 'call', type: 'SUB_WORKFLOW', subWorkflowParam: { name: child, version: 1 } }],
      outputParameters: { v: '${call.output.v}' },
    });
    const r = await api.call('POST', '/api/workflow/test', {
      name: parent,
      version: 1,
      input: {},
      subWorkflowTestRequest: { call: { name: child, taskRefToMockOutput: { inner: [{ output: { v: 'from child' } }] } } },
    });
    expect(r.body).toMatchObject({ status: 'COMPLETED', output: { v: 'from child' } });
  });

  test('a task without a mock stops the run: the execution is answered as it stands, and real workers never see its tasks', async () => {
    const name = api.uniq('unmocked');
    const type = api.uniq('unmocked_worker');
    await api.register({ name, tasks: [{ name: type, taskReferenceName: 'a', type: 'SIMPLE' }] });
    const r = await api.call('POST', '/api/workflow/test', { name, input: {} });
    expect(r.body).toMatchObject({ status: 'RUNNING', tasks: [{ referenceTaskName: 'a', status: 'SCHEDULED' }] });
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100`)).body).toEqual([]);
  });

  test('a bad request is a 400, never a start of a workflow named "test"', async () => {
    await api.register({ name: 'test', tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }] });
    const r = await api.call('POST', '/api/workflow/test', { input: {} });
    expect(r.status).toBe(400);
    expect((await api.call('GET', '/api/workflow/running/test')).body).toEqual([]);
  });
});

describe('bulk operations and terminate-remove', () => {
  async function humans(count: number): Promise<string[]> {
    const name = api.uniq('bulk');
    await api.register({ name, tasks: [{ name: 'gate', taskReferenceName: 'gate', type: 'HUMAN' }] });
    const ids: string[] = [];
    for (let i = 0; i < count; i++) ids.push(await api.start(name));
    return ids;
  }

  test('pause, resume, terminate, retry, restart, remove: each id succeeds or fails on its own', async () => {
    const ids = await humans(2);
    const unknown = api.uniq('missing');
    const paused = await api.call('PUT', '/api/workflow/bulk/pause', [...ids, unknown]);
    expect(paused.status).toBe(200);
    expect(paused.body.bulkSuccessfulResults).toEqual(ids);
    expect(Object.keys(paused.body.bulkErrorResults)).toEqual([unknown]);
    expect(paused.body.bulkErrorResults[unknown]).toContain(unknown);
    for (const id of ids) expect((await api.workflow(id)).status).toBe('PAUSED');

    expect((await api.call('PUT', '/api/workflow/bulk/resume', ids)).body.bulkSuccessfulResults).toEqual(ids);
    for (const id of ids) expect((await api.workflow(id)).status).toBe('RUNNING');
    // Resuming a running workflow is a conflict, reported per id.
    expect(Object.keys((await api.call('PUT', '/api/workflow/bulk/resume', ids)).body.bulkErrorResults)).toEqual(ids);

    expect((await api.call('POST', '/api/workflow/bulk/terminate?reason=enough', ids)).body.bulkSuccessfulResults).toEqual(ids);
    for (const id of ids) expect(await api.workflow(id)).toMatchObject({ status: 'TERMINATED', reasonForIncompletion: 'enough' });

    expect((await api.call('POST', '/api/workflow/bulk/retry', [ids[0]])).body.bulkSuccessfulResults).toEqual([ids[0]]);
    expect((await api.workflow(ids[0]!)).status).toBe('RUNNING');
    expect((await api.call('POST', '/api/workflow/bulk/restart?useLatestDefinitions=true', [ids[1]])).body.bulkSuccessfulResults).toEqual([ids[1]]);
    expect((await api.workflow(ids[1]!)).status).toBe('RUNNING');

    const removed = await api.call('DELETE', '/api/workflow/bulk/terminate-remove?archiveWorkflow=false', ids);
    expect(removed.body).toEqual({ bulkErrorResults: {}, bulkSuccessfulResults: ids });
    for (const id of ids) expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
  });

  test('bulk remove refuses to archive a running workflow but removes an ended one', async () => {
    const [running, ended] = await humans(2);
    await api.call('DELETE', `/api/workflow/${ended}?reason=x`);
    const r = await api.call('DELETE', '/api/workflow/bulk/remove', [running, ended]);
    expect(r.body.bulkSuccessfulResults).toEqual([ended]);
    expect(Object.keys(r.body.bulkErrorResults)).toEqual([running]);
    expect((await api.call('GET', `/api/workflow/${ended}`)).status).toBe(404);
    expect((await api.workflow(running!)).status).toBe('RUNNING');
  });

  test('an empty list, more than 1000 ids, a non-list body or a bad parameter is a 400 and changes nothing', async () => {
    const [id] = await humans(1);
    expect((await api.call('PUT', '/api/workflow/bulk/pause', [])).status).toBe(400);
    expect(
      (
        await api.call(
          'PUT',
          '/api/workflow/bulk/pause',
          Array.from({ length: 1001 }, (_, i) => (i === 0 ? id : `x${i}`)),
        )
      ).status,
    ).toBe(400);
    expect((await api.call('PUT', '/api/workflow/bulk/pause', { ids: [id] })).status).toBe(400);
    expect((await api.call('DELETE', '/api/workflow/bulk/remove?archiveWorkflow=maybe', [id])).status).toBe(400);
    expect((await api.workflow(id!)).status).toBe('RUNNING');
  });

  test('DELETE /api/workflow/{id}/terminate-remove', async () => {
    const [id] = await humans(1);
    expect((await api.call('DELETE', `/api/workflow/${id}/terminate-remove?reason=gone`)).status).toBe(200);
    expect((await api.call('GET', `/api/workflow/${id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/api/workflow/${id}/terminate-remove`)).status).toBe(404);
  });
});

describe('admin', () => {
  test('GET /api/admin/config shows the configuration with secrets redacted', async () => {
    const r = await api.call('GET', '/api/admin/config');
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ BATON_PROFILE: 'embedded', PORT: 0, version: expect.any(String) });
    expect(r.body.CASSANDRA_PASSWORD).not.toBe('hunter2');
    expect(r.body.APP_API_TOKEN).not.toBe('app-token-value');
    expect(r.body.REDIS_URL).not.toContain('s3cret');
    expect(r.body.REDIS_URL).toContain('127.0.0.1:6379');
    expect(r.text).not.toMatch(/hunter2|app-token-value|s3cret/);
  });

  test('GET /api/admin/task/{tasktype} lists pending tasks of the type, scheduled and in progress', async () => {
    const name = api.uniq('admin_tasks');
    const type = api.uniq('admin_worker');
    await api.register({ name, tasks: [{ name: type, taskReferenceName: 'w', type: 'SIMPLE' }] });
    const ids = [await api.start(name), await api.start(name), await api.start(name)];
    const claimed = await api.pollOne(type);
    const done = await api.pollOne(type);
    await api.complete(done);
    const pending = await eventually(async () => {
      const r = await api.call('GET', `/api/admin/task/${type}`);
      const list = r.body as any[];
      return list.length === 2 && list.some((t) => t.status === 'IN_PROGRESS') ? list : undefined;
    });
    expect(pending.map((t) => t.taskId)).toContain(claimed.taskId);
    expect(pending.map((t) => t.taskId)).not.toContain(done.taskId);
    expect(new Set(pending.map((t) => t.workflowInstanceId)).size).toBe(2);
    expect(ids).toEqual(expect.arrayContaining(pending.map((t) => t.workflowInstanceId)));
    expect((await api.call('GET', `/api/admin/task/${type}?start=1&count=5`)).body).toHaveLength(1);
    expect((await api.call('GET', `/api/admin/task/${type}?count=-1`)).status).toBe(400);
  });

  test('POST /api/admin/sweep/requeue/{workflowId} answers true.<id>; the task is still handed out once', async () => {
    const name = api.uniq('requeue');
    const type = api.uniq('requeue_worker');
    await api.register({ name, tasks: [{ name: type, taskReferenceName: 'w', type: 'SIMPLE' }] });
    const id = await api.start(name);
    const r = await api.call('POST', `/api/admin/sweep/requeue/${id}`);
    expect(r.status).toBe(200);
    expect(r.contentType).toContain('text/plain');
    expect(r.text).toBe(`true.${id}`);
    const t = await api.pollOne(type);
    expect(t.workflowInstanceId).toBe(id);
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?count=5&timeout=200`)).body).toEqual([]);
    expect((await api.call('POST', `/api/admin/sweep/requeue/${api.uniq('nope')}`)).status).toBe(404);
    const repaired = await api.call('POST', `/api/admin/consistency/verifyAndRepair/${id}`);
    expect(repaired).toMatchObject({ status: 200, text: 'true' });
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?count=5&timeout=100`)).body).toEqual([]); // still handed out once
    expect((await api.call('POST', `/api/admin/consistency/verifyAndRepair/${api.uniq('nope')}`)).status).toBe(404);
  });
});

describe('POST /api/workflow/{id}/resetcallbacks', () => {
  test('a task held back by callbackAfterSeconds is handed out again at once; an ended execution is a 409', async () => {
    const { type, id } = await startOneTask('reset_cb');
    const first = await api.pollOne(type);
    const r = await api.call('POST', '/api/tasks', { workflowInstanceId: id, taskId: first.taskId, status: 'IN_PROGRESS', callbackAfterSeconds: 3600 });
    expect(r.status).toBe(200);
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100`)).body).toEqual([]);
    expect((await api.call('POST', `/api/workflow/${id}/resetcallbacks`)).status).toBe(204);
    const again = await api.pollOne(type);
    expect(again).toMatchObject({ taskId: first.taskId, pollCount: 2, callbackAfterSeconds: 0 });
    await api.complete(again);
    await api.waitForStatus(id, 'COMPLETED');
    const ended = await api.call('POST', `/api/workflow/${id}/resetcallbacks`);
    expect(ended.status).toBe(409);
    expect(ended.body).toMatchObject({ status: 409 });
    expect((await api.call('POST', '/api/workflow/no-such-id/resetcallbacks')).status).toBe(404);
  });
});

describe('search variants (-v2, by-tasks, tasks/search-v2)', () => {
  test('-v2 answers executions and tasks; by-tasks answers each matching execution once', async () => {
    const name = api.uniq('srchv2');
    await api.register({
      name,
      tasks: [
        { name: 'a', taskReferenceName: 'a', type: 'SET_VARIABLE', inputParameters: { a: 1 } },
        { name: 'b', taskReferenceName: 'b', type: 'SET_VARIABLE', inputParameters: { b: 2 } },
        { name: 'h', taskReferenceName: 'h', type: 'HUMAN' },
      ],
    });
    const ids = [await api.start(name, { n: 1 }), await api.start(name, { n: 2 })];
    const q = (query: string) => `query=${encodeURIComponent(query)}`;
    const byTasks = await eventually(async () => {
      const r = await api.call('GET', `/api/workflow/search-by-tasks?${q(`workflowType = '${name}'`)}`);
      return r.body.results?.length === 2 ? r.body : undefined;
    });
    // Six task records match; they belong to two executions, so two results and totalHits 6 - (6 - 2).
    expect(byTasks.totalHits).toBe(2);
    expect(byTasks.results.map((w: any) => w.workflowId).sort()).toEqual([...ids].sort());
    expect(byTasks.results[0]).toMatchObject({ workflowType: name, status: 'RUNNING' });
    const byTasksV2 = (await api.call('GET', `/api/workflow/search-by-tasks-v2?${q(`workflowType = '${name}' AND taskType = 'HUMAN'`)}`)).body;
    expect(byTasksV2.totalHits).toBe(2);
    expect(byTasksV2.results.map((w: any) => w.input.n).sort()).toEqual([1, 2]);
    expect(byTasksV2.results[0]).toMatchObject({ workflowName: name, tasks: [] });
    const v2 = (await api.call('GET', `/api/workflow/search-v2?${q(`workflowType = '${name}'`)}&sort=startTime:ASC`)).body;
    expect(v2).toMatchObject({
      totalHits: 2,
      results: [
        { workflowId: ids[0], input: { n: 1 }, tasks: [] },
        { workflowId: ids[1], input: { n: 2 }, tasks: [] },
      ],
    });
    const tasksV2 = (await api.call('GET', `/api/tasks/search-v2?${q(`workflowType = '${name}' AND taskType = 'HUMAN'`)}`)).body;
    expect(tasksV2.totalHits).toBe(2);
    expect(tasksV2.results.map((t: any) => t.workflowInstanceId).sort()).toEqual([...ids].sort());
    expect(tasksV2.results[0]).toMatchObject({ referenceTaskName: 'h', status: 'IN_PROGRESS', taskDefName: 'h' });
    // A removed execution is dropped from -v2 answers and from their totalHits.
    expect((await api.call('DELETE', `/api/workflow/${ids[0]}/remove?archiveWorkflow=false`)).status).toBe(200);
    const afterRemove = (await api.call('GET', `/api/workflow/search-v2?${q(`workflowType = '${name}'`)}`)).body;
    expect(afterRemove.results.map((w: any) => w.workflowId)).toEqual([ids[1]]);
    expect(afterRemove.totalHits).toBe(1);
    expect((await api.call('GET', '/api/workflow/search-v2?size=6000')).status).toBe(400);
  });
});

describe('external payload storage', () => {
  test('a location request is checked like Conductor, then answered with a new path and a signed link (every spelling)', async () => {
    for (const base of ['/api/workflow', '/api/tasks', '/api/task']) {
      for (const p of ['externalstoragelocation', 'external-storage-location']) {
        const ok = await api.call('GET', `${base}/${p}?path=a/b.json&operation=write&payloadType=TASK_OUTPUT`);
        expect(ok.status).toBe(200);
        expect(ok.body).toEqual({ uri: expect.stringContaining('/api/objects/'), path: expect.stringMatching(/^payloads\/task\/output\/.+\.json$/) });
        const bad = await api.call('GET', `${base}/${p}?operation=DELETE&payloadType=TASK_OUTPUT`);
        expect(bad.status).toBe(400);
        expect(bad.body.validationErrors.map((e: any) => e.path)).toEqual(['operation']);
        const unnamed = await api.call('GET', `${base}/${p}?operation=READ&payloadType=TASK_OUTPUT`);
        expect(unnamed.status).toBe(400);
        expect(unnamed.body.validationErrors.map((e: any) => e.path)).toEqual(['path']);
      }
    }
  });
});

describe('queue requeue, ack and definition versions', () => {
  test('POST /api/tasks/queue/requeue/{taskType} re-pushes the scheduled tasks; the task is still handed out once', async () => {
    const { type, id } = await startOneTask('requeue');
    await eventually(async () => (await api.call('GET', `/api/tasks/search?query=${encodeURIComponent(`taskType = '${type}'`)}`)).body.totalHits === 1);
    const r = await api.call('POST', `/api/tasks/queue/requeue/${type}`);
    expect(r).toMatchObject({ status: 200, text: '1' });
    expect(r.contentType).toContain('text/plain');
    const t = await api.pollOne(type);
    expect(t.workflowInstanceId).toBe(id);
    expect((await api.call('GET', `/api/tasks/poll/batch/${type}?count=5&timeout=100`)).body).toEqual([]);
    expect((await api.call('POST', `/api/tasks/queue/requeue/${type}`)).text).toBe('0'); // now IN_PROGRESS
    expect((await api.call('POST', `/api/tasks/queue/requeue/${api.uniq('none')}`)).text).toBe('0');
  });

  test('POST /api/tasks/{taskId}/ack answers whether the task exists (a poll already claimed it)', async () => {
    const { type } = await startOneTask('ack');
    const t = await api.pollOne(type);
    expect(await api.call('POST', `/api/tasks/${t.taskId}/ack?workerid=w1`)).toMatchObject({ status: 200, text: 'true' });
    expect(await api.call('POST', '/api/tasks/no-such-task/ack')).toMatchObject({ status: 200, text: 'false' });
  });

  test('GET /api/metadata/workflow/{name}/versions lists the versions of one definition', async () => {
    const name = api.uniq('versions');
    for (const version of [2, 1])
      expect(
        (
          await api.call('POST', '/api/metadata/workflowdef', {
            name,
            version,
            schemaVersion: 2,
            tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }],
          })
        ).status,
      ).toBe(200);
    const r = (await api.call('GET', `/api/metadata/workflow/${name}/versions`)).body;
    expect(r.map((d: any) => d.version)).toEqual([1, 2]);
    expect(r[0]).toEqual({ name, version: 1, createTime: expect.any(Number), updateTime: expect.any(Number) });
    expect((await api.call('GET', `/api/metadata/workflow/${api.uniq('none')}/versions`)).body).toEqual([]);
  });
});

describe('/api-docs and content types', () => {
  /** Every (method, path) of the route table the express app registers (src/api/routes.ts). */
  function tableRoutes(): string[] {
    return allRouteTemplates().map((r) => `${r.method.toUpperCase()} ${r.path}`);
  }

  test('the OpenAPI document lists every route Baton serves, and every $ref in it resolves', async () => {
    const r = await api.call('GET', '/api-docs');
    expect(r.status).toBe(200);
    expect(r.contentType).toContain('application/json');
    const doc = r.body;
    expect(doc.openapi).toBe('3.1.0');
    const documented = new Set(
      Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`)),
    );
    const routes = tableRoutes();
    expect(routes.length).toBeGreaterThan(100);
    expect(routes.filter((x) => !documented.has(x))).toEqual([]);
    // And nothing is documented that is not served.
    expect([...documented].filter((x) => !routes.includes(x))).toEqual([]);

    const refs: string[] = [];
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(collect);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          if (k === '$ref') refs.push(String(x));
          else collect(x);
        }
    };
    collect(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const ref of new Set(refs)) {
      expect(ref.startsWith('#/components/schemas/')).toBe(true);
      expect(doc.components.schemas[ref.slice('#/components/schemas/'.length)]).toBeDefined();
    }
    expect(doc.components.schemas.Workflow.properties.tasks.type).toBe('array');
    expect(doc.components.schemas.EventHandlerRequest.required).toEqual(expect.arrayContaining(['name', 'event', 'actions']));
    expect(doc.paths['/api/workflow/execute/{name}/{version}'].post.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/ExecuteWorkflowRequest',
    );
  });

  test('JSON answers, errors included, carry Content-Type application/json; POST /api/token is a 404 while auth is off', async () => {
    for (const path of [
      '/health',
      '/api/metadata/workflowdef',
      '/api/metadata/taskdefs',
      '/api/event',
      '/api/event/execution',
      '/api/admin/config',
      '/api/tasks/queue/all',
      '/api/workflow/search',
      '/api/workflow/no-such-id',
      '/api/nothing-here',
    ]) {
      const r = await api.call('GET', path);
      expect([path, r.contentType]).toEqual([path, expect.stringContaining('application/json')]);
    }
    const bad = await api.call('POST', '/api/event', { name: '' });
    expect(bad.status).toBe(400);
    expect(bad.contentType).toContain('application/json');
    // The SDKs read POST's 404 as "no auth here"; GET is no method of /api/token (405).
    for (const [method, status] of [
      ['GET', 405],
      ['POST', 404],
    ] as const) {
      const token = await api.call(method, '/api/token', method === 'POST' ? { keyId: 'k', keySecret: 's' } : undefined);
      expect(token.status).toBe(status);
      expect(token.contentType).toContain('application/json');
    }
  });
});
