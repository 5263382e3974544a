import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type DaprdCluster, missingDapr, startDaprdCluster, type StartedDaprd } from '../../test/support/dapr/daprd-processes';
import { logPath, TestProcess } from '../../test/support/processes';
import { CountingProxy } from './counting-proxy';
import { freePort } from './free-port';
import { trackForeignPid } from './managed-child';

/** Why the distributed phase cannot run here, or undefined when daprd, Cassandra and Elasticsearch are recorded. */
export function missingDistributed(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dapr = missingDapr();
  if (dapr) return dapr;
  if (!env.CASSANDRA_CONTACT_POINTS) return 'CASSANDRA_CONTACT_POINTS not set (run `npm run services -- cassandra`)';
  if (!env.ELASTICSEARCH_URL) return 'ELASTICSEARCH_URL not set (run `npm run services -- elasticsearch`)';
  return undefined;
}

export interface DistributedReplica {
  name: string;
  url: string;
  baton: TestProcess;
  daprd: StartedDaprd;
  /** Baton → daprd (Baton's DAPR_HTTP_PORT points here). */
  toSidecar: CountingProxy;
  /** daprd → Baton (daprd's --app-port points here): actor calls, reminders, pub/sub deliveries, health probes. */
  fromSidecar: CountingProxy;
}

export interface DistributedCluster {
  replicas: DistributedReplica[];
  keyspace: string;
  indexPrefix: string;
  redisPort: number;
  /** Pids of the Baton replicas (their CPU is the figure's server side). */
  batonPids(): number[];
  /** Pids of daprd, placement, scheduler and redis-server. */
  daprPids(): number[];
  /** The same by process name (daprd-a, placement, scheduler, redis), to split their CPU. */
  daprNamedPids(): [string, number][];
  /** One more replica beside its own daprd on the same placement, scheduler, Redis and engines (the scale-out phase). */
  addReplica(name: string): Promise<DistributedReplica>;
  stop(): Promise<void>;
}

const pidOf = (p: TestProcess): number[] => (p.child.pid === undefined ? [] : [p.child.pid]);

/**
 * Baton's distributed profile as production runs it, on this machine: every replica `node dist/main.js`
 * beside its own real daprd with the repository's components/ (Redis actor state and pub/sub,
 * resiliency, env secret store), one placement, one scheduler, the Cassandra store and the
 * Elasticsearch index `npm run services` started, in a keyspace and index prefix of this run. As the
 * real-engine suites start it (test/support/real-cluster.ts), plus a counting proxy on each side of
 * every sidecar.
 */
