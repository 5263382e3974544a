import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'undici';
import { ManagedChild } from './managed-child';

export interface RunningRestate {
  /** Unix socket of restate-server's HTTP ingress: the load process invokes the handler there and awaits its answer. */
  ingressSocket: string;
  server: ManagedChild;
  handler: ManagedChild;
  /** Pids whose CPU is the peer's: restate-server and the service (handler) process. */
  serverPids: number[];
  version: string;
  stop(): Promise<void>;
}

const NODE_NAME = 'bench';
const HANDLER_PORT = 9080;
/**
 * restate-server asks GitHub for its latest release at every start, with no setting to turn that off,
 * so it runs in a network namespace of its own with only loopback; the bench reaches it through unix sockets.
 */
const AS_ROOT = process.getuid?.() === 0;
const ISOLATE = ['unshare', '--net', ...(AS_ROOT ? [] : ['--user', '--map-root-user'])];
/** nsenter's arguments to join restate-server's network namespace (and, without root, the user namespace that owns it). */
const joinNamespace = (pid: number): string[] =>
  AS_ROOT ? [`--net=/proc/${pid}/ns/net`] : ['--preserve-credentials', `--user=/proc/${pid}/ns/user`, `--net=/proc/${pid}/ns/net`];

/** A new network namespace has loopback down. */
const LOOPBACK_UP = 'ip link set lo up';

/** Why Restate cannot run here: no binary recorded, or no way to give it a network namespace without egress. */
export function missingRestate(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const bin = env.RESTATE_SERVER_BIN;
  if (!bin) return 'RESTATE_SERVER_BIN not recorded (run `npm run services -- restate`)';
  if (!existsSync(bin)) return `RESTATE_SERVER_BIN ${bin} does not exist`;
  const probe = spawnSync(ISOLATE[0] as string, [...ISOLATE.slice(1), 'sh', '-c', LOOPBACK_UP], { encoding: 'utf8', timeout: 10_000 });
  if (probe.status !== 0) {
    return `cannot run restate-server without network access (\`${ISOLATE.join(' ')}\` failed: ${(probe.stderr || String(probe.error ?? probe.status)).trim()}); it would call GitHub at start`;
  }
  return undefined;
}

/** One request to a unix-socket HTTP server: status and body text. */
async function call(socketPath: string, method: 'GET' | 'POST', path: string, body: unknown = undefined): Promise<{ status: number; text: string }> {
  const client = new Client('http://localhost', { socketPath, headersTimeout: 10_000, bodyTimeout: 10_000 });
  try {
    const res = await client.request({
      method,
      path,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  } finally {
    await client.close();
  }
}

/**
 * restate-server with its shipped defaults (one node, all roles, RocksDB with its WAL fsynced) in a
 * fresh temp base directory, listening on unix sockets only; the service process joins its network
 * namespace (127.0.0.1:9080 there) and is registered as a deployment through the admin API.
 */
export async function startRestate(opts: { startTimeoutMs?: number } = {}): Promise<RunningRestate> {
  const missing = missingRestate();
  if (missing) throw new Error(missing);
  const binary = process.env.RESTATE_SERVER_BIN as string;
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-restate-'));
  const sockets = join(dir, NODE_NAME);
  const [adminSocket, ingressSocket] = [join(sockets, 'admin.sock'), join(sockets, 'ingress.sock')];
  // `exec` keeps the pid: the pid the bench reads /proc of is restate-server's own
  const server = ManagedChild.spawn(
    'restate-server',
    ISOLATE[0] as string,
    [...ISOLATE.slice(1), 'sh', '-c', `${LOOPBACK_UP} && exec "$0" "$@"`, binary, '--no-logo', '--base-dir', dir, '--listen-mode', 'unix'],
    {
      cwd: dir,
      env: {
        ...process.env,
        RESTATE_NODE_NAME: NODE_NAME,
        RESTATE_DISABLE_TELEMETRY: 'true',
        RESTATE_LOG_FILTER: 'warn',
        RESTATE_LOG_DISABLE_ANSI_CODES: 'true',
      },
    },
  );
  let handler: ManagedChild | undefined;
  const stop = async (): Promise<void> => {
    await handler?.stop(5000);
    await server.stop(20_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const timeout = opts.startTimeoutMs ?? 60_000;
    await server.waitReady(async () => (await call(adminSocket, 'GET', '/health')).status === 200, timeout);
    await server.waitReady(async () => (await call(ingressSocket, 'GET', '/restate/health')).status === 200, timeout);
    handler = ManagedChild.spawn(
      'restate-handler',
      'nsenter',
      [...joinNamespace(server.pid), process.execPath, join(__dirname, 'restate-handler.js'), String(HANDLER_PORT)],
      { env: { ...process.env, NODE_ENV: 'production' } },
    );
    const h = handler;
    await h.waitReady(async () => h.output().includes(`listening ${HANDLER_PORT}`), 30_000);
    // registration makes restate-server read the endpoint's service manifest
    const reg = await call(adminSocket, 'POST', '/deployments', { uri: `http://127.0.0.1:${HANDLER_PORT}` });
    if (reg.status >= 300) throw new Error(`registering the service deployment: HTTP ${reg.status} ${reg.text.slice(0, 300)}`);
  } catch (e) {
    await stop();
    throw e;
  }
  return { ingressSocket, server, handler, serverPids: [server.pid, handler.pid], version: process.env.RESTATE_VERSION ?? 'unknown', stop };
}
