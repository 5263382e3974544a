import { eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS } from '../support/fault-load';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';
import { redisFaults, type RedisFaults } from '../support/redis-faults';

// The cluster's Redis (Baton's queues, limits, wake-ups and scan lease; daprd's actor state store and
// pub/sub) killed -9 under load, then restarted on the same port: from its AOF (fsync every second, as
// docs/kubernetes.md asks of production), or from nothing (Redis lost). Executions live in Cassandra:
// what Redis lost, the recovery scan re-derives (queue entries of SCHEDULED tasks), so every workflow
// completes, no acknowledged completion is lost, none is handed out twice, and every replica serves
// again within the bound.

const ROUNDS = 5;

engineSuite('distributed profile on real engines', missingRealCluster())('Redis restarted or lost under load', () => {
  let cluster: RealCluster;
  let redis: RedisFaults;
  beforeAll(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'], redisAof: true });
    redis = redisFaults(cluster);
  });
  afterAll(async () => {
    await cluster?.stop();
    await redis?.stop();
  });

  /** 200 workflows, half of them started while the fault happens; everything checked afterwards. */
  async function underLoad(fault: string, round: number, inject: () => Promise<void>): Promise<void> {
    const { name, taskType, probe } = await defineLoad(cluster);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map(() => startRecordingWorker({ taskType, url: () => cluster.nextUrl(), decide, log }));
    try {
      const first = await startMany(cluster, name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      expect(await redis.keys()).toBeGreaterThan(0);
      const second = startMany(cluster, name, WORKFLOWS / 2, WORKFLOWS / 2);
      const faultAt = Date.now();
      await inject();
      const servingAfterMs = await timeUntilServing(cluster, probe, faultAt);
      const ids = [...first, ...(await second)];
      await expectAllCompleted(cluster, ids, log);
      const allCompletedAfterMs = Date.now() - faultAt;
      console.log(JSON.stringify({ fault, round, servingAfterMs, allCompletedAfterMs }));
      expect(placementWedges(cluster)).toEqual([]);
      expect(servingAfterMs).toBeLessThanOrEqual(15_000);
    } finally {
      for (const w of workers) await w.stop();
    }
  }

  const rounds = Array.from({ length: ROUNDS }, (_, i) => i + 1);

  test.each(rounds)('round %i: Redis killed -9 and restarted from its AOF', (round) =>
    underLoad('Redis killed -9, restarted from AOF', round, async () => {
      await redis.kill();
      await redis.restart({ keepData: true });
    }),
  );

  test.each(rounds)('round %i: Redis lost (killed -9, restarted without its data)', (round) =>
    underLoad('Redis lost: killed -9, restarted empty', round, async () => {
      await redis.kill();
      await redis.restart({ keepData: false });
    }),
  );
});
