import { call, eventually } from '../support/baton';
import { startCluster, type TestCluster } from './cluster';
import { queueActorId } from '../../src/services/queues';

// A QueueActor keeps its entries in the Dapr actor state store: when its replica dies, the partition
// re-activates on the other replica with every entry, without waiting for a sweep.

let cluster: TestCluster;

beforeAll(async () => {
  // Sweep far away: anything pollable after the kill came from the queue's saved state.
  cluster = await startCluster({ replicas: ['A', 'B'], env: { BATON_SWEEP_INTERVAL_MS: '600000', BATON_DAPR_ROUTING_RETRY_MS: '3000' } });
});
afterAll(async () => {
  await cluster?.stop();
});

test('queue entries survive the loss of the replica that held the partition', async () => {
  const stamp = Date.now().toString(36);
  const name = `qstate_${stamp}`;
  const t = `qstate_task_${stamp}`;
  const base = () => cluster.nextUrl();
  // A claim the dying replica committed but could not answer leaves its task IN_PROGRESS with no worker:
  // that one comes back by its response timeout (retried as a new task of the same execution).
  expect((await call(base(), 'POST', '/api/metadata/taskdef', [{ name: t, retryCount: 3, retryDelaySeconds: 0, responseTimeoutSeconds: 2, timeoutSeconds: 0 }])).status).toBe(200);
  expect((await call(base(), 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: t, taskReferenceName: 'a' }] })).status).toBe(200);
  const ids = new Set<string>();
  for (let i = 0; i < 10; i++) ids.add((await call(base(), 'POST', '/api/workflow', { name })).text);

  const holderPort = cluster.double.placementOf('QueueActor', queueActorId(t, 0));
  const victim = cluster.replicas.find((r) => r.port === holderPort)!;
  const survivor = cluster.replicas.find((r) => r !== victim)!;
  await cluster.kill(victim);

  const got = new Set<string>();
  await eventually(async () => {
    const r = await call(survivor.url, 'GET', `/api/task/poll/batch/${t}?count=10&timeout=500`);
    for (const task of (r.body as Array<{ workflowInstanceId: string }>) ?? []) got.add(task.workflowInstanceId);
    return got.size === ids.size;
  }, 20_000, 100);
  expect(got).toEqual(ids);
});
