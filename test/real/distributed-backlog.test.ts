import Redis from 'ioredis';
import { queueName } from '../../src/model/effects';
import { queueActorId } from '../../src/services/queues';
import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { APP_ID, missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// With BATON_QUEUES=actors (queue partitions as QueueActors; Redis queues, the distributed default, have
// their backlog test in test/integration/redis): one task type with a backlog of 200,000 queue entries in
// its partition, pushed through the real daprd actor API the way the engine pushes (pushMany), kept in the
// real Redis actor state store:
// no request to the sidecar is refused for its size, no stored value grows with the backlog, a new
// activation on another replica reloads it, and starts and polls of the same type still work.

const BACKLOG = 200_000;
const BATCH = 5_000;
let cluster: RealCluster;

engineSuite('distributed profile on real engines', missingRealCluster())('a 200,000-entry backlog on real Dapr', () => {
  beforeEach(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: { BATON_QUEUES: 'actors' } });
  });
  afterEach(async () => {
    await cluster?.stop();
  });

  test('starts and polls still work; every write to the sidecar stays small', async () => {
    const taskType = `backlog_${Date.now().toString(36)}`;
    const name = `${taskType}_wf`;
    const api = <T = any>(method: string, path: string, body?: unknown) => call<T>(cluster.nextUrl(), method, path, body);
    expect(
      (await api('POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: taskType, taskReferenceName: 't' }] })).status,
    ).toBe(200);
    // The backlog's entries belong to one parked execution: claims of them find no SCHEDULED task.
    const parked = (await api('POST', '/api/workflow', { name, priority: 99 })).text;
    const actorId = queueActorId(queueName({ taskType }), 0);
    const sidecar = cluster.replicas[0]!.daprd;
    for (let from = 0; from < BACKLOG; from += BATCH) {
      const entries = Array.from({ length: BATCH }, (_, i) => ({ taskId: `backlog-${from + i}`, workflowId: parked, priority: 99, visibleAt: 0 }));
      const r = await fetch(`http://127.0.0.1:${sidecar.daprHttpPort}/v1.0/actors/QueueActor/${actorId}/method/pushMany`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', 'dapr-api-token': cluster.daprToken },
        body: JSON.stringify(entries),
      });
      expect(r.status).toBe(200);
    }
    const sizes = (await api('GET', `/api/tasks/queue/sizes?taskType=${taskType}`)).body;
    expect(sizes[taskType]).toBeGreaterThanOrEqual(BACKLOG);

    // What the state store holds for the partition: many small values, none near Dapr's body limit.
    const redis = new Redis(cluster.dapr.redisUrl);
    try {
      const keys = await redis.keys(`${APP_ID}||QueueActor||${actorId}||*`);
      expect(keys.length).toBeGreaterThan(BACKLOG / 1000);
      let largest = 0;
      for (const k of keys) largest = Math.max(largest, (await redis.hstrlen(k, 'data')) || (await redis.strlen(k).catch(() => 0)));
      expect(largest).toBeLessThan(1024 * 1024);
    } finally {
      await redis.quit();
    }

    // A new execution of the same type, at a higher priority than the backlog, is handed out first.
    const fresh = (await api('POST', '/api/workflow', { name, priority: 0 })).text;
    const task = await eventually(async () => {
      const r = await api('GET', `/api/tasks/poll/batch/${taskType}?count=1&timeout=1000`);
      expect(r.status).toBe(200);
      return r.body.find((t: { workflowInstanceId: string }) => t.workflowInstanceId === fresh);
    }, 120_000);
    expect((await api('POST', '/api/tasks', { workflowInstanceId: fresh, taskId: task.taskId, status: 'COMPLETED' })).status).toBe(200);
    await eventually(async () => ((await api('GET', `/api/workflow/${fresh}`)).body.status === 'COMPLETED' ? true : undefined), 60_000);

    // The partition moves: both original replicas stop in turn, so a new one reloads all 200k entries from state.
    const [a, b] = cluster.replicas;
    await cluster.terminate(a!);
    const c = await cluster.addReplica('C');
    await cluster.terminate(b!);
    const after = await eventually(async () => {
      const r = await call(c.url, 'GET', `/api/tasks/queue/sizes?taskType=${taskType}`);
      // Thrown, so a timeout names C's last answer.
      if (r.status !== 200) throw new Error(`replica C answered ${r.status}: ${r.text.slice(0, 300)}`);
      return r.body[taskType];
    }, 180_000).catch((err: unknown) => {
      throw new Error(`${String(err)}\n--- daprd C\n${c.daprd.process.tail(30)}\n--- baton C\n${c.baton.tail(30)}`);
    });
    expect(after).toBeGreaterThanOrEqual(BACKLOG);
  });
});
