import fs from 'node:fs';
import Redis from 'ioredis';
import pino from 'pino';
import { loadConfig } from '../../src/config';
import { createServer, type RunningServer } from '../../src/server';
import { DaprClusterDouble } from '../support/dapr-sidecar-double';
import { freePort } from '../support/dapr/counter-app';
import { replicaRotation, replicaTestEnv } from '../support/replicas';
import { tempDir } from '../support/temp-dirs';

/**
 * Baton's distributed profile in this process: the Dapr sidecar double (one sidecar per replica,
 * actor state and reminders in real Redis) and N replicas built by the real composition root with
 * BATON_PROFILE=distributed, sharing one SQLite file (BATON_STORE/BATON_INDEX=sqlite, tests only)
 * and Redis under a key prefix unique to the run.
 */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
export const APP_ID = 'baton';
export const PUBSUB = 'baton-pubsub';
export const COMPLETION_TOPIC = 'baton-task-completions';

export interface Replica {
  name: string;
  port: number;
  url: string;
  daprHttpPort: number;
  server: RunningServer;
  /** False once killed. */
  alive: boolean;
}

export interface TestCluster {
  double: DaprClusterDouble;
  replicas: Replica[];
  dataDir: string;
  /** URL of the next live replica, round robin. */
  nextUrl(): string;
  addReplica(name: string): Promise<Replica>;
  /** Kills a replica abruptly: its HTTP server and sidecar vanish mid-request, nothing is drained. */
  kill(r: Replica): Promise<void>;
  /** Publishes `data` on a topic of the cluster's pub/sub through a live replica's sidecar. */
  publish(topic: string, data: unknown): Promise<number>;
  stop(): Promise<void>;
}

/** A replica's close normally takes well under a second here. */
const CLOSE_LIMIT_MS = 15_000;

/**
 * A close that does not end in time is reported and left to the worker's exit instead of failing the
 * file's passed tests. The cause seen most (the recovery scan sitting out its 60 s interval when
 * stopped outside its sleep) is fixed; one slow adapter close of ~30 s seen once under load is not
 * explained yet, so this stays a warning.
 */
async function closeWithin(what: string, closing: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), ms)));
  const outcome = await Promise.race([
    closing.then(
      () => 'closed' as const,
      () => 'closed' as const,
    ),
    late,
  ]);
  clearTimeout(timer);
  if (outcome === 'late') console.warn(`test cluster: ${what} did not close within ${ms} ms; left to the worker's exit`);
}

export async function startCluster(opts: { replicas: string[]; env?: Record<string, string> }): Promise<TestCluster> {
  const run = `baton-test:distributed:${process.pid}:${Date.now().toString(36)}:${Math.random().toString(36).slice(2, 8)}:`;
  const dataDir = tempDir('baton-dist-');
  const double = await DaprClusterDouble.start({ redisUrl: REDIS_URL, keyPrefix: `${run}dapr:`, pubsubRetryMs: 100 });
  const replicas: Replica[] = [];
  const closing: Promise<void>[] = [];
  const { live, nextUrl } = replicaRotation(replicas);

  const addReplica = async (name: string, attempt = 0): Promise<Replica> => {
    const port = await freePort();
    const sidecar = await double.addApp({ appId: APP_ID, appPort: port });
    const cfg = loadConfig({
      ...replicaTestEnv({ port, daprHttpPort: sidecar.daprHttpPort, redisUrl: REDIS_URL, redisKeyPrefix: `${run}baton:` }),
      BATON_STORE: 'sqlite',
      BATON_INDEX: 'sqlite',
      BATON_DATA_DIR: dataDir,
      BATON_DAPR_PUBSUB: PUBSUB,
      BATON_DAPR_COMPLETION_TOPIC: COMPLETION_TOPIC,
      // The double has no app health check to drain for, and a dead sidecar must not hold a stop for a minute.
      BATON_DAPR_DRAIN_MS: '0',
      BATON_DAPR_CALL_TIMEOUT_MS: '10000',
      LOG_LEVEL: 'silent',
      // Auth is off (replicaTestEnv): listen on loopback only.
      BATON_BIND: '127.0.0.1',
      ...opts.env,
    });
    // A port freePort found free can be bound by another listener before the server binds it (the sidecar
    // double's own listen(0) among them): take another one rather than fail the suite.
    const server = await createServer(cfg, pino({ level: process.env.TEST_LOG_LEVEL ?? 'silent' }).child({ replica: name })).catch(async (err: unknown) => {
      if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 3) throw err;
      await double.removeApp(port);
      return undefined;
    });
    if (!server) return addReplica(name, attempt + 1);
    await sidecar.ready; // read /dapr/config and /dapr/subscribe, joined placement
    const r: Replica = { name, port, url: `http://127.0.0.1:${port}`, daprHttpPort: sidecar.daprHttpPort, server, alive: true };
    replicas.push(r);
    return r;
  };

  for (const name of opts.replicas) await addReplica(name);

  return {
    double,
    replicas,
    dataDir,
    nextUrl,
    addReplica,
    async kill(r) {
      r.alive = false;
      r.server.httpServer.closeAllConnections();
      r.server.httpServer.close();
      await double.removeApp(r.port);
      // What the dead process held is released behind the test's back (its stuck calls give up by themselves).
      closing.push(r.server.close().catch(() => undefined));
    },
    async publish(topic, data) {
      const via = live()[0]!;
      const res = await fetch(`http://127.0.0.1:${via.daprHttpPort}/v1.0/publish/${PUBSUB}/${topic}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(data),
      });
      return res.status;
    },
    async stop() {
      // Killed replicas still hold their adapters (a dead pod's process would be gone): release them too.
      for (const r of replicas) if (r.alive) await closeWithin(r.name, r.server.close(), CLOSE_LIMIT_MS);
      await closeWithin('killed replicas', Promise.all(closing), CLOSE_LIMIT_MS);
      await double.purge();
      await double.close();
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${run}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
