import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { pidOwningLocalPort } from '../support/socket-owner';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Batches by query on real engines: two replicas with real daprd sidecars, the batch in Cassandra, the search in
// Elasticsearch, one runner at a time under the Redis lease. A replica is killed with -9 mid-batch; the batch finishes
// and no execution is acted on twice. The counter: each execution's only task calls this test's server naming the
// execution and the task, so a restart shows as calls from task ids the execution did not have before it.
// The HTTP task has a definition that retries it: a call in flight on the killed replica is lost with it, times out
// when its heartbeats stop, and is retried as a new attempt (Conductor times out such a task and lets its retry policy
// decide, AsyncSystemTaskExecutor); without retries that execution would fail, as in Conductor.

const EXECUTIONS = 16;
let cluster: RealCluster;
/** Task ids that called, by execution, in the order the calls came. */
const hits = new Map<string, string[]>();
/** While set, calls are answered only when it is released, each with the port it came from. */
let held: Array<{ port: number; answer: () => void }> | undefined;
const counter = http.createServer((req, res) => {
  const [workflowId = '', taskId = ''] = (req.url ?? '').replace(/^\/hit\//, '').split('/');
  hits.set(workflowId, [...(hits.get(workflowId) ?? []), taskId]);
  res.setHeader('content-type', 'application/json');
  const answer = (): void => void res.end('{"ok":true}');
  if (held) held.push({ port: req.socket.remotePort ?? 0, answer });
  else answer();
});

interface Execution {
  status: string;
  tasks: Array<{ taskId: string; status: string; retryCount: number }>;
}

engineSuite('distributed profile on real engines', missingRealCluster())('batches by query on two real replicas', () => {
  beforeAll(async () => {
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', () => r()));
    // Two executions per interval: the kill lands mid-batch.
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: { BATON_BATCH_BUDGET: '2', BATON_BATCH_INTERVAL_MS: '300' } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await new Promise<void>((r) => counter.close(() => r()));
  });

  test('a restart batch finishes after a replica is killed, each execution restarted once', async () => {
    const api = (m: string, p: string, b?: unknown) => call(cluster.nextUrl(), m, p, b);
    const name = `rt_batch_${Date.now().toString(36)}`;
    const port = (counter.address() as AddressInfo).port;
    const hit = { uri: `http://127.0.0.1:${port}/hit/\${workflow.workflowId}/\${CPEWF_TASK_ID}`, method: 'GET', readTimeOut: 60_000 };
    const taskDef = { name: `${name}_hit`, retryCount: 2, retryLogic: 'FIXED', retryDelaySeconds: 0, responseTimeoutSeconds: 10, timeoutSeconds: 0 };
    expect((await api('POST', '/api/metadata/taskdefs', [taskDef])).status).toBe(200);
    const task = { name: taskDef.name, taskReferenceName: 'hit', type: 'HTTP', inputParameters: { http_request: hit } };
    expect((await api('POST', '/api/metadata/workflow', { name, version: 1, tasks: [task] })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < EXECUTIONS; i++) ids.push((await api('POST', '/api/workflow', { name, input: { i } })).text);
    const completed = encodeURIComponent(`workflowType = '${name}' AND status = 'COMPLETED'`);
    await eventually(async () => (await api('GET', `/api/workflow/search?size=0&query=${completed}`)).body.totalHits === EXECUTIONS, 120_000, 500);
    const execution = async (id: string): Promise<Execution> => (await api('GET', `/api/workflow/${id}?includeTasks=true`)).body as Execution;
    const firstRun = new Map<string, string>();
    for (const id of ids) {
      const [t] = (await execution(id)).tasks;
      expect(hits.get(id)).toEqual([t!.taskId]);
      firstRun.set(id, t!.taskId);
    }

    const started = await api('POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'restart' });
    expect(started.body.matched).toBe(EXECUTIONS);
    const batch = started.body.id as string;
    await eventually(async () => (await api('GET', `/api/batch/${batch}`)).body.done >= 4, 120_000, 200);
    // The kill lands on a replica with calls in flight (and, its HTTP worker claiming ahead, more claimed tasks waiting).
    held = [];
    const pids = cluster.replicas.map((r) => r.baton.child.pid!);
    const caller = await eventually(async () => held!.map((h) => pidOwningLocalPort(h.port, pids)).find((pid) => pid !== undefined), 60_000, 50);
    await cluster.kill(cluster.replicas.find((r) => r.baton.child.pid === caller)!);
    const release = held;
    held = undefined;
    for (const h of release) h.answer();

    const done = await eventually(
      async () => {
        const b = (await api('GET', `/api/batch/${batch}`)).body;
        return b.state === 'COMPLETED' && b;
      },
      180_000,
      500,
    );
    expect(done.done + done.failed).toBe(EXECUTIONS);
    const failed = new Set((done.failures as Array<{ workflowId: string }>).map((f) => f.workflowId));
    // Once every execution has ended again, every call it made has been counted.
    const ended = new Map<string, Execution>();
    await eventually(
      async () => {
        for (const id of ids) {
          if (ended.has(id)) continue;
          const e = await execution(id);
          if (e.status !== 'RUNNING') ended.set(id, e);
        }
        if (ended.size < EXECUTIONS) throw new Error(`still running: ${ids.filter((id) => !ended.has(id)).join(' ')}`);
        return true;
      },
      120_000,
      500,
    );
    for (const id of ids) {
      const e = ended.get(id)!;
      const calls = hits.get(id) ?? [];
      const restarted = !e.tasks.some((t) => t.taskId === firstRun.get(id));
      // The execution's tasks now: one attempt, or more when an attempt was lost with the killed replica.
      const current = new Set(e.tasks.map((t) => t.taskId));
      const context = JSON.stringify({ id, failedInBatch: failed.has(id), calls, execution: e });
      expect([context, e.status]).toEqual([context, 'COMPLETED']);
      // Acted on once: only the first run's task and the current attempts ever called, each at most once.
      expect([context, calls.every((t) => t === firstRun.get(id) || current.has(t))]).toEqual([context, true]);
      expect([context, new Set(calls).size]).toEqual([context, calls.length]);
      // An execution the batch reported done was restarted; one it reported failed may or may not have been.
      if (!failed.has(id)) expect([context, restarted]).toEqual([context, true]);
    }
  });
});
