import { call, eventually } from './baton';
import { uniq, type LoadTarget } from './fault-load';
import type { RealCluster } from './real-cluster';
import type { WorkerAction } from './recording-workers';

// Work that puts the replicas in a particular state when a fault strikes, beside the load of fault-load.ts:
// long turns (INLINE scripts that keep their actor busy), sub-workflows whose first child fails and is
// retried, and per-second schedules; and the checks that each of them came through the fault whole.

const auth = (cluster: LoadTarget) => ({ headers: cluster.headers?.() ?? {} });

const ok = async (cluster: LoadTarget, path: string, body: unknown): Promise<void> => {
  const r = await call(cluster.nextUrl(), 'POST', path, body, auth(cluster));
  if (r.status !== 200) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
};

/** Starts one execution through the live replicas, trying another one while a start is refused. */
export const startOne = (cluster: RealCluster, name: string, input: Record<string, unknown> = {}): Promise<string> =>
  eventually(async () => {
    const r = await call(cluster.nextUrl(), 'POST', '/api/workflow', { name, input });
    if (r.status !== 200) throw new Error(`start of ${name} answered ${r.status}: ${r.text}`);
    return r.text;
  }, 180_000);

/**
 * A workflow that waits `waitSeconds`, then runs `tasks` INLINE tasks that each spin `ms` on the replica that
 * hosts it: that turn holds the actor tasks x ms. The WAIT lets its start answer at once.
 */
export async function defineLongTurn(cluster: RealCluster, waitSeconds = 3, tasks = 4, ms = 2500): Promise<string> {
  const name = uniq('longturn');
  const spin = `(function () { var t = Date.now(); while (Date.now() - t < ${ms}) {} return $.n; })()`;
  await ok(cluster, '/api/metadata/workflowdef', {
    name,
    version: 1,
    schemaVersion: 2,
    tasks: [
      { name: 'pause', taskReferenceName: 'pause', type: 'WAIT', inputParameters: { duration: `${waitSeconds} seconds` } },
      ...Array.from({ length: tasks }, (_, i) => ({
        name: `spin${i}`,
        taskReferenceName: `spin${i}`,
        type: 'INLINE',
        inputParameters: { evaluatorType: 'javascript', expression: spin, n: i },
      })),
    ],
    outputParameters: { last: `\${spin${tasks - 1}.output.result}` },
  });
  return name;
}

export interface SubWorkflowRetryDefs {
  parent: string;
  childTask: string;
}

/**
 * A parent whose SUB_WORKFLOW task is retried once after `retryDelaySeconds` when its child fails; the child
 * runs one worker task that carries the parent's id, so a worker can fail the first child of each parent.
 */
export async function defineSubWorkflowRetry(cluster: RealCluster, retryDelaySeconds = 3): Promise<SubWorkflowRetryDefs> {
  const child = uniq('child');
  const childTask = uniq('childtask');
  const parent = uniq('parent');
  const subTask = uniq('sub');
  await ok(cluster, '/api/metadata/taskdef', [
    // Retried after a response timeout (an update lost with a killed replica); a terminal failure ends the child.
    { name: childTask, retryCount: 2, retryLogic: 'FIXED', retryDelaySeconds: 1, responseTimeoutSeconds: 6, timeoutSeconds: 600 },
    // The SUB_WORKFLOW task's own definition: a failed child is retried as a new child after the delay.
    { name: subTask, retryCount: 1, retryLogic: 'FIXED', retryDelaySeconds, timeoutSeconds: 600, responseTimeoutSeconds: 600 },
  ]);
  await ok(cluster, '/api/metadata/workflowdef', {
    name: child,
    version: 1,
    schemaVersion: 2,
    tasks: [{ name: childTask, taskReferenceName: 'work', inputParameters: { parent: '${workflow.input.parent}' } }],
    outputParameters: { by: '${work.output.by}' },
  });
  await ok(cluster, '/api/metadata/workflowdef', {
    name: parent,
    version: 1,
    schemaVersion: 2,
    tasks: [
      {
        name: subTask,
        taskReferenceName: 'sub',
        type: 'SUB_WORKFLOW',
        subWorkflowParam: { name: child, version: 1 },
        inputParameters: { parent: '${workflow.workflowId}' },
      },
    ],
    outputParameters: { by: '${sub.output.by}' },
  });
  return { parent, childTask };
}

/** A worker's decision for the child task: the first child of each parent fails for good, every later one completes. */
export function firstChildFails(): { decide: (t: { inputData?: Record<string, unknown> }) => WorkerAction; failedParents: () => number } {
  const failed = new Set<string>();
  return {
    decide: (t) => {
      const parent = String(t.inputData?.parent);
      if (failed.has(parent)) return 'complete';
      failed.add(parent);
      return 'terminal';
    },
    failedParents: () => failed.size,
  };
}

/**
 * Every parent COMPLETED with its last child's output; before it only failed children, at most one. A first
 * child whose failure was lost with a killed replica came back by its response timeout and completed, so most
 * parents, not all, show the retry: at least `minRetried` of them.
 */
