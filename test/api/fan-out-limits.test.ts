import { apiClient } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// One action may not grow a tree of executions without end: every start made by a workflow or by an event
// handler acting on a workflow's event counts against its root execution (BATON_MAX_DESCENDANTS_PER_ROOT,
// BATON_MAX_STARTS_PER_ROOT_PER_SECOND) and its chain (BATON_MAX_WORKFLOW_GENERATIONS). Small limits here so
// each runaway stops fast; before them a self-forking workflow made 28,656 executions in 3 s and
// `/health` went unanswered for minutes.

const GENERATIONS = 6;
const DESCENDANTS = 40;

let b: TestBaton;
const api = apiClient(() => b.url);
beforeAll(async () => {
  b = await startBaton({
    BATON_MAX_WORKFLOW_GENERATIONS: String(GENERATIONS),
    BATON_MAX_DESCENDANTS_PER_ROOT: String(DESCENDANTS),
    BATON_MAX_STARTS_PER_ROOT_PER_SECOND: '1000',
  });
});
afterAll(async () => {
  await b?.stop();
});

const executionsOf = async (name: string): Promise<number> =>
  (await api.call('GET', `/api/workflow/search?size=0&query=${encodeURIComponent(`workflowType='${name}'`)}`)).body.totalHits;

/**
 * Watches the executions of `name` until `settled` holds, failing as soon as there are more than `most`; and
 * each round an unrelated request must answer. Answers the final count once the index caught up.
 */
async function watchUntil(name: string, most: number, settled: () => Promise<boolean>): Promise<number> {
  for (const deadline = Date.now() + 30_000; ;) {
    expect(await executionsOf(name)).toBeLessThanOrEqual(most);
    expect((await api.call('GET', '/health')).status).toBe(200);
    if (await settled()) break;
    if (Date.now() > deadline) throw new Error(`${name} did not settle`);
    await new Promise((r) => setTimeout(r, 100));
  }
  // The index is written a moment after each turn: wait for it to show every execution, then for it to stay.
  let last = -1;
  return eventually(async () => {
    const n = await executionsOf(name);
    const stable = n === last;
    last = n;
    if (stable) await new Promise((r) => setTimeout(r, 300));
    return stable && (await executionsOf(name)) === n ? n : undefined;
  });
}

/** Every execution reachable from `root` through SUB_WORKFLOW tasks (a refused start names a child that does not exist). */
async function tree(root: string): Promise<any[]> {
  const all: any[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const r = await api.call('GET', `/api/workflow/${queue.shift()!}?includeTasks=true`);
    if (r.status === 404) continue;
    expect(r.status).toBe(200);
    all.push(r.body);
    for (const t of r.body.tasks ?? []) if (t.taskType === 'SUB_WORKFLOW' && t.subWorkflowId) queue.push(t.subWorkflowId);
  }
  return all;
}

test('a workflow whose FORK starts two copies of itself stops at BATON_MAX_DESCENDANTS_PER_ROOT, the refused SUB_WORKFLOW saying why', async () => {
  const name = uniqueName('self_fork');
  const sub = (ref: string) => ({ name: ref, taskReferenceName: ref, type: 'SUB_WORKFLOW', subWorkflowParam: { name, version: 1 } });
  await api.register({
    name,
    tasks: [
      { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks: [[sub('left')], [sub('right')]] },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['left', 'right'] },
    ],
  });
  const root = await api.start(name);
  const total = await watchUntil(name, DESCENDANTS + 1, async () => (await api.workflow(root, false)).status === 'FAILED');
  expect(total).toBe(DESCENDANTS + 1);
  const executions = await tree(root);
  expect(executions).toHaveLength(DESCENDANTS + 1);
  for (const w of executions.slice(1)) expect(w).toMatchObject({ rootWorkflowId: root, generation: expect.any(Number) });
  // The refused SUB_WORKFLOW tasks (their parents' tasks above them fail in turn, quoting the reason).
  const refused = executions
    .flatMap((w) => w.tasks)
    .filter((t: any) => t.taskType === 'SUB_WORKFLOW' && (t.reasonForIncompletion ?? '').startsWith(`Workflow ${name} not started`));
  expect(refused.length).toBeGreaterThan(0);
  expect(refused[0]).toMatchObject({
    status: 'FAILED_WITH_TERMINAL_ERROR',
    reasonForIncompletion: `Workflow ${name} not started: root execution ${root} already has ${DESCENDANTS} descendant executions, the limit (BATON_MAX_DESCENDANTS_PER_ROOT)`,
  });
  // Another root has a budget of its own.
  const other = await api.start(name);
  await api.waitForStatus(other, 'FAILED');
  expect((await tree(other)).length).toBe(DESCENDANTS + 1);
});

