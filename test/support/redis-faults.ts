import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import Redis from 'ioredis';
import { daprBinaries } from './dapr/daprd-processes';
import { GiveUp, logPath, portOpen, TestProcess, waitFor } from './processes';
import type { RealCluster } from './real-cluster';

/**
 * The cluster's own redis-server as a fault test breaks it: kill -9, then a restart on the same port,
 * from its AOF (`keepData`) or from nothing (Redis lost). The cluster was started with `redisAof`.
 */
export interface RedisFaults {
  kill(): Promise<void>;
  restart(o: { keepData: boolean }): Promise<void>;
  /** Keys held now (to show a restart without data really started empty). */
  keys(): Promise<number>;
  /** Stops the redis-servers started here (the cluster stops only the first). */
  stop(): Promise<void>;
}

export function redisFaults(cluster: RealCluster): RedisFaults {
  const bins = daprBinaries()!;
  const port = cluster.dapr.redisPort;
  let current = cluster.dapr.processes().find((p) => p.name === 'redis');
  if (!current) throw new Error('the cluster has no redis-server of its own');
  let dataDir = cluster.dapr.dir;
  const started: TestProcess[] = [];
  let restarts = 0;
  return {
    async kill() {
      await current?.kill();
    },
    async restart({ keepData }) {
      // A restart without data: a fresh directory, as a pod on a new volume (or none) would start.
      if (!keepData) dataDir = mkdtempSync(join(cluster.dapr.dir, 'redis-lost-'));
      const name = `redis-${++restarts}`;
      const p = new TestProcess(
        name,
        bins.redis,
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes', '--appendfsync', 'everysec', '--dir', dataDir],
        logPath(cluster.dapr.dir, name),
      );
      started.push(p);
      current = p;
      await waitFor(
        async () => {
          if (!p.running) throw new GiveUp(`redis-server exited: ${p.tail()}`);
          return (await portOpen(port)) || undefined;
        },
        'redis-server restart',
        30_000,
      );
      // Replays its AOF before it answers commands.
      await waitFor(async () => ((await this.keys().catch(() => -1)) >= 0 ? true : undefined), 'redis-server loaded', 60_000);
    },
    async keys() {
      const r = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, enableOfflineQueue: false });
      try {
        await r.connect();
        return await r.dbsize();
      } finally {
        r.disconnect();
      }
    },
    async stop() {
      for (const p of started) await p.stop(10_000).catch(() => undefined);
    },
  };
}
