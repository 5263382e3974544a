import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'cassandra-driver';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster } from '../support/real-cluster';

// The distributed profile on one machine as docs/operations.md tells a newcomer to run it: the
// commands of its recipe, run as written, start a cluster that runs a workflow, and the stop command
// leaves no process, keyspace, index or index template of the run behind.

const ROOT = resolve(__dirname, '../..');

/** The commands of the recipe's first sh block in docs/operations.md. */
function recipeCommands(): string[] {
  const doc = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## The distributed profile on one machine'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
  return block
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/** Runs one command line of the recipe through the shell; resolves with its exit code and output. */
function run(command: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string }> {
  return new Promise((done) => {
    const child = spawn('bash', ['-c', command], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (code) => done({ code, out }));
  });
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The local addresses (hex, as /proc/net/tcp{,6} writes them) of the sockets a process listens on. */
function listeningAddresses(pid: number): string[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`, { encoding: 'utf8' }) ?? '');
    if (m) inodes.add(m[1]!);
  }
  const out: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      // Columns: sl local_address rem_address st ... inode (10th); st 0A is LISTEN.
      if (f.length > 9 && f[3] === '0A' && inodes.has(f[9]!)) out.push(f[1]!.split(':')[0]!);
    }
  }
  return out;
}
const LOOPBACK_V4 = '0100007F';
const LOOPBACK_V6 = '00000000000000000000000001000000';

engineSuite('the distributed recipe on real engines', missingRealCluster())('the distributed profile on one machine, as docs/operations.md runs it', () => {
  const state = mkdtempSync(join(tmpdir(), 'baton-recipe-'));
  const env = { ...process.env, BATON_DISTRIBUTED_DIR: state };
  afterAll(async () => {
    // A failed assertion must not leave a cluster running on the shared engines.
    if (existsSync(join(state, 'cluster.env'))) {
      const stopped = await run('npm run distributed:stop', env);
      if (stopped.code !== 0) console.warn(`npm run distributed:stop failed:\n${stopped.out}`);
    }
    rmSync(state, { recursive: true, force: true });
  });

  test('start, run a workflow, stop: nothing of the run is left', async () => {
    const commands = recipeCommands();
    // The engines of the first command are already up: the real-engine suites need them (npm run services).
    expect(commands).toEqual(['npm run services', 'npm run distributed', 'npm run distributed:stop']);
    const [, up, down] = commands as [string, string, string];

    const started = await run(up!, env);
    expect({ code: started.code, out: started.out }).toEqual({ code: 0, out: expect.stringContaining('serves on http://127.0.0.1:') });
    const urls = /^Baton \(distributed.* serves on (.+)$/m.exec(started.out)![1]!.trim().split(/\s+/);
    const secret = /secret '([0-9a-f]+)'/.exec(started.out)![1]!;
    const cluster = Object.fromEntries(
      readFileSync(join(state, 'cluster.env'), 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split('=', 2) as [string, string]),
    );
    const pidOf = Object.fromEntries(
      readdirSync(join(state, 'pids')).map((f) => [f.replace(/\.pid$/, ''), Number(readFileSync(join(state, 'pids', f), 'utf8'))]),
    );
    const pids = Object.values(pidOf);
    expect(urls).toHaveLength(2);
    expect(pids).toHaveLength(7); // redis-server, placement, scheduler, two daprd, two Baton
    expect(pids.every(alive)).toBe(true);
    // Every process listens on loopback only, but for the health servers of placement and scheduler: Dapr 1.18.2
    // parses their --healthz-listen-address and never uses it (cmd/placement/options/options.go), so they take all interfaces.
    const beyondLoopback = (name: string): number => listeningAddresses(pidOf[name]!).filter((a) => a !== LOOPBACK_V4 && a !== LOOPBACK_V6).length;
    expect(Object.fromEntries(Object.keys(pidOf).map((name) => [name, beyondLoopback(name)]))).toEqual({
      '0-redis': 0,
      '1-placement': 1,
      '2-scheduler': 1,
      '3-daprd-1': 0,
      '3-daprd-2': 0,
      '4-baton-1': 0,
      '4-baton-2': 0,
    });
    expect(pids.flatMap(listeningAddresses).length).toBeGreaterThan(7);

    // A workflow started on one replica, its task polled and completed on the other.
    const api = async (url: string, method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; text: string }> => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...(token ? { 'x-authorization': token } : {}) },
        body: body !== undefined ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, text: await res.text() };
    };
    const token = JSON.parse((await api(urls[0]!, 'POST', '/api/token', { keyId: 'admin', keySecret: secret })).text).token as string;
    expect((await api(urls[0]!, 'POST', '/api/metadata/taskdefs', [{ name: 'recipe_task', retryCount: 0, responseTimeoutSeconds: 60 }], token)).status).toBe(
      200,
    );
    const def = { name: 'recipe_wf', version: 1, schemaVersion: 2, tasks: [{ name: 'recipe_task', taskReferenceName: 't', type: 'SIMPLE' }] };
    expect((await api(urls[0]!, 'POST', '/api/metadata/workflow', def, token)).status).toBe(200);
    const started1 = await api(urls[0]!, 'POST', '/api/workflow/recipe_wf', { n: 1 }, token);
    expect(started1.status).toBe(200);
    const workflowId = started1.text;
    let polled: Array<{ taskId: string; workflowInstanceId: string }> = [];
    for (let i = 0; i < 30 && polled.length === 0; i++) {
      const p = await api(urls[1]!, 'GET', '/api/tasks/poll/batch/recipe_task?count=1&timeout=1000&workerid=recipe', undefined, token);
      polled = p.status === 200 ? JSON.parse(p.text) : [];
    }
    expect(polled.map((t) => t.workflowInstanceId)).toEqual([workflowId]);
    const update = { workflowInstanceId: workflowId, taskId: polled[0]!.taskId, status: 'COMPLETED', outputData: { done: true } };
    expect((await api(urls[1]!, 'POST', '/api/tasks', update, token)).status).toBe(200);
    const wf = JSON.parse((await api(urls[0]!, 'GET', `/api/workflow/${workflowId}`, undefined, token)).text);
    expect({ status: wf.status, output: wf.output }).toEqual({ status: 'COMPLETED', output: { done: true } });

    const stopped = await run(down!, env);
    expect({ code: stopped.code, out: stopped.out }).toEqual({ code: 0, out: expect.stringContaining('stopped') });
    expect(pids.filter(alive)).toEqual([]);
    expect(existsSync(state) && readdirSync(state)).toBeFalsy();

    const keyspace = cluster.BATON_DISTRIBUTED_KEYSPACE!;
    const prefix = cluster.BATON_DISTRIBUTED_INDEX_PREFIX!;
    const cassandra = new Client({
      contactPoints: process.env.CASSANDRA_CONTACT_POINTS!.split(','),
      localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
    });
    try {
      const rows = await cassandra.execute('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [keyspace]);
      expect(rows.rows).toEqual([]);
    } finally {
      await cassandra.shutdown();
    }
    const es = process.env.ELASTICSEARCH_URL!;
    expect(await (await fetch(`${es}/_cat/indices/${prefix}*?format=json&expand_wildcards=all`)).json()).toEqual([]);
    const templates = (await (await fetch(`${es}/_index_template/${prefix}*`)).json()) as { index_templates?: unknown[] };
    expect(templates.index_templates ?? []).toEqual([]);
  }, 600_000);
});
