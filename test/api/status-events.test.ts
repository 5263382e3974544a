import { call, eventually, startBaton, type TestBaton } from '../support/baton';

// Workflow and task status changes are published (when the workflow's status listener is on) as
// `baton:workflow:<name>` and `baton:task:<type>` events that event handlers can act on.

let b: TestBaton;
beforeAll(async () => {
  b = await startBaton();
});
afterAll(async () => {
  await b.stop();
});

test('status-change events reach event handlers', async () => {
  const s = Date.now().toString(36);
  const api = (m: string, p: string, body?: unknown) => call(b.url, m, p, body);
  const watched = `watched_${s}`;
  const taskType = `watched_task_${s}`;
  const follower = `follower_${s}`;
  expect((await api('POST', '/api/metadata/workflow', { name: watched, version: 1, workflowStatusListenerEnabled: true, tasks: [{ name: taskType, taskReferenceName: 'a' }] })).status).toBe(200);
  expect((await api('POST', '/api/metadata/workflow', { name: follower, version: 1, tasks: [{ name: 'hold', taskReferenceName: 'h', type: 'HUMAN' }] })).status).toBe(200);
  for (const [name, event, condition] of [
    [`on_task_${s}`, `baton:task:${taskType}`, "$.status == 'COMPLETED'"],
    [`on_wf_${s}`, `baton:workflow:${watched}`, "$.status == 'COMPLETED'"],
  ]) {
    const r = await api('POST', '/api/event', {
      name,
      event,
      condition,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name: follower, input: { from: '${workflowId}', event, status: '${status}' } } }],
    });
    expect(r.status).toBe(200);
  }
  const id = (await api('POST', '/api/workflow', { name: watched })).text;
  const task = await eventually(async () => (await api('GET', `/api/tasks/poll/batch/${taskType}?timeout=200`)).body[0]);
  expect((await api('POST', '/api/tasks', { workflowInstanceId: id, taskId: task.taskId, status: 'COMPLETED', outputData: {} })).status).toBe(200);
  const started = await eventually(async () => {
    const ids = (await api('GET', `/api/workflow/running/${follower}`)).body as string[];
    return ids.length === 2 ? ids : undefined;
  });
  const inputs = await Promise.all(started.map(async (x) => (await api('GET', `/api/workflow/${x}`)).body.input));
  expect(inputs.map((i: any) => i.event).sort()).toEqual([`baton:task:${taskType}`, `baton:workflow:${watched}`].sort());
  for (const i of inputs) expect(i).toMatchObject({ from: id, status: 'COMPLETED' });
});
