import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GiveUp, logPath, portOpen, TestProcess, waitFor } from '../processes';

/**
 * A real Dapr runtime on 127.0.0.1, from the binaries `npm run services` built (BATON_DAPRD_BIN,
 * BATON_PLACEMENT_BIN, BATON_SCHEDULER_BIN): its own redis-server on a free port, one placement,
 * one scheduler (embedded etcd in a temp dir), and one daprd per app instance.
 */
export const daprBinaries = (): { daprd: string; placement: string; scheduler: string; redis: string } | undefined => {
  const { BATON_DAPRD_BIN: daprd, BATON_PLACEMENT_BIN: placement, BATON_SCHEDULER_BIN: scheduler } = process.env;
  const redis = process.env.BATON_REDIS_SERVER_BIN ?? 'redis-server';
  return daprd && placement && scheduler ? { daprd, placement, scheduler, redis } : undefined;
};

export const missingDapr = (): string | undefined =>
  daprBinaries() ? undefined : 'BATON_DAPRD_BIN / BATON_PLACEMENT_BIN / BATON_SCHEDULER_BIN not set (daprd is built by scripts/services/dapr.sh)';

export interface SidecarOptions {
  appId: string;
  appPort: number;
  /** daprd's APP_API_TOKEN: sent to the app on every call. */
  appApiToken?: string;
  /** daprd's DAPR_API_TOKEN: required from the app on every call. */
  daprApiToken?: string;
  /** Directory of component YAMLs (default: the cluster's own Redis state store and pub/sub). */
  resourcesPath?: string;
  /** A Configuration YAML file. */
  configFile?: string;
  /** Extra environment of daprd (e.g. the secrets an env secret store resolves). */
  env?: Record<string, string>;
  /** App health checks on /healthz as the chart sets them (how daprd learns a draining replica must no longer host actors). */
  appHealthCheck?: boolean;
  blockShutdownSeconds?: number;
  /** No app: a sidecar used only to publish or invoke (no actors, no subscriptions). */
  noApp?: boolean;
}

