import { call, eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS, type LoadDefs } from '../support/fault-load';
import {
  createEverySecondSchedule,
  defineLongTurn,
  defineSubWorkflowRetry,
  expectEverySlotOnce,
  expectLongTurnsCompleted,
  expectRetriedSubWorkflows,
  firstChildFails,
  scheduleExecutions,
  startOne,
  type SubWorkflowRetryDefs,
} from '../support/fault-workloads';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster, type RealReplica } from '../support/real-cluster';
import { sleep } from '../support/processes';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

// kill -9 of a replica and its daprd, five rounds in a row on one cluster, no retries. In every round the
// kill strikes while 200 workflows are in flight and, at the same moment, three kinds of work that used to
// get a survivor wedged or a slot lost:
// - long turns: executions of four 2.5 s INLINE scripts each in one turn, spread over both replicas (8 of
//   them: all on the victim has a chance of 1 in 256), so the survivor is inside a long turn when placement moves
//   the victim's actors (before the 2 s call drain, daprd dropped it from placement's 8 s round and kept
//   its actor types blocked for minutes);
// - a schedule firing every second with catch-up: every slot starts exactly one workflow, none lost;
// - sub-workflows whose first child fails and which wait out their 3 s retry delay.
// Afterwards the killed replica is replaced, and the next round kills the oldest replica left.

const ROUNDS = 5;
const LONG_TURNS = 8;
const PARENTS = 20;
const SERVING_BOUND_MS = 15_000;
/** From the long-turn starts to the kill: past their 3 s WAIT, their scripts are running (4 x 2.5 s per execution). */
const LONG_TURN_LEAD_MS = 4000;

let cluster: RealCluster;
let load: LoadDefs;
let longTurn: string;
let subs: SubWorkflowRetryDefs;
let scheduled: string;

engineSuite('distributed profile on real engines', missingRealCluster())('replicas killed with -9 mid-work, 5 rounds', () => {
  beforeAll(async () => {
    // The scripts' own limit well above their 2.5 s: on a loaded machine a 4 s limit (the default) fails some of them.
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: { BATON_SCRIPT_TIMEOUT_MS: '15000' } });
    load = await defineLoad(cluster);
    longTurn = await defineLongTurn(cluster);
    subs = await defineSubWorkflowRetry(cluster);
    scheduled = load.probe;
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test(
    'kill -9 during long turns, a schedule firing and sub-workflow retries loses nothing, 5 rounds',
    async () => {
      const measured: number[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const victim = cluster.live()[0] as RealReplica;
        const log = newWorkerLog();
        const childLog = newWorkerLog();
        const live = (k: number) => () => {
          const l = cluster.live();
          return l.length ? l[k % l.length]!.url : undefined;
        };
        const workers = [0, 1, 2].map((k) => startRecordingWorker({ taskType: load.taskType, url: live(k), decide, log }));
        const children = firstChildFails();
        const childWorkers = [0, 1].map((k) => startRecordingWorker({ taskType: subs.childTask, url: live(k), decide: children.decide, log: childLog }));
        try {
          const schedule = await createEverySecondSchedule(cluster, scheduled);
          const first = await startMany(cluster, load.name, WORKFLOWS / 2, round * 1000);
          await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
          const parents: string[] = [];
          for (let i = 0; i < PARENTS; i++) parents.push(await startOne(cluster, subs.parent));
          // The moment of the kill: first children failed (their parents wait out the retry delay), the schedule has fired.
          await eventually(async () => (children.failedParents() >= PARENTS / 4 ? true : undefined), 120_000, 100);
          await eventually(async () => ((await scheduleExecutions(cluster, schedule)).length >= 2 ? true : undefined), 60_000, 500);
          // Long turns on both replicas at the kill: each execution's scripts start when its 3 s WAIT ends.
          const longTurns: string[] = [];
          for (let i = 0; i < LONG_TURNS; i++) longTurns.push(await startOne(cluster, longTurn));
          const second = startMany(cluster, load.name, WORKFLOWS / 2, round * 1000 + WORKFLOWS / 2);
          await sleep(LONG_TURN_LEAD_MS);
          const killedAt = Date.now();
          await cluster.kill(victim);
          const servingAfterMs = await timeUntilServing(cluster, load.probe, killedAt);
          measured.push(servingAfterMs);
          console.log(
            JSON.stringify({ fault: 'kill -9 of a replica and its daprd (long turns, a schedule firing, sub-workflow retries)', round, servingAfterMs }),
          );
          await expectAllCompleted(cluster, [...first, ...(await second)], log);
          await expectLongTurnsCompleted(cluster, await longTurns);
          await expectRetriedSubWorkflows(cluster, parents);
          await expectEverySlotOnce(cluster, schedule, scheduled);
          expect(placementWedges(cluster)).toEqual([]);
          expect(servingAfterMs).toBeLessThanOrEqual(SERVING_BOUND_MS);
          expect((await call(cluster.nextUrl(), 'DELETE', `/api/scheduler/schedules/${schedule}`)).status).toBe(200);
        } finally {
          for (const w of [...workers, ...childWorkers]) await w.stop();
        }
        await cluster.addReplica(`${victim.name}${round}`);
      }
      console.log(JSON.stringify({ fault: 'kill -9 of a replica and its daprd', rounds: ROUNDS, servingAfterMs: measured }));
    },
    ROUNDS * 300_000,
  );
});
