import { createServer, type Server } from 'node:http';
import { orkesConductorClient, TaskManager, type ConductorWorker } from '@io-orkes/conductor-javascript';
import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { freePort } from '../support/processes';
import { APP_ID, missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { quietLogger } from '../support/sdk';
import type { StartedDaprd } from '../support/dapr/daprd-processes';

// Flows that only exist with real sidecars, with auth on as in production: official SDK workers
// across replicas (signing in with their keys), a completion published by another app through its
// own daprd, a worker that reaches Baton through Dapr service invocation with a WORKER key,
// free-text task names, and an execution that stays usable after rejected calls.

const ADMIN = { keyId: 'flows-admin', keySecret: 'flows-admin-secret-0123456789abcdef' };
let cluster: RealCluster;
let adminToken = '';
/** SDK clients signed in with keys refresh their token on an interval until told to stop. */
const sdkClients: Array<{ stopBackgroundRefresh?: () => void }> = [];
let n = 0;
const uniq = (p: string): string => `${p}_${++n}_${Date.now().toString(36)}`;
const auth = (token: string) => ({ headers: { 'x-authorization': token } });
const api = <T = any>(method: string, path: string, body?: unknown) => call<T>(cluster.nextUrl(), method, path, body, auth(adminToken));
const tokenFor = async (key: { keyId: string; keySecret: string }): Promise<string> => {
  const r = await call(cluster.nextUrl(), 'POST', '/api/token', key);
  if (r.status !== 200) throw new Error(`POST /api/token: ${r.status} ${r.text}`);
  return r.body.token;
};
/** A new application with one role and one access key. */
const keyWithRole = async (role: string): Promise<{ keyId: string; keySecret: string }> => {
  const app = (await api('POST', '/api/applications', { name: uniq(role.toLowerCase()) })).body;
  expect((await api('POST', `/api/applications/${app.id}/roles/${role}`)).status).toBe(200);
  const key = (await api('POST', `/api/applications/${app.id}/accessKeys`)).body;
  return { keyId: key.id, keySecret: key.secret };
};
const wf = async (id: string) => (await api('GET', `/api/workflow/${id}?includeTasks=true`)).body;
const waitStatus = (id: string, status: string, limitMs = 60_000) => eventually(async () => ((await wf(id)).status === status ? true : undefined), limitMs);
const register = async (def: Record<string, unknown>) =>
  expect((await api('POST', '/api/metadata/workflowdef', { version: 1, schemaVersion: 2, ...def })).status).toBe(200);

engineSuite('distributed profile on real engines', missingRealCluster())('flows on two real replicas', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({
      replicas: ['A', 'B'],
      env: { BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN.keyId, BATON_ADMIN_KEY_SECRET: ADMIN.keySecret },
    });
    adminToken = await tokenFor(ADMIN);
  });
  afterAll(async () => {
    for (const c of sdkClients) c.stopBackgroundRefresh?.();
    await cluster?.stop();
  });

  test('official JS SDK workers (TaskManager) on each replica run workflows started on both', async () => {
    const t = uniq('sdk');
    const name = uniq('sdkwf');
    await api('POST', '/api/metadata/taskdef', [{ name: t, retryCount: 1 }]);
    await register({
      name,
      tasks: [
        { name: t, taskReferenceName: 'one', inputParameters: { x: '${workflow.input.x}' } },
        { name: t, taskReferenceName: 'two', inputParameters: { x: '${one.output.y}' } },
      ],
      outputParameters: { y: '${two.output.y}' },
    });
    const worker: ConductorWorker = { taskDefName: t, execute: async (task) => ({ status: 'COMPLETED', outputData: { y: Number(task.inputData?.x) * 2 } }) };
    const managers: TaskManager[] = [];
    const workerKey = await keyWithRole('WORKER');
    for (const r of cluster.replicas) {
      const client = await orkesConductorClient({ serverUrl: r.url, logger: quietLogger, ...workerKey });
      sdkClients.push(client);
      const m = new TaskManager(client, [worker], { logger: quietLogger, options: { workerID: `w-${r.name}`, pollInterval: 50, concurrency: 4 } });
      m.startPolling();
      managers.push(m);
    }
    try {
      const ids = await Promise.all(Array.from({ length: 20 }, async (_, i) => (await api('POST', '/api/workflow', { name, input: { x: i } })).text));
      for (const [i, id] of ids.entries()) {
        await waitStatus(id, 'COMPLETED');
        expect((await wf(id)).output).toEqual({ y: i * 4 });
      }
    } finally {
      await Promise.all(managers.map((m) => m.stopPolling()));
    }
  });

  test('a HUMAN task is completed by another service publishing through its own daprd', async () => {
    const name = uniq('human');
    await register({ name, tasks: [{ name: 'approve', taskReferenceName: 'approval', type: 'HUMAN' }], outputParameters: { by: '${approval.output.by}' } });
    const id = (await api('POST', '/api/workflow', { name })).text;
    await eventually(async () => ((await wf(id)).tasks?.[0]?.status === 'IN_PROGRESS' ? true : undefined));
    const publisher = await cluster.addForeignSidecar('approvals-service', 'approvals-service');
    try {
      const res = await fetch(`http://127.0.0.1:${publisher.daprHttpPort}/v1.0/publish/baton-pubsub/baton-task-completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workflowId: id, taskRefName: 'approval', status: 'COMPLETED', output: { by: 'ana' } }),
      });
      expect(res.status).toBe(204);
      await waitStatus(id, 'COMPLETED');
      expect((await wf(id)).output).toEqual({ by: 'ana' });
    } finally {
      await publisher.stop();
    }
  });

  describe('a worker with its own daprd, through Dapr service invocation', () => {
    let sidecar: StartedDaprd;
    let app: Server;
    beforeAll(async () => {
      // The worker app serves nothing Baton needs; daprd only wants a port to watch.
      const port = await freePort();
      app = createServer((_q, s) => s.end()).listen(port, '127.0.0.1');
      sidecar = await cluster.addForeignSidecar('worker-app', 'worker-app', port);
      // A new sidecar finds Baton's app id a little after it is up (it failed this test once under load): wait for an invocation to get through.
      await eventually(
        async () => (await call(`http://127.0.0.1:${sidecar.daprHttpPort}/v1.0/invoke/${APP_ID}/method`, 'GET', '/health')).status === 200,
        120_000,
        250,
      );
    });
    afterAll(async () => {
      await sidecar?.stop();
      app?.close();
    });

    test('polls and updates through /v1.0/invoke/<Baton>/method/api/... with a WORKER key', async () => {
      const t = uniq('viaDapr');
      const name = uniq('viaDaprWf');
      await register({ name, tasks: [{ name: t, taskReferenceName: 'x' }], outputParameters: { done: '${x.output.done}' } });
      const id = (await api('POST', '/api/workflow', { name })).text;
      const base = `http://127.0.0.1:${sidecar.daprHttpPort}/v1.0/invoke/${APP_ID}/method`;
      const workerKey = await keyWithRole('WORKER');
      const token = await tokenFor(workerKey);
      // Through the sidecar, Baton still wants a token, and a WORKER token may not manage executions.
      expect((await call(base, 'GET', `/api/tasks/poll/batch/${t}?count=1&timeout=100`)).status).toBe(401);
      expect((await call(base, 'DELETE', `/api/workflow/${id}`, undefined, auth(token))).status).toBe(403);
      const task = await eventually(
        async () => (await call(base, 'GET', `/api/tasks/poll/batch/${t}?count=1&timeout=500&workerid=dapr-worker`, undefined, auth(token))).body[0],
      );
      expect(task.workflowInstanceId).toBe(id);
      const up = await call(
        base,
        'POST',
        '/api/tasks',
        { workflowInstanceId: id, taskId: task.taskId, status: 'COMPLETED', outputData: { done: true } },
        auth(token),
      );
      expect(up.status).toBe(200);
      await waitStatus(id, 'COMPLETED');
      expect((await wf(id)).output).toEqual({ done: true });
      // The SDK itself, pointed at the worker's sidecar with its key, works the same way.
      const client = await orkesConductorClient({ serverUrl: base, logger: quietLogger, ...workerKey });
      sdkClients.push(client);
      const id2 = (await api('POST', '/api/workflow', { name })).text;
      const m = new TaskManager(client, [{ taskDefName: t, execute: async () => ({ status: 'COMPLETED', outputData: { done: 'sdk' } }) }], {
        logger: quietLogger,
        options: { pollInterval: 50, concurrency: 1 },
      });
      m.startPolling();
      try {
        await waitStatus(id2, 'COMPLETED');
        expect((await wf(id2)).output).toEqual({ done: 'sdk' });
      } finally {
        await m.stopPolling();
      }
    });

    test("Baton's actor and subscription routes refuse callers without its sidecar's app token", async () => {
      const r = cluster.replicas[0]!;
      expect((await fetch(`${r.url}/dapr/config`)).status).toBe(401);
      expect((await fetch(`${r.url}/actors/WorkflowActor/x/method/recover`, { method: 'PUT' })).status).toBe(401);
      expect((await fetch(`${r.url}/dapr/config`, { headers: { 'dapr-api-token': cluster.appToken } })).status).toBe(200);
    });
  });

  test('task types and domains with #, /, ?, spaces and non-ASCII letters', async () => {
    for (const t of [`a#b/c?d ${n}`, `ünïcødé 任务 ${n}`, `pct%20 and |pipes| ${n}`]) {
      const name = uniq('names');
      const domain = `dom #/? ü ${n}`;
      await register({
        name,
        tasks: [
          { name: t, taskReferenceName: 'x' },
          { name: t, taskReferenceName: 'y' },
        ],
      });
      const id = (await api('POST', '/api/workflow', { name, taskToDomain: { [t]: domain } })).text;
      const enc = encodeURIComponent(t);
      // The plain queue is empty: the task went to its domain's queue.
      expect((await api('GET', `/api/tasks/poll/batch/${enc}?count=1&timeout=100`)).body).toEqual([]);
      for (const ref of ['x', 'y']) {
        const task = await eventually(
          async () => (await api('GET', `/api/tasks/poll/batch/${enc}?count=1&timeout=500&domain=${encodeURIComponent(domain)}`)).body[0],
        );
        expect(task).toMatchObject({ taskDefName: t, referenceTaskName: ref, domain });
        expect((await api('POST', '/api/tasks', { workflowInstanceId: id, taskId: task.taskId, status: 'COMPLETED' })).status).toBe(200);
      }
      await waitStatus(id, 'COMPLETED');
      const sizes = (await api('GET', `/api/tasks/queue/sizes?taskType=${enc}`)).body;
      expect(sizes[t]).toBe(0);
    }
  });

  test('twenty rejected updates against one workflow, then a terminate succeeds at once', async () => {
    const t = uniq('rej');
    const name = uniq('rejwf');
    await register({ name, tasks: [{ name: t, taskReferenceName: 'x' }] });
    const id = (await api('POST', '/api/workflow', { name })).text;
    const task = await eventually(async () => (await api('GET', `/api/tasks/poll/batch/${t}?count=1&timeout=500`)).body[0]);
    for (let i = 0; i < 20; i++) {
      // An unknown task id of an existing execution, then a status the task cannot take.
      const bad =
        i % 2 ? { workflowInstanceId: id, taskId: `nope-${i}`, status: 'COMPLETED' } : { workflowInstanceId: id, taskId: task.taskId, status: 'SCHEDULED' };
      const r = await api('POST', '/api/tasks', bad);
      expect(r.status).toBeGreaterThanOrEqual(400);
      expect(r.status).toBeLessThan(500);
    }
    const started = Date.now();
    const r = await api('DELETE', `/api/workflow/${id}?reason=enough`);
    expect(r.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await wf(id)).status).toBe('TERMINATED');
  });
});
