import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Schedules on real engines: two replicas with real daprd sidecars (actor reminders through the
// Dapr scheduler), Cassandra (the slot mark moved by lightweight transactions) and Elasticsearch.
// Each slot fires once, also after a replica is killed with -9.

let cluster: RealCluster;
let n = 0;
const uniq = (p: string): string => `${p}_${++n}_${Date.now().toString(36)}`;

type Execution = { scheduledTime: number; workflowId?: string; state: string };
const executionsOf = async (name: string): Promise<Execution[]> =>
  (
    await call<{ results: Execution[] }>(
      cluster.nextUrl(),
      'GET',
      `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${name}`)}&size=1000`,
    )
  ).body.results;

async function expectOncePerSlot(name: string, atLeast: number): Promise<Execution[]> {
  const runs = await eventually(
    async () => {
      const e = await executionsOf(name);
      return e.length >= atLeast && e;
    },
    120_000,
    500,
  );
  const slots = runs.map((e) => e.scheduledTime);
  expect(new Set(slots).size).toBe(slots.length);
  expect(new Set(runs.map((e) => e.workflowId)).size).toBe(runs.length);
  expect(runs.every((e) => e.state === 'EXECUTED')).toBe(true);
  return runs;
}

engineSuite('distributed profile on real engines', missingRealCluster())('schedules on two real replicas', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'] });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('per-second schedules fire once per slot, before and after a replica is killed', async () => {
    const wf = uniq('rt_sched_wf');
    expect(
      (
        await call(cluster.nextUrl(), 'POST', '/api/metadata/workflowdef', {
          name: wf,
          version: 1,
          tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }],
        })
      ).status,
    ).toBe(200);
    const names = Array.from({ length: 4 }, () => uniq('rt_sched'));
    for (const name of names) {
      const r = await call(cluster.nextUrl(), 'POST', '/api/scheduler/schedules', {
        name,
        cronExpression: '* * * * * ?',
        startWorkflowRequest: { name: wf, version: 1 },
      });
      expect(r.status).toBe(200);
    }
    for (const name of names) await expectOncePerSlot(name, 3);
    const victim = cluster.replicas[0]!;
    await cluster.kill(victim);
    for (const name of names) {
      const before = (await executionsOf(name)).length;
      const runs = await expectOncePerSlot(name, before + 3);
      const w = await call(cluster.nextUrl(), 'GET', `/api/workflow/${runs[0]!.workflowId}?includeTasks=false`);
      expect(w.body).toMatchObject({ workflowName: wf, correlationId: name, input: { _scheduledTime: runs[0]!.scheduledTime } });
    }
    for (const name of names) expect((await call(cluster.nextUrl(), 'DELETE', `/api/scheduler/schedules/${name}`)).status).toBe(200);
  });
});
