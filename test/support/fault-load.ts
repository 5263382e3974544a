import { existsSync, readFileSync } from 'node:fs';
import { call, eventually } from './baton';
import type { RealCluster } from './real-cluster';
import type { WorkerLog } from './recording-workers';

// The load every fault test on the real engines runs under, and what it checks afterwards: every workflow
// completes, no acknowledged completion is lost, none is handed out twice, every replica serves again
// within a measured time, and no sidecar lost its actor types to placement on the way.

export const WORKFLOWS = 200;

let n = 0;
export const uniq = (p: string): string => `${p}_${++n}_${Date.now().toString(36)}`;

/** Where the load goes: a cluster of processes (RealCluster) or a Deployment behind its Service. */
export interface LoadTarget {
  nextUrl(): string;
  /** The replicas to probe for "serves again" (a Deployment: its Service). */
  live(): Array<{ name: string; url: string }>;
  /** Headers of every call (auth on: an access token). */
  headers?: () => Record<string, string>;
}

const auth = (cluster: LoadTarget) => ({ headers: cluster.headers?.() ?? {} });

export interface LoadDefs {
  name: string;
  taskType: string;
  /** A workflow that completes inside its start (one SET_VARIABLE): the probe of "serves again". */
  probe: string;
}

/** Registers the load's task and workflow definitions: each workflow waits 2 s (WAIT), then runs one worker task. */
export async function defineLoad(cluster: LoadTarget): Promise<LoadDefs> {
  const taskType = uniq('fo');
  const name = uniq('fowf');
  const probe = uniq('probe');
  const url = cluster.nextUrl();
  const ok = async (path: string, body: unknown): Promise<void> => {
    const r = await call(url, 'POST', path, body, auth(cluster));
    if (r.status !== 200) throw new Error(`POST ${path} answered ${r.status}: ${r.text}`);
  };
  await ok('/api/metadata/taskdef', [
    { name: taskType, retryCount: 2, retryLogic: 'FIXED', retryDelaySeconds: 2, responseTimeoutSeconds: 6, timeoutSeconds: 600 },
  ]);
  await ok('/api/metadata/workflowdef', {
    name,
    version: 1,
    schemaVersion: 2,
    tasks: [
      { name: 'pause', taskReferenceName: 'wait', type: 'WAIT', inputParameters: { duration: '2 seconds' } },
      { name: taskType, taskReferenceName: 'work', inputParameters: { i: '${workflow.input.i}' } },
    ],
    outputParameters: { by: '${work.output.by}' },
  });
  await ok('/api/metadata/workflowdef', {
    name: probe,
    version: 1,
    schemaVersion: 2,
    tasks: [{ name: 'mark', taskReferenceName: 'mark', type: 'SET_VARIABLE', inputParameters: { seen: true } }],
  });
  return { name, taskType, probe };
}

/**
 * Starts `count` workflows through the live replicas in turn; a replica refusing a start is retried on another.
 * Each refused or failed start is added to `errors` when given.
 */
export async function startMany(cluster: LoadTarget, name: string, count: number, from = 0, errors?: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (let i = from; i < from + count; i++) {
    // A start whose execution hashes to a replica that just died fails until placement drops it.
    const id = await eventually(async () => {
      const r = await call(cluster.nextUrl(), 'POST', '/api/workflow', { name, input: { i } }, { timeoutMs: 30_000, ...auth(cluster) }).catch((err) => {
        errors?.push(`start ${String((err as { cause?: { code?: string } }).cause?.code ?? err)}`);
        throw err;
      });
      if (r.status !== 200) {
        errors?.push(`start ${r.status} ${r.text}`);
        throw new Error(`start answered ${r.status}: ${r.text}`);
      }
      return r.text;
    }, 180_000);
    ids.push(id);
  }
  return ids;
}

/** Every 10th workflow's task is ignored on its first attempt, every 10th+1 fails once. */
export const decide = (t: { retryCount?: number; inputData?: Record<string, unknown> }) => {
  const i = Number(t.inputData?.i);
  if ((t.retryCount ?? 0) > 0) return 'complete' as const;
  if (i % 10 === 0) return 'ignore' as const;
  if (i % 10 === 1) return 'fail' as const;
  return 'complete' as const;
};

