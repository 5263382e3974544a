import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { periodTemplateName, templateName } from '../../src/search/elasticsearch/es-mappings';
import { nativePortOf } from '../../src/store/cassandra/config';
import { startDaprdCluster, missingDapr, type DaprdCluster, type StartedDaprd } from './dapr/daprd-processes';
import { freePort, GiveUp, logPath, TestProcess, waitFor } from './processes';
import { replicaRotation, replicaTestEnv } from './replicas';

/**
 * Baton's distributed profile as it runs in production, on one machine: every replica its own
 * `node dist/main.js` process beside its own real daprd (the repository's components/: Redis actor
 * state store and pub/sub, resiliency, env secret store; app health checks and block-shutdown on),
 * one placement, one scheduler, the Cassandra store and the Elasticsearch index that
 * `npm run services` started, each cluster in a keyspace and index prefix of its own.
 */
export const APP_ID = 'baton';
const ROOT = resolve(__dirname, '../..');

export const missingRealCluster = (): string | undefined => {
  const dapr = missingDapr();
  if (dapr) return dapr;
  if (!process.env.CASSANDRA_CONTACT_POINTS) return 'CASSANDRA_CONTACT_POINTS not set (Cassandra is started by scripts/services/cassandra.sh)';
  if (!process.env.ELASTICSEARCH_URL) return 'ELASTICSEARCH_URL not set (Elasticsearch is started by scripts/services/elasticsearch.sh)';
  return undefined;
};

export interface RealReplica {
  name: string;
  port: number;
  url: string;
  baton: TestProcess;
  daprd: StartedDaprd;
  alive: boolean;
}

export interface RealCluster {
  dapr: DaprdCluster;
  replicas: RealReplica[];
  keyspace: string;
  indexPrefix: string;
  appToken: string;
  daprToken: string;
  /** URL of the next live replica, round robin. */
  nextUrl(): string;
  live(): RealReplica[];
  addReplica(name: string, env?: Record<string, string>): Promise<RealReplica>;
  /** kill -9 of the replica and of its daprd. */
  kill(r: RealReplica): Promise<void>;
  /** SIGTERM to both, as Kubernetes does at a rolling restart; resolves with Baton's exit code. */
  terminate(r: RealReplica): Promise<number | null>;
  /**
   * SIGTERM to Baton alone while its daprd keeps running (a native sidecar, or the README's recipe), SIGKILL
   * after `graceMs` as Kubernetes would; resolves with Baton's exit code (null when it had to be killed).
   * The sidecar is stopped afterwards.
   */
  terminateBatonAlone(r: RealReplica, graceMs: number): Promise<number | null>;
  /** A sidecar of another app id (a publisher or a worker with its own daprd). */
  addForeignSidecar(name: string, appId: string, appPort?: number): Promise<StartedDaprd>;
  stop(): Promise<void>;
}

export interface RealClusterOptions {
  replicas: string[];
  /** Extra environment of every replica. */
  env?: Record<string, string>;
  /** Another Cassandra than the shared node (e.g. the three-node cluster): its contact points and keyspace replication. */
  cassandra?: { contactPoints: string; replication: string };
  /** How long a replica may take to serve (its migrations included); 120 s by default. */
  startWithinMs?: number;
  /** The cluster's redis-server with AOF (fsync every second), as docs/kubernetes.md asks of production. */
  redisAof?: boolean;
}

