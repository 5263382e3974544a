import { apiClient, type WorkflowView } from '../support/api-client';
import { call, eventually } from '../support/baton';
import { startCluster, type TestCluster } from './cluster';

// A replica dies mid-run (its HTTP server and sidecar vanish without draining): the actors it
// hosted re-activate on the other replica from the shared store, queues it held are refilled by the
// sweep, and every workflow completes with every acknowledged completion kept.

let cluster: TestCluster;

beforeAll(async () => {
  // A short sweep so queues lost with the dead replica are refilled quickly.
  // A short routing retry so the dead replica's own stuck calls give up soon after the test.
  cluster = await startCluster({ replicas: ['A', 'B'], env: { BATON_SWEEP_INTERVAL_MS: '1000', BATON_DAPR_ROUTING_RETRY_MS: '3000' } });
});
afterAll(async () => {
  await cluster?.stop();
});

interface Ack {
  workflowId: string;
  taskId: string;
}

test('killing one replica loses no workflow and no acknowledged completion', async () => {
  const stamp = Date.now().toString(36);
  const name = `failover_${stamp}`;
  const t = `failover_task_${stamp}`;
  const base = () => cluster.nextUrl();
  const api = apiClient(base);
  // A task handed out by a poll whose answer died with the replica comes back after its response timeout.
  await api.registerTaskDefs([{ name: t, retryCount: 20, retryDelaySeconds: 0, responseTimeoutSeconds: 2, timeoutSeconds: 0 }]);
  const refs = ['x', 'y', 'z'];
  await api.register({ name, tasks: refs.map((r) => ({ name: t, taskReferenceName: r })) });
  const ids: string[] = [];
  for (let i = 0; i < 24; i++) ids.push(await api.start(name, { i }));

  const acked: Ack[] = [];
  let running = true;
  const worker = async (workerId: string): Promise<void> => {
    while (running) {
      try {
        const polled = await call(base(), 'GET', `/api/task/poll/batch/${t}?count=4&timeout=300&workerid=${workerId}`);
        if (polled.status !== 200) continue;
        for (const task of polled.body as Array<{ workflowInstanceId: string; taskId: string }>) {
          const r = await call(base(), 'POST', '/api/task', {
            workflowInstanceId: task.workflowInstanceId,
            taskId: task.taskId,
            status: 'COMPLETED',
            outputData: { by: task.taskId },
          });
          if (r.status === 200 && r.text === task.taskId) acked.push({ workflowId: task.workflowInstanceId, taskId: task.taskId });
        }
      } catch {
        // the replica died under this request: carry on with the next one
      }
    }
  };
  const workers = [worker('w1'), worker('w2'), worker('w3')];

  await eventually(async () => acked.length >= 20, 30_000);
  const victim = cluster.replicas[0]!;
  const onVictim = ids.filter((id) => cluster.double.placementOf('WorkflowActor', id) === victim.port);
  expect(onVictim.length).toBeGreaterThan(0); // the kill hits executions that are still running
  await cluster.kill(victim);

  try {
    // Thrown, so a timeout names the executions still open and their tasks.
    await eventually(
      async () => {
        const open: string[] = [];
        for (const id of ids) {
          const w = (await call(base(), 'GET', `/api/workflow/${id}`)).body as WorkflowView;
          if (w.status !== 'COMPLETED')
            open.push(
              `${id} ${w.status} on ${onVictim.includes(id) ? 'victim' : 'survivor'}: ${w.tasks.map((x) => `${x.referenceTaskName}/${x.status}`).join(' ')}`,
            );
        }
        if (open.length > 0) throw new Error(`${open.length} open, acked ${acked.length}: ${open.slice(0, 5).join('; ')}`);
        return true;
      },
      45_000,
      200,
    );
  } finally {
    running = false;
    await Promise.all(workers);
  }

  // Every actor of the dead replica now lives on the survivor.
  for (const id of onVictim) expect(cluster.double.placementOf('WorkflowActor', id)).toBe(cluster.replicas[1]!.port);
  const byId = new Map<string, WorkflowView>();
  for (const id of ids) byId.set(id, await api.workflow(id));
  for (const a of acked) {
    const task = byId.get(a.workflowId)!.tasks.find((x) => x.taskId === a.taskId);
    expect(task).toMatchObject({ status: 'COMPLETED', outputData: { by: a.taskId } });
  }
  if (process.env.DEBUG_FAILOVER)
    console.log({
      acked: acked.length,
      onVictim: onVictim.length,
      timedOut: [...byId.values()].flatMap((w) => w.tasks).filter((x: any) => x.status !== 'COMPLETED').length,
    });
  for (const w of byId.values()) {
    expect(w.status).toBe('COMPLETED');
    expect(refs.map((r) => w.tasks.filter((x: any) => x.referenceTaskName === r && x.status === 'COMPLETED').length)).toEqual([1, 1, 1]);
  }
}, 90_000); // room for the waits above to fail with their own message
