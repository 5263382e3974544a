import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';

// Workflow and task status changes are published (when the workflow's status listener is on) as
// `baton:workflow:<name>` and `baton:task:<type>` events that event handlers can act on.

let b: TestBaton;
const api = apiClient(() => b.url);
beforeAll(async () => {
  b = await startBaton();
});
afterAll(async () => {
  await b.stop();
});

test('status-change events reach event handlers', async () => {
  const s = Date.now().toString(36);
  const watched = `watched_${s}`;
  const taskType = `watched_task_${s}`;
  const follower = `follower_${s}`;
  await api.register({ name: watched, workflowStatusListenerEnabled: true, tasks: [{ name: taskType, taskReferenceName: 'a' }] });
  await api.register({ name: follower, tasks: [{ name: 'hold', taskReferenceName: 'h', type: 'HUMAN' }] });
  for (const [name, event, condition] of [
    [`on_task_${s}`, `baton:task:${taskType}`, "$.status == 'COMPLETED'"],
    [`on_wf_${s}`, `baton:workflow:${watched}`, "$.status == 'COMPLETED'"],
  ]) {
    const r = await api.call('POST', '/api/event', {
      name,
      event,
      condition,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name: follower, input: { from: '${workflowId}', event, status: '${status}' } } }],
    });
    expect(r.status).toBe(200);
  }
  const id = await api.start(watched);
  const task = await api.pollOne(taskType);
  expect(task.workflowInstanceId).toBe(id);
  await api.complete(task);
  const started = await eventually(async () => {
    const ids = (await api.call('GET', `/api/workflow/running/${follower}`)).body as string[];
    return ids.length === 2 ? ids : undefined;
  });
  const inputs = await Promise.all(started.map(async (x) => (await api.workflow(x)).input));
  expect(inputs.map((i: any) => i.event).sort()).toEqual([`baton:task:${taskType}`, `baton:workflow:${watched}`].sort());
  for (const i of inputs) expect(i).toMatchObject({ from: id, status: 'COMPLETED' });
});
