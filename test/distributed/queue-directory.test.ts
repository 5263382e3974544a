import { call, eventually } from '../support/baton';
import { startCluster, type TestCluster } from './cluster';

// Poll data and queue names are shared through Redis: a worker polling replica B in a domain makes
// that domain active for workflows started on replica A, and both replicas list the same queues.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
});
afterAll(async () => {
  await cluster?.stop();
});

test('taskToDomain fallback sees a worker polling another replica; queue/all and polldata are cluster-wide', async () => {
  const a = cluster.replicas[0]!;
  const b = cluster.replicas[1]!;
  const s = Date.now().toString(36);
  const t = `dir_task_${s}`;
  const name = `dir_wf_${s}`;
  expect(
    (await call(a.url, 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: t, taskReferenceName: 'x' }] })).status,
  ).toBe(200);
  // A worker in domain "blue" polls replica B only.
  expect((await call(b.url, 'GET', `/api/tasks/poll/batch/${t}?domain=blue&workerid=wb&timeout=10`)).status).toBe(200);
  await eventually(async () =>
    ((await call(a.url, 'GET', `/api/tasks/queue/polldata?taskType=${t}`)).body as any[]).some((p) => p.domain === 'blue' && p.workerId === 'wb'),
  );
  // Replica A refreshes its view of other replicas' polls within a few seconds; then "blue" is chosen.
  const domainOfNewTask = async (): Promise<string | undefined> => {
    const id = (await call(a.url, 'POST', '/api/workflow', { name, taskToDomain: { [t]: 'blue,NO_DOMAIN' } })).text;
    return ((await call(a.url, 'GET', `/api/workflow/${id}`)).body as any).tasks[0].domain;
  };
  await eventually(async () => (await domainOfNewTask()) === 'blue', 15_000, 500);
  await eventually(async () => Object.keys((await call(b.url, 'GET', '/api/tasks/queue/all')).body as object).includes(`blue:${t}`));
});