export async function expectRetriedSubWorkflows(cluster: RealCluster, ids: string[], minRetried = Math.ceil(ids.length / 2)): Promise<void> {
  const pending = new Set(ids);
  await eventually(
    async () => {
      for (const id of [...pending]) {
        const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}?includeTasks=true`).catch(() => undefined);
        if (r?.status === 200 && r.body.status === 'COMPLETED') pending.delete(id);
        else if (r?.status === 200) expect(r.body.status).toBe('RUNNING');
      }
      return pending.size === 0 ? true : undefined;
    },
    300_000,
    1000,
  ).catch((err) => {
    throw new Error(`${pending.size} parents did not complete (e.g. ${[...pending].slice(0, 3).join(', ')}): ${String(err)}`);
  });
  let retried = 0;
  for (const id of ids) {
    const w = (await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}?includeTasks=true`)).body;
    expect(w.output).toEqual({ by: 'recorder' });
    const attempts = (w.tasks as Array<{ taskType: string; status: string; subWorkflowId?: string }>).filter((t) => t.taskType === 'SUB_WORKFLOW');
    expect([['COMPLETED'], ['FAILED', 'COMPLETED']]).toContainEqual(attempts.map((t) => t.status));
    expect(new Set(attempts.map((t) => t.subWorkflowId)).size).toBe(attempts.length);
    if (attempts.length === 2) retried++;
  }
  expect(retried).toBeGreaterThanOrEqual(minRetried);
}

/** Every long-turn execution COMPLETED with its last script's result. */
export async function expectLongTurnsCompleted(cluster: RealCluster, ids: string[], tasks = 4): Promise<void> {
  for (const id of ids) {
    const w = await eventually(
      async () => {
        const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}`).catch(() => undefined);
        return r?.status === 200 && r.body.status !== 'RUNNING' ? r.body : undefined;
      },
      300_000,
      1000,
    );
    expect({ id, status: w.status, output: w.output }).toEqual({ id, status: 'COMPLETED', output: { last: tasks - 1 } });
  }
}

/** A schedule firing every second, with catch-up: every slot after its creation is due, none may be skipped. */
export async function createEverySecondSchedule(cluster: LoadTarget, workflow: string): Promise<string> {
  const name = uniq('every_second');
  await ok(cluster, '/api/scheduler/schedules', {
    name,
    cronExpression: '* * * * * ?',
    runCatchupScheduleInstances: true,
    startWorkflowRequest: { name: workflow, version: 1 },
  });
  return name;
}

type Execution = { scheduledTime: number; workflowId?: string; state: string };

export const scheduleExecutions = async (cluster: LoadTarget, name: string): Promise<Execution[]> => {
  const r = await call<{ results: Execution[] }>(
    cluster.nextUrl(),
    'GET',
    `/api/scheduler/search/executions?query=${encodeURIComponent(`scheduleName=${name}`)}&size=1000`,
    undefined,
    auth(cluster),
  );
  if (r.status !== 200) throw new Error(`schedule executions answered ${r.status}: ${r.text}`);
  return r.body.results;
};

/**
 * Pauses the schedule, then checks its slots: one execution per second from its first slot to its last,
 * none missing, each EXECUTED with a workflow of its own, and exactly one workflow per slot behind them
 * (the search by correlation id counts every execution the schedule started, a second start included).
 */
export async function expectEverySlotOnce(cluster: LoadTarget, name: string, workflow: string): Promise<number> {
  expect((await call(cluster.nextUrl(), 'PUT', `/api/scheduler/schedules/${name}/pause`, undefined, auth(cluster))).status).toBe(200);
  // A firing planned before the pause may still start its slots: wait until the executions stop changing.
  let runs: Execution[] = [];
  await eventually(
    async () => {
      const now = await scheduleExecutions(cluster, name);
      const settled = now.length === runs.length && now.every((e) => e.state === 'EXECUTED');
      runs = now;
      return settled ? true : undefined;
    },
    120_000,
    3000,
  );
  const slots = runs.map((e) => e.scheduledTime).sort((a, b) => a - b);
  const gaps = slots
    .slice(1)
    .map((s, i) => s - slots[i]!)
    .filter((d) => d !== 1000);
  expect({ name, gaps }).toEqual({ name, gaps: [] });
  expect(new Set(runs.map((e) => e.workflowId)).size).toBe(runs.length);
  const query = encodeURIComponent(`workflowType IN (${workflow}) AND correlationId IN (${name})`);
  await eventually(
    async () => {
      const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/search?query=${query}&size=1`, undefined, auth(cluster));
      return r.status === 200 && r.body.totalHits === runs.length ? true : undefined;
    },
    60_000,
    1000,
  ).catch(async (err) => {
    const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/search?query=${query}&size=1`, undefined, auth(cluster));
    throw new Error(`${runs.length} slots of ${name}, ${String(r.body?.totalHits)} workflows found: ${String(err)}`);
  });
  return runs.length;
}
