import { apiClient } from '../support/api-client';
import { eventually } from '../support/baton';
import { uniqueName } from '../support/names';
import { startCluster, type TestCluster } from './cluster';

// The per-root limits hold across replicas of the distributed profile (Dapr sidecar double, counters in
// Redis): a self-forking workflow whose executions run on both replicas, and an event handler whose
// starts are triggered through the pub/sub topic, stop at BATON_MAX_DESCENDANTS_PER_ROOT in total.

const DESCENDANTS = 30;
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster({ replicas: ['A', 'B'], env: { BATON_MAX_DESCENDANTS_PER_ROOT: String(DESCENDANTS), BATON_MAX_WORKFLOW_GENERATIONS: '64' } });
});
afterAll(async () => {
  await cluster?.stop();
});

const A = apiClient(() => cluster.replicas[0]!.url);
const B = apiClient(() => cluster.replicas[1]!.url);
const executionsOf = async (name: string): Promise<number> =>
  (await A.call('GET', `/api/workflow/search?size=0&query=${encodeURIComponent(`workflowType='${name}'`)}`)).body.totalHits;

/** Fails as soon as `name` has more than `most` executions; answers the count once `settled` holds and the index stays put. */
async function watchUntil(name: string, most: number, settled: () => Promise<boolean>): Promise<number> {
  for (const deadline = Date.now() + 60_000; ;) {
    expect(await executionsOf(name)).toBeLessThanOrEqual(most);
    expect((await B.call('GET', '/health')).status).toBe(200);
    if (await settled()) break;
    if (Date.now() > deadline) throw new Error(`${name} did not settle`);
    await new Promise((r) => setTimeout(r, 200));
  }
  let last = -1;
  return eventually(
    async () => {
      const n = await executionsOf(name);
      const stable = n === last;
      last = n;
      if (stable) await new Promise((r) => setTimeout(r, 500));
      return stable && (await executionsOf(name)) === n ? n : undefined;
    },
    30_000,
    200,
  );
}

test('a workflow whose FORK starts two copies of itself stops at BATON_MAX_DESCENDANTS_PER_ROOT across replicas', async () => {
  const name = uniqueName('dist_self_fork');
  const sub = (ref: string) => ({ name: ref, taskReferenceName: ref, type: 'SUB_WORKFLOW', subWorkflowParam: { name, version: 1 } });
  await A.register({
    name,
    tasks: [
      { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks: [[sub('left')], [sub('right')]] },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['left', 'right'] },
    ],
  });
  const root = await A.start(name);
  const total = await watchUntil(name, DESCENDANTS + 1, async () => (await B.workflow(root, false)).status === 'FAILED');
  expect(total).toBe(DESCENDANTS + 1);
});

test('an event handler that starts two copies on each completion stops at BATON_MAX_DESCENDANTS_PER_ROOT across replicas', async () => {
  const name = uniqueName('dist_self_trigger');
  const handler = `${name}_on_done`;
  await A.register({
    name,
    workflowStatusListenerEnabled: true,
    tasks: [{ name: 'mark', taskReferenceName: 'mark', type: 'SET_VARIABLE', inputParameters: { seen: true } }],
  });
  const start = { action: 'start_workflow', start_workflow: { name, version: 1 } };
  expect(
    (
      await A.call('POST', '/api/event', {
        name: handler,
        event: `baton:workflow:${name}`,
        condition: "$.status == 'COMPLETED'",
        active: true,
        actions: [start, start],
      })
    ).status,
  ).toBe(200);
  const root = await B.start(name);
  const records = async (): Promise<any[]> =>
    ((await A.call('GET', `/api/event/execution/${handler}?from=0`)).body as any[]).concat(
      (await A.call('GET', `/api/event/execution/${handler}?from=100`)).body as any[],
    );
  const total = await watchUntil(name, DESCENDANTS + 1, async () => (await records()).filter((x) => x.status !== 'SKIPPED').length === 2 * (DESCENDANTS + 1));
  expect(total).toBe(DESCENDANTS + 1);
  const refused = (await records()).filter((x) => x.status === 'FAILED');
  expect(refused.length).toBeGreaterThan(0);
  for (const x of refused)
    expect(x.output.error).toBe(
      `Workflow ${name} not started: root execution ${root} already has ${DESCENDANTS} descendant executions, the limit (BATON_MAX_DESCENDANTS_PER_ROOT)`,
    );
});
