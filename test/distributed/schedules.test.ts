import { call, eventually } from '../support/baton';
import { uniqueName } from '../support/names';
import { startCluster, type TestCluster } from './cluster';

// Schedules in the distributed profile: each is a ScheduleActor whose Dapr reminder (the sidecar
// double's, in real Redis) fires on the one replica hosting it. Replicas that start, arm every
// schedule again and die must never make a slot fire twice.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'] });
}, 60_000);
afterAll(async () => {
  await cluster?.stop();
}, 60_000);

type Execution = { scheduleName: string; scheduledTime: number; workflowId?: string; state: string };

const executionsOf = async (name: string): Promise<Execution[]> =>
  (
    await call<{ results: Execution[] }>(
      cluster.nextUrl(),
      'GET',
      `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${name}`)}&size=1000`,
    )
  ).body.results;

/** One record and one workflow per slot: no slot fired twice. */
async function expectOncePerSlot(name: string, wf: string, atLeast: number): Promise<void> {
  const runs = await eventually(
    async () => {
      const e = await executionsOf(name);
      return e.length >= atLeast && e;
    },
    45_000,
    250,
  );
  const slots = runs.map((e) => e.scheduledTime);
  expect(new Set(slots).size).toBe(slots.length);
  expect(runs.every((e) => e.state === 'EXECUTED')).toBe(true);
  // The workflows themselves (correlated by the schedule's name): as many as distinct slots, one per slot.
  const started = (
    await call<Array<{ input: { _scheduledTime: number } }>>(cluster.nextUrl(), 'GET', `/api/workflow/${wf}/correlated/${name}?includeClosed=true`)
  ).body;
  const startedSlots = started.map((w) => w.input._scheduledTime);
  expect(new Set(startedSlots).size).toBe(startedSlots.length);
  for (const s of slots) expect(startedSlots).toContain(s);
}

test('schedules on two replicas fire once per slot, also while a third replica joins and one dies', async () => {
  const [A, B] = cluster.replicas as [TestCluster['replicas'][0], TestCluster['replicas'][0]];
  const wf = uniqueName('dist_sched_wf');
  expect(
    (await call(A.url, 'POST', '/api/metadata/workflowdef', { name: wf, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] })).status,
  ).toBe(200);
  // Enough schedules that placement puts some on each replica; saved alternately through A and B.
  const names = Array.from({ length: 6 }, () => uniqueName('dist_sched'));
  for (const [i, name] of names.entries()) {
    const r = await call((i % 2 ? B : A).url, 'POST', '/api/scheduler/schedules', {
      name,
      cronExpression: '* * * * * ?',
      startWorkflowRequest: { name: wf, version: 1 },
    });
    expect(r.status).toBe(200);
  }
  const hosts = new Set(names.map((n) => cluster.double.placementOf('ScheduleActor', n)));
  expect(hosts).toEqual(new Set([A.port, B.port]));
  for (const name of names) await expectOncePerSlot(name, wf, 3);

  // A third replica arms every schedule again at its start (idempotent), and actors move to it.
  await cluster.addReplica('C');
  for (const name of names) {
    const n = (await executionsOf(name)).length;
    await expectOncePerSlot(name, wf, n + 3);
  }

  // A replica dies mid-firing: its schedules' reminders fire on the survivors, still once per slot.
  const victim = cluster.replicas.find((r) => names.some((n) => cluster.double.placementOf('ScheduleActor', n) === r.port))!;
  await cluster.kill(victim);
  for (const name of names) {
    const n = (await executionsOf(name)).length;
    await expectOncePerSlot(name, wf, n + 3);
  }
  for (const name of names) expect((await call(cluster.nextUrl(), 'DELETE', `/api/scheduler/schedules/${name}`)).status).toBe(200);
}, 180_000);

test('pause on one replica stops the firing hosted on the other', async () => {
  const wf = uniqueName('dist_pause_wf');
  const live = cluster.replicas.filter((r) => r.alive);
  await call(live[0]!.url, 'POST', '/api/metadata/workflowdef', { name: wf, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] });
  const name = uniqueName('dist_pause');
  await call(live[0]!.url, 'POST', '/api/scheduler/schedules', { name, cronExpression: '* * * * * ?', startWorkflowRequest: { name: wf } });
  await eventually(async () => (await executionsOf(name)).length >= 2, 30_000, 250);
  const other = live.find((r) => r.port !== cluster.double.placementOf('ScheduleActor', name)) ?? live[0]!;
  expect((await call(other.url, 'PUT', `/api/scheduler/schedules/${name}/pause`)).status).toBe(200);
  // The pause is a turn of the schedule's actor: its reminder is gone once it answers. A firing that
  // had started before it may still record; none after.
  const settled = (await executionsOf(name)).length;
  const control = uniqueName('dist_control');
  await call(other.url, 'POST', '/api/scheduler/schedules', { name: control, cronExpression: '* * * * * ?', startWorkflowRequest: { name: wf } });
  await eventually(async () => (await executionsOf(control)).length >= 3, 30_000, 250);
  expect((await executionsOf(name)).length).toBeLessThanOrEqual(settled + 1);
  for (const n of [name, control]) await call(other.url, 'DELETE', `/api/scheduler/schedules/${n}`);
}, 120_000);
