import { apiClient } from '../support/api-client';
import { uniqueName } from '../support/names';
import { startCluster, type TestCluster } from './cluster';

// Idempotent starts, schemas and state across two replicas of the distributed profile (Dapr sidecar
// double, one shared SQLite store): both replicas get starts with the same key at once, and one
// execution comes of them; a schema saved through one replica is enforced by the other.

let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
});
afterAll(async () => {
  await cluster?.stop();
});

const A = apiClient(() => cluster.replicas[0]!.url);
const B = apiClient(() => cluster.replicas[1]!.url);

const define = async (): Promise<string> => {
  const name = uniqueName('idem_replicas');
  await A.register({ name, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
  return name;
};

test('starts with one key sent to both replicas at once make one execution (RETURN_EXISTING: all answer it)', async () => {
  const name = await define();
  const start = (c: typeof A) => c.call('POST', '/api/workflow', { name, idempotencyKey: 'k', idempotencyStrategy: 'RETURN_EXISTING' });
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => start(i % 2 === 0 ? A : B)));
  expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(new Set(replies.map((r) => r.text)).size).toBe(1);
  expect((await B.call('GET', `/api/workflow/running/${name}`)).body).toEqual([replies[0]!.text]);
});

test('FAIL across replicas: one start succeeds, the rest answer 409', async () => {
  const name = await define();
  const start = (c: typeof A) => c.call('POST', '/api/workflow', { name, idempotencyKey: 'k' });
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => start(i % 2 === 0 ? A : B)));
  expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
  expect(replies.filter((r) => r.status === 409)).toHaveLength(19);
  expect((await A.call('GET', `/api/workflow/running/${name}`)).body).toEqual([replies.find((r) => r.status === 200)!.text]);
});

test('a schema saved through A refuses a start through B; variables and state updated through B show on A', async () => {
  const schema = uniqueName('dist_schema');
  expect((await A.call('POST', '/api/schema', [{ name: schema, type: 'JSON', data: { type: 'object', required: ['id'] } }])).status).toBe(200);
  const name = uniqueName('dist_schema_wf');
  await A.register({ name, inputSchema: { name: schema }, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
  expect((await B.call('POST', '/api/workflow', { name, input: {} })).status).toBe(400);
  const id = (await B.call('POST', '/api/workflow', { name, input: { id: 1 } })).text;
  expect((await B.call('POST', `/api/workflow/${id}/variables`, { seen: 'B' })).body.variables).toEqual({ seen: 'B' });
  const run = await B.call('POST', `/api/workflow/${id}/state?requestId=r&waitForSeconds=5`, {
    taskReferenceName: 'h',
    taskResult: { status: 'COMPLETED', outputData: { ok: true } },
    variables: { more: 1 },
  });
  expect(run.body).toMatchObject({ workflowId: id, status: 'COMPLETED', variables: { seen: 'B', more: 1 } });
  expect((await A.workflow(id)).status).toBe('COMPLETED');
});
