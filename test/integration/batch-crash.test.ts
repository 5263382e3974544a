import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { call, eventually } from '../support/baton';
import { tempDir } from '../support/temp-dirs';

// A batch by query survives a SIGKILL of the server mid-batch: after the restart it finishes, and no execution is
// acted on twice. The counter: each execution's only task is an HTTP call to this test's server naming the execution,
// so each restart of an execution is one more hit (a second restart would succeed: the execution ends at once).
// A call in flight at the kill is lost with the process, as in Conductor: its task times out (its definition's
// response timeout) and is retried by its retry policy, so that execution may count one hit per attempt.

const MAIN = path.join(__dirname, '../../dist/main.js');
const EXECUTIONS = 12;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as net.AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

async function startProcess(port: number, dataDir: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      PORT: String(port),
      BATON_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      BATON_HTTP_TASK_ALLOW: '127.0.0.1',
      // One execution per interval: the kill lands mid-batch.
      BATON_BATCH_BUDGET: '1',
      BATON_BATCH_INTERVAL_MS: '150',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => (await call(`http://127.0.0.1:${port}`, 'GET', '/health').catch(() => ({ status: 0 }))).status === 200, 30_000, 100);
  return child;
}

const exited = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

describe('batch by query across a SIGKILL', () => {
  let child: ChildProcess | undefined;
  const hits = new Map<string, number>();
  const counter = http.createServer((req, res) => {
    const id = (req.url ?? '').replace(/^\/hit\//, '');
    hits.set(id, (hits.get(id) ?? 0) + 1);
    res.setHeader('content-type', 'application/json');
    res.end('{"ok":true}');
  });
  beforeAll(async () => new Promise<void>((r) => counter.listen(0, '127.0.0.1', () => r())));
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    await new Promise<void>((r) => counter.close(() => r()));
  });

  test('the batch finishes after a restart and acts on each execution at most once', async () => {
    if (!fs.existsSync(MAIN)) throw new Error('dist/main.js missing: run `npm run build` (npm test does it in pretest)');
    const dataDir = tempDir('baton-batch-crash-');
    const port = await freePort();
    const api = (m: string, p: string, b?: unknown) => call(`http://127.0.0.1:${port}`, m, p, b);
    child = await startProcess(port, dataDir);

    const counterPort = (counter.address() as net.AddressInfo).port;
    const name = `batch_crash_${process.pid}`;
    const hit = { uri: `http://127.0.0.1:${counterPort}/hit/\${workflow.workflowId}`, method: 'GET' };
    const taskDef = { name: `hit_${process.pid}`, retryCount: 1, retryLogic: 'FIXED', retryDelaySeconds: 0, responseTimeoutSeconds: 2, timeoutSeconds: 60 };
    expect((await api('POST', '/api/metadata/taskdefs', [taskDef])).status).toBe(200);
    const def = { name, version: 1, tasks: [{ name: taskDef.name, taskReferenceName: 'hit', type: 'HTTP', inputParameters: { http_request: hit } }] };
    expect((await api('POST', '/api/metadata/workflow', def)).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < EXECUTIONS; i++) ids.push((await api('POST', '/api/workflow', { name, input: { i } })).text);
    const query = encodeURIComponent(`workflowType = '${name}' AND status = 'COMPLETED'`);
    await eventually(async () => (await api('GET', `/api/workflow/search?query=${query}`)).body.totalHits === EXECUTIONS, 30_000);
    expect(ids.map((id) => hits.get(id))).toEqual(ids.map(() => 1));

    const started = await api('POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'restart' });
    expect(started.body.matched).toBe(EXECUTIONS);
    const batch = started.body.id as string;
    await eventually(async () => (await api('GET', `/api/batch/${batch}`)).body.done >= 3, 30_000);

    child.kill('SIGKILL');
    await exited(child);
    const atKill = [...hits.values()].reduce((a, b) => a + b, 0) - EXECUTIONS;
    expect(atKill).toBeLessThan(EXECUTIONS);
    child = await startProcess(port, dataDir);

    const done = await eventually(async () => {
      const b = (await api('GET', `/api/batch/${batch}`)).body;
      return b.state === 'COMPLETED' && b;
    }, 60_000);
    expect(done.done + done.failed).toBe(EXECUTIONS);
    // Any failure is the one execution claimed at the kill, reported rather than repeated.
    expect(done.failed).toBeLessThanOrEqual(1);
    for (const f of done.failures) expect(f.reason).toMatch(/never acted on twice/);
    const failed = new Set((done.failures as Array<{ workflowId: string }>).map((f) => f.workflowId));
    // Every restarted execution runs its call again; none is restarted a second time (a hit beyond the
    // restart's is only a retried attempt of the call lost at the kill). Once every execution has ended
    // again, every call it made has been counted.
    const retries = new Map<string, number>();
    await eventually(async () => {
      for (const id of ids) {
        const wf = (await api('GET', `/api/workflow/${id}?includeTasks=true`)).body;
        if (wf.status !== 'COMPLETED') return false;
        retries.set(id, Math.max(0, ...(wf.tasks as Array<{ retryCount: number }>).map((t) => t.retryCount)));
      }
      return true;
    }, 30_000);
    for (const id of ids) {
      const extra = retries.get(id)!;
      if (failed.has(id)) expect(hits.get(id)).toBeLessThanOrEqual(2 + extra);
      else {
        expect(hits.get(id)).toBeGreaterThanOrEqual(2);
        expect(hits.get(id)).toBeLessThanOrEqual(2 + extra);
      }
    }
  });
});
