import { call, eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS, type LoadDefs } from '../support/fault-load';
import { createEverySecondSchedule, expectEverySlotOnce, scheduleExecutions } from '../support/fault-workloads';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

// Dapr's control plane restarted under load, five rounds each on one cluster, no retries: kill -9 of
// placement (actor placement) or of the scheduler (actor reminders, kept in its etcd data dir), started
// again at once on the same ports. 200 workflows are in flight, each waiting 2 s (WAIT) and some retried
// after a 2 s delay; a schedule fires every second with catch-up through its daprd reminder. Every
// workflow completes, no acknowledged completion is lost, every slot starts exactly one workflow, and
// both replicas serve again within the bound.

const ROUNDS = 5;
const SERVING_BOUND_MS = 15_000;

let cluster: RealCluster;
let load: LoadDefs;

engineSuite('distributed profile on real engines', missingRealCluster())('placement and scheduler restarted under load, 5 rounds each', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'] });
    load = await defineLoad(cluster);
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test.each(['placement', 'scheduler'] as const)(
    '%s killed with -9 and started again loses nothing, 5 rounds',
    async (which) => {
      const measured: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const log = newWorkerLog();
        const workers = cluster.replicas.flatMap((r) => [0, 1].map(() => startRecordingWorker({ taskType: load.taskType, url: () => r.url, decide, log })));
        try {
          const schedule = await createEverySecondSchedule(cluster, load.probe);
          const first = await startMany(cluster, load.name, WORKFLOWS / 2, round * 1000);
          await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
          await eventually(async () => ((await scheduleExecutions(cluster, schedule)).length >= 2 ? true : undefined), 60_000, 500);
          const second = startMany(cluster, load.name, WORKFLOWS / 2, round * 1000 + WORKFLOWS / 2);
          const { killedAt } = await cluster.dapr.restartControlPlane(which);
          const servingAfterMs = await timeUntilServing(cluster, load.probe, killedAt);
          measured.push(servingAfterMs);
          console.log(JSON.stringify({ fault: `${which} restarted (kill -9, started again)`, round, servingAfterMs }));
          await expectAllCompleted(cluster, [...first, ...(await second)], log);
          // The schedule's reminder fired again after the restart: slots after it started workflows too.
          const later = Date.now();
          await eventually(async () => ((await scheduleExecutions(cluster, schedule)).some((e) => e.scheduledTime > later) ? true : undefined), 60_000, 1000);
          await expectEverySlotOnce(cluster, schedule, load.probe);
          expect(placementWedges(cluster)).toEqual([]);
          expect(servingAfterMs).toBeLessThanOrEqual(SERVING_BOUND_MS);
          expect((await call(cluster.nextUrl(), 'DELETE', `/api/scheduler/schedules/${schedule}`)).status).toBe(200);
        } finally {
          for (const w of workers) await w.stop();
        }
      }
      console.log(JSON.stringify({ fault: `${which} restarted`, rounds: ROUNDS, servingAfterMs: measured }));
    },
    ROUNDS * 240_000,
  );
});