export async function startDistributedCluster(
  root: string,
  replicaNames: string[],
  log: (m: string) => void,
  opts: { cpuProfileDir?: string } = {},
): Promise<DistributedCluster> {
  const missing = missingDistributed();
  if (missing) throw new Error(missing);
  const run = randomBytes(4).toString('hex');
  const keyspace = `baton_bench_${run}`;
  const indexPrefix = `baton-bench-${run}`;
  const appToken = randomBytes(16).toString('hex');
  const daprToken = randomBytes(16).toString('hex');
  const dapr: DaprdCluster = await startDaprdCluster({ pubsubName: 'baton-pubsub', redisAof: true });
  const untrack: (() => void)[] = dapr
    .processes()
    .flatMap(pidOf)
    .map((pid) => trackForeignPid(pid));
  const logs = join(dapr.dir, 'baton');
  mkdirSync(logs, { recursive: true });
  const replicas: DistributedReplica[] = [];

  const addReplica = async (name: string): Promise<DistributedReplica> => {
    const port = await freePort();
    const fromSidecar = await new CountingProxy(`daprd-${name} → baton-${name}`, port).start();
    const daprd = await dapr.addSidecar(name, {
      appId: 'baton',
      appPort: fromSidecar.port,
      appApiToken: appToken,
      daprApiToken: daprToken,
      resourcesPath: join(root, 'components'),
      configFile: join(root, 'components', 'configuration.yaml'),
      env: { BATON_DAPR_REDIS_HOST: `127.0.0.1:${dapr.redisPort}`, BATON_DAPR_REDIS_PASSWORD: '' },
      appHealthCheck: true,
      blockShutdownSeconds: 5,
    });
    untrack.push(...pidOf(daprd.process).map((pid) => trackForeignPid(pid)));
    const toSidecar = await new CountingProxy(`baton-${name} → daprd-${name}`, daprd.daprHttpPort).start();
    const baton = new TestProcess(
      `baton-${name}`,
      process.execPath,
      [...(opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(opts.cpuProfileDir, name)}`] : []), join(root, 'dist', 'main.js')],
      logPath(logs, name),
      {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        NODE_ENV: 'production',
        BATON_PROFILE: 'distributed',
        DAPR_HTTP_PORT: String(toSidecar.port),
        DAPR_API_TOKEN: daprToken,
        APP_API_TOKEN: appToken,
        CASSANDRA_CONTACT_POINTS: process.env.CASSANDRA_CONTACT_POINTS,
        CASSANDRA_LOCAL_DC: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
        CASSANDRA_KEYSPACE: keyspace,
        CASSANDRA_REPLICATION: 'datacenter1:1',
        BATON_CASSANDRA_MIGRATE: 'true',
        ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL,
        ELASTICSEARCH_INDEX_PREFIX: indexPrefix,
        REDIS_URL: `redis://127.0.0.1:${dapr.redisPort}`,
        BATON_REDIS_KEY_PREFIX: `baton-${run}:`,
        BATON_AUTH: 'off',
        LOG_LEVEL: 'warn',
      },
      root,
    );
    untrack.push(...pidOf(baton).map((pid) => trackForeignPid(pid)));
    const r: DistributedReplica = { name, url: `http://127.0.0.1:${port}`, baton, daprd, toSidecar, fromSidecar };
    replicas.push(r);
    const deadline = Date.now() + 180_000;
    for (;;) {
      if (!baton.running) throw new Error(`Baton replica ${name} exited (${baton.exitCode}):\n${baton.tail(20)}`);
      const health = await fetch(`${r.url}/health`).catch(() => undefined);
      if (health?.status === 200) {
        // daprd registers the actor types with placement once the app is healthy: wait until it says so
        const meta = await fetch(`http://127.0.0.1:${daprd.daprHttpPort}/v1.0/metadata`, { headers: { 'dapr-api-token': daprToken } })
          .then((m) => m.json() as Promise<{ actorRuntime?: { hostReady?: boolean; placement?: string; activeActors?: { type: string }[] } }>)
          .catch(() => undefined);
        const rt = meta?.actorRuntime;
        if (rt?.hostReady && /connected/i.test(rt.placement ?? '') && (rt.activeActors ?? []).some((a) => a.type === 'WorkflowActor')) break;
      }
      if (Date.now() > deadline)
        throw new Error(
          `Baton replica ${name} not ready (health and actor registration) after 180 s:\n${baton.tail(20)}\n--- daprd\n${daprd.process.tail(20)}`,
        );
      await new Promise((res) => setTimeout(res, 250));
    }
    log(`distributed: replica ${name} ready at ${r.url} (daprd HTTP ${daprd.daprHttpPort})`);
    return r;
  };

  const stop = async (): Promise<void> => {
    for (const r of replicas) await Promise.all([r.baton.stop(30_000), r.daprd.stop()]).catch(() => undefined);
    for (const r of replicas) await Promise.all([r.toSidecar.stop(), r.fromSidecar.stop()]).catch(() => undefined);
    await dapr.close();
    for (const u of untrack) u();
    await dropRunData(keyspace, indexPrefix);
  };

  try {
    for (const name of replicaNames) await addReplica(name);
  } catch (e) {
    await stop();
    throw e;
  }
  return {
    replicas,
    keyspace,
    indexPrefix,
    redisPort: dapr.redisPort,
    batonPids: () => replicas.flatMap((r) => pidOf(r.baton)),
    daprPids: () => dapr.processes().flatMap(pidOf),
    daprNamedPids: () => dapr.processes().flatMap((p) => pidOf(p).map((pid): [string, number] => [p.name, pid])),
    addReplica,
    stop,
  };
}

/** Best effort: the engines are shared by everything on this machine, so the run removes its keyspace and indices. */
async function dropRunData(keyspace: string, indexPrefix: string): Promise<void> {
  const { Client } = await import('cassandra-driver');
  const cassandra = new Client({
    contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(','),
    localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
  });
  try {
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  } catch {
    /* reported by nobody: a leftover keyspace of a benchmark run is harmless */
  } finally {
    await cassandra.shutdown().catch(() => undefined);
  }
  const es = process.env.ELASTICSEARCH_URL;
  try {
    // Elasticsearch 8 refuses wildcard deletes (action.destructive_requires_name): delete by name
    const list = (await (await fetch(`${es}/_cat/indices/${indexPrefix}*?format=json&expand_wildcards=all`)).json()) as { index: string }[];
    for (const { index } of list) await fetch(`${es}/${index}`, { method: 'DELETE' });
    const templates = (await (await fetch(`${es}/_index_template/${indexPrefix}*`)).json()) as { index_templates?: { name: string }[] };
    for (const t of templates.index_templates ?? []) await fetch(`${es}/_index_template/${t.name}`, { method: 'DELETE' });
  } catch {
    /* as above */
  }
}