test('a workflow that starts itself by START_WORKFLOW stops at BATON_MAX_WORKFLOW_GENERATIONS, the refused task saying why', async () => {
  const name = uniqueName('self_start');
  await api.register({
    name,
    tasks: [{ name: 'again', taskReferenceName: 'again', type: 'START_WORKFLOW', inputParameters: { startWorkflow: { name, version: 1 } } }],
  });
  const root = await api.start(name);
  let chain: any[] = [];
  const total = await watchUntil(name, GENERATIONS + 1, async () => {
    chain = [await api.workflow(root)];
    for (let w = chain[0]; w.tasks[0]?.status === 'COMPLETED'; chain.push(w)) w = await api.workflow(w.tasks[0].outputData.workflowId);
    return chain.length === GENERATIONS + 1 && chain[GENERATIONS].status === 'FAILED';
  });
  expect(total).toBe(GENERATIONS + 1);
  expect(chain.map((w) => w.generation ?? 0)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  expect(chain[GENERATIONS].tasks[0]).toMatchObject({
    taskType: 'START_WORKFLOW',
    status: 'FAILED',
    reasonForIncompletion: `Workflow ${name} not started: it would be generation ${GENERATIONS + 1} below root execution ${root}, over the limit of ${GENERATIONS} (BATON_MAX_WORKFLOW_GENERATIONS)`,
  });
});

test('START_WORKFLOW of a workflow that does not exist fails with the reason, as Conductor does', async () => {
  const name = uniqueName('start_missing');
  await api.register({
    name,
    tasks: [{ name: 'go', taskReferenceName: 'go', type: 'START_WORKFLOW', inputParameters: { startWorkflow: { name: `${name}_nowhere` } } }],
  });
  const w = await api.waitForStatus(await api.start(name), 'FAILED');
  expect(w.tasks![0]).toMatchObject({ status: 'FAILED', reasonForIncompletion: `No such workflow found by name: ${name}_nowhere, version: null` });
});

/** A workflow that completes at once and announces it, and a handler that starts it (`copies` times) on its completion. */
async function selfTriggering(copies: number): Promise<{ name: string; handler: string }> {
  const name = uniqueName('self_trigger');
  const handler = `${name}_on_done`;
  await api.register({
    name,
    workflowStatusListenerEnabled: true,
    tasks: [{ name: 'mark', taskReferenceName: 'mark', type: 'SET_VARIABLE', inputParameters: { seen: true } }],
  });
  const start = { action: 'start_workflow', start_workflow: { name, version: 1, input: { from: '${workflowId}' } } };
  const r = await api.call('POST', '/api/event', {
    name: handler,
    event: `baton:workflow:${name}`,
    condition: "$.status == 'COMPLETED'",
    active: true,
    actions: Array.from({ length: copies }, () => start),
  });
  expect(r.status).toBe(200);
  return { name, handler };
}

const handlerExecutions = async (handler: string): Promise<any[]> => {
  const all: any[] = [];
  for (let from = 0; ; from += 100) {
    const page = (await api.call('GET', `/api/event/execution/${handler}?from=${from}`)).body as any[];
    all.push(...page);
    if (page.length < 100) return all;
  }
};

test('an event handler that starts the workflow whose completion triggers it stops at BATON_MAX_WORKFLOW_GENERATIONS, the refused action saying why', async () => {
  const { name, handler } = await selfTriggering(1);
  const root = await api.start(name);
  const total = await watchUntil(name, GENERATIONS + 1, async () => (await handlerExecutions(handler)).some((x) => x.status === 'FAILED'));
  expect(total).toBe(GENERATIONS + 1);
  const failed = (await handlerExecutions(handler)).filter((x) => x.status === 'FAILED');
  expect(failed).toHaveLength(1);
  expect(failed[0].output.error).toBe(
    `Workflow ${name} not started: it would be generation ${GENERATIONS + 1} below root execution ${root}, over the limit of ${GENERATIONS} (BATON_MAX_WORKFLOW_GENERATIONS)`,
  );
  await api.call('DELETE', `/api/event/${handler}`);
});

test('an event handler that starts two copies on each completion stops at BATON_MAX_DESCENDANTS_PER_ROOT', async () => {
  const { name, handler } = await selfTriggering(2);
  const root = await api.start(name);
  const refusedByCount = (x: any) => x.status === 'FAILED' && /BATON_MAX_DESCENDANTS_PER_ROOT/.test(x.output.error);
  // Each generation doubles: 2 + 4 + 8 + 16 = 30 < 40 < 62, so the count stops it before the generations do.
  const total = await watchUntil(name, DESCENDANTS + 1, async () => {
    // Two actions on each completion; every RUNNING event is one SKIPPED record.
    const records = (await handlerExecutions(handler)).filter((x) => x.status !== 'SKIPPED');
    return records.some(refusedByCount) && records.length === 2 * (DESCENDANTS + 1);
  });
  expect(total).toBe(DESCENDANTS + 1);
  const refused = (await handlerExecutions(handler)).filter((x) => x.status === 'FAILED');
  expect(refused.length).toBeGreaterThan(0);
  for (const x of refused)
    expect(x.output.error).toBe(
      `Workflow ${name} not started: root execution ${root} already has ${DESCENDANTS} descendant executions, the limit (BATON_MAX_DESCENDANTS_PER_ROOT)`,
    );
  await api.call('DELETE', `/api/event/${handler}`);
});

test('a mocked test run (POST /api/workflow/test) waits for a START_WORKFLOW to report its start', async () => {
  const started = uniqueName('test_run_started');
  await api.register({ name: started, tasks: [{ name: 'mark', taskReferenceName: 'mark', type: 'SET_VARIABLE', inputParameters: { done: true } }] });
  const name = uniqueName('test_run_starter');
  const def = {
    name,
    version: 1,
    schemaVersion: 2,
    tasks: [{ name: 'go', taskReferenceName: 'go', type: 'START_WORKFLOW', inputParameters: { startWorkflow: { name: started } } }],
  };
  const r = await api.call('POST', '/api/workflow/test', { name, workflowDef: def, input: {}, taskRefToMockOutput: {} });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    status: 'COMPLETED',
    tasks: [{ referenceTaskName: 'go', status: 'COMPLETED', outputData: { workflowId: expect.any(String) } }],
  });
  expect((await api.workflow(r.body.tasks[0].outputData.workflowId)).workflowName).toBe(started);
});