export interface StartedDaprd {
  name: string;
  daprHttpPort: number;
  daprGrpcPort: number;
  process: TestProcess;
  /** SIGTERM (daprd's graceful shutdown). */
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export interface DaprdCluster {
  redisUrl: string;
  redisPort: number;
  placementAddress: string;
  schedulerAddress: string;
  dir: string;
  addSidecar(name: string, o: SidecarOptions): Promise<StartedDaprd>;
  /**
   * kill -9 of placement or the scheduler, then the same binary started again on the same ports (the scheduler
   * on the same etcd data dir); resolves once it answers its health check. Returns when it was killed.
   */
  restartControlPlane(which: 'placement' | 'scheduler'): Promise<{ killedAt: number }>;
  /** Every process started so far (redis-server, placement, scheduler, the sidecars). */
  processes(): TestProcess[];
  close(): Promise<void>;
}

/** The cluster's default components: Redis actor state store and Redis Streams pub/sub named `pubsubName`. */
const defaultComponents = (redisPort: number, pubsubName: string): string => `apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: actorstore
spec:
  type: state.redis
  version: v1
  metadata:
  - name: redisHost
    value: "127.0.0.1:${redisPort}"
  - name: actorStateStore
    value: "true"
---
apiVersion: dapr.io/v1alpha1
kind: Component
metadata:
  name: ${pubsubName}
spec:
  type: pubsub.redis
  version: v1
  metadata:
  - name: redisHost
    value: "127.0.0.1:${redisPort}"
  - name: redeliverInterval
    value: "1s"
  - name: processingTimeout
    value: "2s"
`;

/** daprd reads one Resiliency per file (components may share one). */
const defaultResiliency = (pubsubName: string): string => `# pubsub.redis acknowledges a message the app answered RETRY for once the inbound policy gives up:
# only this policy makes daprd deliver it again (as components/resiliency.yaml does for Baton).
apiVersion: dapr.io/v1alpha1
kind: Resiliency
metadata:
  name: redeliver
spec:
  policies:
    retries:
      untilTaken:
        policy: constant
        duration: 200ms
        maxRetries: -1
  targets:
    components:
      ${pubsubName}:
        inbound:
          retry: untilTaken
`;

export async function startDaprdCluster(
  opts: { pubsubName?: string; /** Redis AOF with fsync every second (the bench's durability), instead of no persistence. */ redisAof?: boolean } = {},
): Promise<DaprdCluster> {
  const bins = daprBinaries();
  if (!bins) throw new Error(missingDapr());
  const dir = mkdtempSync(join(tmpdir(), 'baton-dapr-'));
  const procs: TestProcess[] = [];
  const [redisPort, placementPort, raftPort, placementHealth, schedulerPort, etcdClient, etcdPeer, schedulerHealth] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const started = (p: TestProcess): TestProcess => (procs.push(p), p);
  const healthy = (port: number, p: TestProcess) => async () => {
    if (!p.running) throw new GiveUp(`${p.name} exited: ${p.tail()}`);
    const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
    return r && r.status < 300 ? true : undefined;
  };
  const close = async (): Promise<void> => {
    for (const p of procs.reverse()) await p.stop(10_000).catch(() => undefined);
    if (!process.env.BATON_KEEP_TEST_LOGS) rmSync(dir, { recursive: true, force: true });
  };
  const startPlacement = (): TestProcess =>
    new TestProcess(
      'placement',
      bins.placement,
      [
        '--port',
        String(placementPort),
        '--listen-address',
        '127.0.0.1',
        '--healthz-port',
        String(placementHealth),
        '--healthz-listen-address',
        '127.0.0.1',
        '--enable-metrics=false',
        '--initial-cluster',
        `dapr-placement-0=127.0.0.1:${raftPort}`,
        '--log-level',
        'warn',
      ],
      logPath(dir, 'placement'),
    );
  const startScheduler = (): TestProcess =>
    new TestProcess(
      'scheduler',
      bins.scheduler,
      [
        '--port',
        String(schedulerPort),
        '--listen-address',
        '127.0.0.1',
        '--healthz-port',
        String(schedulerHealth),
        '--healthz-listen-address',
        '127.0.0.1',
        '--enable-metrics=false',
        '--etcd-data-dir',
        join(dir, 'etcd'),
        '--etcd-client-port',
        String(etcdClient),
        '--etcd-client-listen-address',
        '127.0.0.1',
        '--etcd-initial-cluster',
        `dapr-scheduler-server-0=http://127.0.0.1:${etcdPeer}`,
        '--id',
        'dapr-scheduler-server-0',
        '--log-level',
        'warn',
      ],
      logPath(dir, 'scheduler'),
    );
  try {
    const persistence = opts.redisAof ? ['--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dir] : ['--appendonly', 'no'];
    const redis = started(
      new TestProcess('redis', bins.redis, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', ...persistence], logPath(dir, 'redis')),
    );
    const placement = started(startPlacement());
    mkdirSync(join(dir, 'etcd'));
    const scheduler = started(startScheduler());
    await waitFor(
      async () => {
        if (!redis.running) throw new GiveUp(`redis-server exited: ${redis.tail()}`);
        return (await portOpen(redisPort)) || undefined;
      },
      'redis-server',
      30_000,
    );
    await waitFor(healthy(placementHealth, placement), 'placement', 60_000);
    await waitFor(healthy(schedulerHealth, scheduler), 'scheduler', 90_000);
  } catch (err) {
    const tails = procs.map((p) => `--- ${p.name}\n${p.tail(15)}`).join('\n');
    await close();
    throw new Error(`${String(err)}\n${tails}`);
  }
  const pubsubName = opts.pubsubName ?? 'events';
  const componentsDir = join(dir, 'components');
  mkdirSync(componentsDir);
  writeFileSync(join(componentsDir, 'components.yaml'), defaultComponents(redisPort, pubsubName));
  writeFileSync(join(componentsDir, 'resiliency.yaml'), defaultResiliency(pubsubName));

  return {
    redisUrl: `redis://127.0.0.1:${redisPort}`,
    redisPort,
    placementAddress: `127.0.0.1:${placementPort}`,
    schedulerAddress: `127.0.0.1:${schedulerPort}`,
    dir,
    async addSidecar(name, o) {
      const [http, grpc, internal, publicPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
      const args = [
        '--mode',
        'standalone',
        '--app-id',
        o.appId,
        '--dapr-http-port',
        String(http),
        '--dapr-grpc-port',
        String(grpc),
        '--dapr-internal-grpc-port',
        String(internal),
        '--dapr-public-port',
        String(publicPort),
        '--dapr-listen-addresses',
        '127.0.0.1',
        '--dapr-public-listen-address',
        '127.0.0.1',
        '--dapr-internal-grpc-listen-address',
        '127.0.0.1',
        '--enable-metrics=false',
        '--placement-host-address',
        `127.0.0.1:${placementPort}`,
        '--scheduler-host-address',
        `127.0.0.1:${schedulerPort}`,
        '--resources-path',
        o.resourcesPath ?? componentsDir,
        '--log-level',
        process.env.BATON_DAPRD_LOG_LEVEL ?? 'warn',
      ];
      if (!o.noApp) args.push('--app-port', String(o.appPort), '--app-protocol', 'http', '--app-channel-address', '127.0.0.1');
      if (o.configFile) args.push('--config', o.configFile);
      // The chart's probe (charts/baton/values.yaml dapr.appHealthCheck): with daprd's defaults (500 ms, one failure) a
      // replica busy for half a second (loading a large queue partition on a loaded machine) loses its actors, over and over.
      if (o.appHealthCheck)
        args.push(
          '--enable-app-health-check',
          '--app-health-check-path',
          '/healthz',
          '--app-health-probe-interval',
          '1',
          '--app-health-probe-timeout',
          '1000',
          '--app-health-threshold',
          '3',
        );
      if (o.blockShutdownSeconds) args.push('--dapr-block-shutdown-duration', `${o.blockShutdownSeconds}s`);
      const env: NodeJS.ProcessEnv = { ...process.env, ...o.env };
      delete env.APP_API_TOKEN;
      delete env.DAPR_API_TOKEN;
      if (o.appApiToken) env.APP_API_TOKEN = o.appApiToken;
      if (o.daprApiToken) env.DAPR_API_TOKEN = o.daprApiToken;
      const p = new TestProcess(`daprd-${name}`, bins.daprd, args, logPath(dir, `daprd-${name}`), env);
      procs.push(p);
      await waitFor(
        async () => {
          if (!p.running) throw new GiveUp(`daprd ${name} exited: ${p.tail()}`);
          const r = await fetch(`http://127.0.0.1:${http}/v1.0/healthz/outbound`).catch(() => undefined);
          return r && r.status < 300 ? true : undefined;
        },
        `daprd ${name}`,
        60_000,
      );
      return {
        name,
        daprHttpPort: http,
        daprGrpcPort: grpc,
        process: p,
        stop: async () => void (await p.stop()),
        kill: () => p.kill(),
      };
    },
    async restartControlPlane(which) {
      const i = procs.findIndex((p) => p.name === which);
      await procs[i]!.kill();
      const killedAt = Date.now();
      const p = which === 'placement' ? startPlacement() : startScheduler();
      procs[i] = p;
      await waitFor(healthy(which === 'placement' ? placementHealth : schedulerHealth, p), `${which} after its restart`, 90_000);
      return { killedAt };
    },
    processes: () => [...procs],
    close,
  };
}
