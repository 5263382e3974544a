import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS } from '../support/fault-load';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster, type RealReplica } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

// Replicas dying and restarting under load, on the real engines: kill -9 of a replica and its
// daprd in the middle of 200 workflows, SIGTERM to Baton alone with its daprd up, then a rolling
// restart by SIGTERM. Every workflow ends
// COMPLETED, no acknowledged update is lost, and no task whose completion was acknowledged is
// handed out again. Each workflow waits (WAIT), and some tasks fail once (retry delay) or are
// ignored once (response timeout), so timers of the dying replica's executions must fire elsewhere.

/**
 * The kill -9 test puts the periodic recovery pass an hour away: what the killed replica held in memory (its
 * executions' deadlines) comes back only because the survivor sees it stop marking itself alive, or takes the
 * scan's lease over from it.
 */
const envFor = (test: string): Record<string, string> =>
  test.includes('kill -9') ? { BATON_RECOVERY_SCAN_INTERVAL_MS: '3600000', BATON_RECOVERY_SCAN_TICK_MS: '1000' } : {};

engineSuite('distributed profile on real engines', missingRealCluster())('replicas dying under load', () => {
  let cluster: RealCluster;
  beforeEach(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: envFor(expect.getState().currentTestName ?? '') });
  });
  afterEach(async () => {
    await cluster?.stop();
  });

  test('kill -9 of a replica and its daprd in the middle of 200 workflows loses nothing, with no periodic recovery pass due', async () => {
    const { name, taskType, probe } = await defineLoad(cluster);
    const [a, b] = cluster.replicas as [RealReplica, RealReplica];
    const log = newWorkerLog();
    const workers = [
      startRecordingWorker({ taskType, url: () => (a.alive ? a.url : undefined), decide, log }),
      startRecordingWorker({ taskType, url: () => b.url, decide, log }),
      startRecordingWorker({ taskType, url: () => b.url, decide, log }),
    ];
    try {
      const first = await startMany(cluster, name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      const second = startMany(cluster, name, WORKFLOWS / 2, WORKFLOWS / 2);
      const killedAt = Date.now();
      await cluster.kill(a);
      const servingAfterMs = await timeUntilServing(cluster, probe, killedAt);
      console.log(JSON.stringify({ fault: 'kill -9 of a replica and its daprd', servingAfterMs }));
      const ids = [...first, ...(await second)];
      await expectAllCompleted(cluster, ids, log);
      expect(placementWedges(cluster)).toEqual([]);
      expect(servingAfterMs).toBeLessThanOrEqual(15_000);
    } finally {
      for (const w of workers) await w.stop();
    }
  });

  test('SIGTERM to Baton alone, its daprd still up, under load: it leaves by itself within the grace period and loses nothing', async () => {
    // daprd stops answering actor calls once its app reports unhealthy (the drain); a replica used to wait out
    // the 60 s call limit per reminder saved at deactivation and took ~75 s, past the chart's 45 s grace period.
    const grace = Number(parse(readFileSync(join(__dirname, '..', '..', 'charts', 'baton', 'values.yaml'), 'utf8')).terminationGracePeriodSeconds) * 1000;
    const { name, taskType } = await defineLoad(cluster);
    const [a, b] = cluster.replicas as [RealReplica, RealReplica];
    const log = newWorkerLog();
    const workers = [0, 1].map(() => startRecordingWorker({ taskType, url: () => b.url, decide, log }));
    try {
      const ids = startMany(cluster, name, WORKFLOWS);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      // Left by itself within the grace period, every step of the stop finished (0): 1 would be Baton's own exit
      // deadline (src/exit-deadline.ts), null a SIGKILL. The last step used to wait out a sidecar call daprd held.
      const code = await cluster.terminateBatonAlone(a, grace);
      expect([
        code,
        a.baton
          .tail(60)
          .split('\n')
          .filter((l) => /shutdown/.test(l)),
      ]).toEqual([0, expect.anything()]);
      await expectAllCompleted(cluster, await ids, log);
    } finally {
      for (const w of workers) await w.stop();
    }
  });

  test('a rolling restart by SIGTERM, one replica after the other, under load', async () => {
    const { name, taskType } = await defineLoad(cluster);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map(() => startRecordingWorker({ taskType, url: () => cluster.live()[0]?.url, decide, log }));
    const startErrors: string[] = [];
    try {
      const starting = startMany(cluster, name, WORKFLOWS, 0, startErrors);
      for (const old of [...cluster.replicas]) {
        await eventually(async () => (log.acknowledged.size >= 10 ? true : undefined), 120_000, 200);
        const code = await cluster.terminate(old);
        expect(code).toBe(0);
        await cluster.addReplica(`${old.name}2`);
      }
      const ids = await starting;
      await expectAllCompleted(cluster, ids, log);
      // Only connection errors and 503s (nothing ran). An update or a start in flight to a stopping replica can be
      // cut by daprd after it was sent (`context canceled`): Baton settles it (re-sent, else looked up) instead of
      // answering an unknown outcome (500, not retryable).
      expect([...startErrors, ...log.errors].filter((e) => !/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed| 503 /.test(e))).toEqual([]);
    } finally {
      for (const w of workers) await w.stop();
    }
  });
});