export async function startRealCluster(opts: RealClusterOptions): Promise<RealCluster> {
  const missing = missingRealCluster();
  if (missing) throw new Error(missing);
  const run = randomBytes(4).toString('hex');
  const keyspace = `baton_rt_${run}`;
  const indexPrefix = `baton-rt-${run}`;
  const appToken = randomBytes(16).toString('hex');
  const daprToken = randomBytes(16).toString('hex');
  const dapr = await startDaprdCluster({ pubsubName: 'baton-pubsub', redisAof: opts.redisAof });
  const cassandraPoints = opts.cassandra?.contactPoints ?? process.env.CASSANDRA_CONTACT_POINTS ?? '';
  const logs = join(dapr.dir, 'baton');
  mkdirSync(logs, { recursive: true });
  const replicas: RealReplica[] = [];
  const { live, nextUrl } = replicaRotation(replicas);

  const sidecarEnv = { BATON_DAPR_REDIS_HOST: `127.0.0.1:${dapr.redisPort}`, BATON_DAPR_REDIS_PASSWORD: '' };

  const addReplica = async (name: string, env: Record<string, string> = {}): Promise<RealReplica> => {
    const port = await freePort();
    // daprd first picks its ports; Baton learns its sidecar's HTTP port from DAPR_HTTP_PORT.
    const daprd = await dapr.addSidecar(name, {
      appId: APP_ID,
      appPort: port,
      appApiToken: appToken,
      daprApiToken: daprToken,
      resourcesPath: join(ROOT, 'components'),
      configFile: join(ROOT, 'components', 'configuration.yaml'),
      env: sidecarEnv,
      appHealthCheck: true,
      blockShutdownSeconds: 20,
    });
    const baton = new TestProcess(
      `baton-${name}`,
      process.execPath,
      [join(ROOT, 'dist', 'main.js')],
      logPath(logs, name),
      {
        PATH: process.env.PATH,
        ...replicaTestEnv({ port, daprHttpPort: daprd.daprHttpPort, redisUrl: dapr.redisUrl, redisKeyPrefix: `baton-${run}:` }),
        DAPR_API_TOKEN: daprToken,
        APP_API_TOKEN: appToken,
        CASSANDRA_CONTACT_POINTS: cassandraPoints,
        CASSANDRA_LOCAL_DC: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
        CASSANDRA_KEYSPACE: keyspace,
        CASSANDRA_REPLICATION: opts.cassandra?.replication ?? process.env.BATON_TEST_CASSANDRA_REPLICATION ?? 'datacenter1:1',
        BATON_CASSANDRA_MIGRATE: 'true',
        ELASTICSEARCH_URL: process.env.ELASTICSEARCH_URL,
        ELASTICSEARCH_INDEX_PREFIX: indexPrefix,
        BATON_RECOVERY_SCAN_INTERVAL_MS: '5000',
        LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'warn',
        ...opts.env,
        ...env,
      },
      ROOT,
    );
    const r: RealReplica = { name, port, url: `http://127.0.0.1:${port}`, baton, daprd, alive: true };
    try {
      await waitFor(
        async () => {
          if (!baton.running) throw new GiveUp(`baton ${name} exited (${baton.exitCode}): ${baton.tail()}`);
          const res = await fetch(`${r.url}/health`).catch(() => undefined);
          return res?.status === 200 ? true : undefined;
        },
        `Baton replica ${name}`,
        opts.startWithinMs ?? 120_000,
      );
      // daprd registers the actor types with placement once the app is healthy: wait until it says so.
      await waitFor(
        async () => {
          const res = await fetch(`http://127.0.0.1:${daprd.daprHttpPort}/v1.0/metadata`, { headers: { 'dapr-api-token': daprToken } });
          const meta = (await res.json()) as { actorRuntime?: { hostReady?: boolean; placement?: string; activeActors?: Array<{ type: string }> } };
          const rt = meta.actorRuntime;
          return rt?.hostReady && /connected/i.test(rt.placement ?? '') && (rt.activeActors ?? []).some((a) => a.type === 'WorkflowActor') ? true : undefined;
        },
        `actor registration of ${name}`,
        60_000,
      );
    } catch (err) {
      await baton.kill();
      await daprd.kill();
      throw new Error(`${String(err)}\n--- daprd\n${daprd.process.tail(20)}\n--- baton\n${baton.tail(20)}`);
    }
    replicas.push(r);
    return r;
  };

  try {
    for (const name of opts.replicas) await addReplica(name);
  } catch (err) {
    for (const r of replicas) {
      await r.baton.kill();
      await r.daprd.kill();
    }
    await dapr.close();
    throw err;
  }

  return {
    dapr,
    replicas,
    keyspace,
    indexPrefix,
    appToken,
    daprToken,
    live,
    nextUrl,
    addReplica,
    async kill(r) {
      r.alive = false;
      await Promise.all([r.baton.kill(), r.daprd.kill()]);
    },
    async terminate(r) {
      r.alive = false;
      const [code] = await Promise.all([r.baton.stop(60_000), r.daprd.stop()]);
      return code;
    },
    async terminateBatonAlone(r, graceMs) {
      r.alive = false;
      const code = await r.baton.stop(graceMs);
      await r.daprd.stop();
      return code;
    },
    addForeignSidecar(name, appId, appPort) {
      return dapr.addSidecar(name, {
        appId,
        appPort: appPort ?? 0,
        noApp: appPort === undefined,
        // The cluster's own components (pub/sub 'baton-pubsub' unscoped): the repository's are scoped to Baton.
      });
    },
    async stop() {
      for (const r of replicas) {
        if (!r.alive) continue;
        r.alive = false;
        await Promise.all([r.baton.stop(30_000), r.daprd.stop()]).catch(() => undefined);
      }
      await dapr.close();
      await dropClusterData(cassandraPoints, keyspace, indexPrefix);
    },
  };
}

/** Best effort: the engines are shared by every run on this machine, so each cluster removes its keyspace and indices. */
async function dropClusterData(cassandraPoints: string, keyspace: string, indexPrefix: string): Promise<void> {
  const { Client } = await import('cassandra-driver');
  const contactPoints = cassandraPoints.split(',');
  const port = nativePortOf(contactPoints);
  const cassandra = new Client({
    contactPoints,
    localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
    ...(port ? { protocolOptions: { port } } : {}),
  });
  try {
    await cassandra.execute(`DROP KEYSPACE IF EXISTS ${keyspace}`);
  } catch (err) {
    console.warn(`could not drop test keyspace ${keyspace}: ${String(err)}`);
  } finally {
    await cassandra.shutdown().catch(() => undefined);
  }
  // Elasticsearch 8 refuses wildcard deletes (action.destructive_requires_name): delete by name.
  const es = process.env.ELASTICSEARCH_URL;
  try {
    const list = (await (await fetch(`${es}/_cat/indices/${indexPrefix}*?format=json&expand_wildcards=all`)).json()) as Array<{ index: string }>;
    for (const { index } of list) await fetch(`${es}/${index}`, { method: 'DELETE' });
    for (const target of ['workflow', 'task'] as const)
      for (const name of [templateName(indexPrefix, target), periodTemplateName(indexPrefix, target)])
        await fetch(`${es}/_index_template/${name}`, { method: 'DELETE' });
  } catch (err) {
    console.warn(`could not delete test indices ${indexPrefix}*: ${String(err)}`);
  }
}
