import Database from 'better-sqlite3';
import { join } from 'node:path';
import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';

// A poll's claim id is stored with the task it took (so a repeat of the claim answers that task on any
// activation), but it is Baton's own bookkeeping: no answer of the API carries it.

let b: TestBaton;
const api = apiClient(() => b.url);

beforeAll(async () => {
  b = await startBaton();
});
afterAll(async () => {
  await b?.stop();
});

const storedTask = (taskId: string): Record<string, unknown> => {
  const db = new Database(join(b.dataDir, 'baton.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare<[string], { data: string }>('SELECT data FROM tasks WHERE task_id = ?').get(taskId);
    return JSON.parse(row!.data) as Record<string, unknown>;
  } finally {
    db.close();
  }
};

test('the claim id is stored with the polled task and absent from the poll, the task, the execution and its task page', async () => {
  const name = api.uniq('claimid');
  const type = api.uniq('claimid_t');
  await api.register({ name, tasks: [{ name: type, taskReferenceName: 'x' }] });
  const id = (await api.call('POST', '/api/workflow', { name, input: {} })).text;
  const polled = await eventually(
    async () => (await api.call('GET', `/api/tasks/poll/batch/${encodeURIComponent(type)}?count=1&timeout=200&workerid=w`)).body[0],
  );
  expect(polled).toMatchObject({ workflowInstanceId: id, status: 'IN_PROGRESS' });

  expect(storedTask(polled.taskId).claimId).toEqual(expect.any(String));
  const answers = [
    polled,
    (await api.call('GET', `/api/tasks/${polled.taskId}`)).body,
    ...(await api.call('GET', `/api/workflow/${id}?includeTasks=true`)).body.tasks,
    ...(await api.call('GET', `/api/workflow/${id}/tasks`)).body.results,
  ];
  expect(answers).toHaveLength(4);
  for (const t of answers) {
    expect(t).toMatchObject({ taskId: polled.taskId, status: 'IN_PROGRESS' });
    expect(t).not.toHaveProperty('claimId');
  }
});
