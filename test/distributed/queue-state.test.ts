import { call, eventually } from '../support/baton';
import { startCluster, type TestCluster } from './cluster';
import { queueActorId } from '../../src/services/queues';

// Queue entries outlive the replica that served them: with BATON_QUEUES=actors a QueueActor keeps them
// in the Dapr actor state store and re-activates on the other replica with every entry; with Redis
// queues (the distributed default) they never lived in a replica. Either way, without waiting for a sweep.

describe.each(['actors', 'redis'] as const)('BATON_QUEUES=%s', (queues) => {
  let cluster: TestCluster;

  beforeAll(async () => {
    // Sweep far away: anything pollable after the kill came from the queue's saved state.
    cluster = await startCluster({
      replicas: ['A', 'B'],
      env: { BATON_QUEUES: queues, BATON_SWEEP_INTERVAL_MS: '600000', BATON_DAPR_ROUTING_RETRY_MS: '3000' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('queue entries survive the loss of a replica', async () => {
    const stamp = Date.now().toString(36);
    const name = `qstate_${queues}_${stamp}`;
    const t = `qstate_task_${queues}_${stamp}`;
    const base = () => cluster.nextUrl();
    // A claim the dying replica committed but could not answer leaves its task IN_PROGRESS with no worker:
    // that one comes back by its response timeout (retried as a new task of the same execution).
    expect(
      (await call(base(), 'POST', '/api/metadata/taskdef', [{ name: t, retryCount: 3, retryDelaySeconds: 0, responseTimeoutSeconds: 2, timeoutSeconds: 0 }]))
        .status,
    ).toBe(200);
    expect(
      (await call(base(), 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: t, taskReferenceName: 'a' }] })).status,
    ).toBe(200);
    const ids = new Set<string>();
    for (let i = 0; i < 10; i++) ids.add((await call(base(), 'POST', '/api/workflow', { name })).text);

    // With QueueActors, the replica that held the partition; with Redis queues, either.
    const holderPort = queues === 'actors' ? cluster.double.placementOf('QueueActor', queueActorId(t, 0)) : cluster.replicas[0]!.port;
    const victim = cluster.replicas.find((r) => r.port === holderPort)!;
    const survivor = cluster.replicas.find((r) => r !== victim)!;
    await cluster.kill(victim);

    const got = new Set<string>();
    await eventually(
      async () => {
        const r = await call(survivor.url, 'GET', `/api/task/poll/batch/${t}?count=10&timeout=500`);
        for (const task of (r.body as Array<{ workflowInstanceId: string }>) ?? []) got.add(task.workflowInstanceId);
        return got.size === ids.size;
      },
      20_000,
      100,
    );
    expect(got).toEqual(ids);
  });
});