/** `evidence`: what the servers logged about the executions left open (their ids), added to the failure. */
export async function expectAllCompleted(
  cluster: LoadTarget,
  ids: string[],
  log: WorkerLog,
  evidence?: (stuckIds: string[]) => Promise<string>,
): Promise<void> {
  const pending = new Set(ids);
  const ended: unknown[] = [];
  await eventually(
    async () => {
      for (const id of [...pending]) {
        const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}?includeTasks=true`, undefined, { timeoutMs: 10_000, ...auth(cluster) }).catch(
          () => undefined,
        );
        if (r?.status !== 200) continue;
        if (r.body.status === 'COMPLETED') pending.delete(id);
        else if (r.body.status !== 'RUNNING') {
          pending.delete(id);
          ended.push(executionSummary(r.body));
        }
      }
      return pending.size === 0 ? true : undefined;
    },
    300_000,
    1000,
  ).catch(async (err) => {
    // Which task each stuck execution waits on, and in which state: the evidence a failure needs.
    const stuck = await Promise.all(
      [...pending].slice(0, 10).map(async (id) => {
        const r = await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}?includeTasks=true`, undefined, { timeoutMs: 10_000, ...auth(cluster) }).catch(
          (e) => ({ body: String(e) }),
        );
        return executionSummary(r.body);
      }),
    );
    const logged = evidence ? `\nserver logs:\n${await evidence([...pending]).catch((e: unknown) => String(e))}` : '';
    throw new Error(
      `${pending.size} workflows did not complete: ${String(err)}\nworker errors: ${JSON.stringify(tally(log.errors))}\n${JSON.stringify(stuck, null, 1)}${logged}`,
    );
  });
  expect(ended).toEqual([]);
  // Every workflow took its output from the recorder.
  for (const id of ids) expect((await call(cluster.nextUrl(), 'GET', `/api/workflow/${id}`, undefined, auth(cluster))).body.output).toEqual({ by: 'recorder' });
  // Every acknowledged completion is stored COMPLETED (looked up by task: a start answered 503 after it
  // committed may have made one more execution than `ids` lists, whose task is acknowledged too).
  // An update that arrives after the task's response timeout ended it is answered 200 and ignored,
  // as in Conductor: that is not a lost update.
  const lost: unknown[] = [];
  for (const taskId of log.acknowledged) {
    const stored = (await call(cluster.nextUrl(), 'GET', `/api/tasks/${taskId}`, undefined, auth(cluster))).body;
    const ackedAt = log.ackedVia.get(taskId)?.at ?? 0;
    if (stored?.status === 'COMPLETED') continue;
    if (stored?.status === 'TIMED_OUT' && Number(stored.endTime) <= ackedAt) continue;
    lost.push({ taskId, ackedAt, status: stored?.status, endTime: stored?.endTime, updateTime: stored?.updateTime });
  }
  expect(lost).toEqual([]);
  if (log.handedOutAgain.length > 0) {
    const details = await Promise.all(
      log.handedOutAgain.map(async (h) => ({ ...h, stored: (await call(cluster.nextUrl(), 'GET', `/api/tasks/${h.taskId}`, undefined, auth(cluster))).body })),
    );
    throw new Error(`tasks handed out again after an acknowledged completion: ${JSON.stringify(details, null, 1)}`);
  }
}

/** An execution's status and each task's state, pollCount, worker and times: what a stuck one is waiting on. */
function executionSummary(body: any): unknown {
  if (typeof body !== 'object' || body === null) return body;
  return {
    workflowId: body.workflowId,
    status: body.status,
    input: body.input,
    tasks: (body.tasks ?? []).map((t: any) => ({
      ref: t.referenceTaskName,
      taskId: t.taskId,
      status: t.status,
      retryCount: t.retryCount,
      pollCount: t.pollCount,
      workerId: t.workerId,
      scheduledTime: t.scheduledTime,
      startTime: t.startTime,
      updateTime: t.updateTime,
      endTime: t.endTime,
      reason: t.reasonForIncompletion,
    })),
  };
}

const tally = (lines: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const l of lines) counts[l.slice(0, 80)] = (counts[l.slice(0, 80)] ?? 0) + 1;
  return counts;
};

/** How many probe starts in a row each live replica must answer 200 to count as serving. */
const SERVING_STREAK = 5;

/**
 * Milliseconds from `since` until every live replica answered SERVING_STREAK probe starts in a row with 200
 * (the ids spread over every host, so a replica still waiting on a dead host's actors breaks its streak).
 */
export async function timeUntilServing(cluster: LoadTarget, probe: string, since: number, withinMs = 120_000): Promise<number> {
  const streak = new Map<string, number>();
  const ready = (): boolean => cluster.live().every((r) => (streak.get(r.name) ?? 0) >= SERVING_STREAK);
  await eventually(
    async () => {
      await Promise.all(
        cluster.live().map(async (r) => {
          if ((streak.get(r.name) ?? 0) >= SERVING_STREAK) return;
          const res = await call(r.url, 'POST', '/api/workflow', { name: probe }, { timeoutMs: 5000, ...auth(cluster) }).catch(() => undefined);
          streak.set(r.name, res?.status === 200 ? (streak.get(r.name) ?? 0) + 1 : 0);
        }),
      );
      return ready() ? true : undefined;
    },
    withinMs,
    100,
  );
  return Date.now() - since;
}

/** Signs in a daprd log that placement dropped a sidecar or left its actor types blocked (issue: survivors wedged). */
const PLACEMENT_WEDGE = /dissemination timeout|changed types \[\]/;

/** The daprd log lines of every sidecar the cluster started that show a placement wedge. */
export function placementWedges(cluster: RealCluster): string[] {
  const found: string[] = [];
  for (const p of cluster.dapr.processes()) {
    if (!p.name.startsWith('daprd') || !existsSync(p.logFile)) continue;
    for (const line of readFileSync(p.logFile, 'utf8').split('\n')) if (PLACEMENT_WEDGE.test(line)) found.push(`${p.name}: ${line.slice(0, 300)}`);
  }
  return found;
}
