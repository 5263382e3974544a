import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { call, eventually } from '../support/baton';
import { tempDir } from '../support/temp-dirs';

// Kills the server with SIGKILL mid-run and restarts it on the same data directory: no
// acknowledged completion is lost and no completed task is handed out again.

const MAIN = path.join(__dirname, '../../dist/main.js');

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
    env: { ...process.env, PORT: String(port), BATON_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  await eventually(async () => (await call(`http://127.0.0.1:${port}`, 'GET', '/health')).status === 200, 30_000, 100);
  return child;
}

const killed = (c: ChildProcess) => new Promise<void>((r) => (c.exitCode !== null ? r() : c.once('exit', () => r())));

describe('crash and restart (SIGKILL)', () => {
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGKILL');
      await killed(child);
    }
  });

  test('every workflow completes, no acknowledged write lost, no completed task handed out again', async () => {
    if (!fs.existsSync(MAIN)) throw new Error('dist/main.js missing: run `npm run build` (npm test does it in pretest)');
    const dataDir = tempDir('baton-crash-');
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const api = (m: string, p: string, b?: unknown) => call(base, m, p, b);
    child = await startProcess(port, dataDir);

    await api('POST', '/api/metadata/taskdefs', [{ name: 'crash_task', retryCount: 2, retryDelaySeconds: 0, responseTimeoutSeconds: 2 }]);
    const tasks = ['a', 'b', 'c'].map((r) => ({ name: 'crash_task', taskReferenceName: r, type: 'SIMPLE' }));
    expect((await api('POST', '/api/metadata/workflow', { name: 'crash_wf', version: 1, tasks })).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) ids.push((await api('POST', '/api/workflow', { name: 'crash_wf', input: { i } })).text);

    const acknowledged = new Set<string>(); // task ids whose COMPLETED update got a 200
    const leased: any[] = [];
    for (let round = 0; round < 4; round++) {
      const polled = (await api('GET', '/api/tasks/poll/batch/crash_task?count=20&timeout=200')).body as any[];
      for (const t of polled) {
        if (leased.length < 5 && round === 3) {
          leased.push(t); // handed out, never updated before the crash
          continue;
        }
        const r = await api('POST', '/api/tasks', {
          workflowInstanceId: t.workflowInstanceId,
          taskId: t.taskId,
          status: 'COMPLETED',
          outputData: { by: 'before' },
        });
        if (r.status === 200) acknowledged.add(t.taskId);
      }
    }
    expect(acknowledged.size).toBeGreaterThan(20);

    child.kill('SIGKILL');
    await killed(child);
    child = await startProcess(port, dataDir);

    // Every acknowledged completion survived.
    for (const id of ids) {
      const w = (await api('GET', `/api/workflow/${id}`)).body as any;
      for (const t of w.tasks) if (acknowledged.has(t.taskId)) expect(t.status).toBe('COMPLETED');
    }
    // A worker that held a task across the crash can still complete it.
    const late = leased.slice(0, 2);
    for (const t of late) {
      const r = await api('POST', '/api/tasks', {
        workflowInstanceId: t.workflowInstanceId,
        taskId: t.taskId,
        status: 'COMPLETED',
        outputData: { by: 'late' },
      });
      expect(r.status).toBe(200);
      acknowledged.add(t.taskId);
    }

    // Drain: every workflow completes; nothing already completed is handed out again.
    await eventually(
      async () => {
        const polled = (await api('GET', '/api/tasks/poll/batch/crash_task?count=20&timeout=300')).body as any[];
        for (const t of polled) {
          expect(acknowledged.has(t.taskId)).toBe(false);
          const r = await api('POST', '/api/tasks', {
            workflowInstanceId: t.workflowInstanceId,
            taskId: t.taskId,
            status: 'COMPLETED',
            outputData: { by: 'after' },
          });
          expect(r.status).toBe(200);
          acknowledged.add(t.taskId);
        }
        const statuses = await Promise.all(ids.map(async (id) => ((await api('GET', `/api/workflow/${id}?includeTasks=false`)).body as any).status));
        return statuses.every((s) => s === 'COMPLETED');
      },
      60_000,
      100,
    );
  });
});
