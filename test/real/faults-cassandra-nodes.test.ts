import { call, eventually } from '../support/baton';
import { clusterWhole, cassandraClusterPoints, killNode, missingCassandraCluster, restartNode, type NodeNumber } from '../support/cassandra-cluster';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS } from '../support/fault-load';
import { sleep } from '../support/processes';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';

// Cassandra as users run it: three nodes, replication 3, LOCAL_QUORUM / LOCAL_SERIAL. Two Baton replicas run
// 200 workflows while Cassandra nodes die by kill -9. One node down: a quorum remains, nothing is lost and the
// replicas serve on. Two down: no quorum, so clients get clear retryable errors (503, Conductor's body), never
// a 500 or a hang, and everything completes once one node returns. Each round starts from the whole cluster.

const ROUNDS_ONE = 5;
const ROUNDS_TWO = 2;
const BOUND_MS = 15_000;
/** A round: 200 workflows, and a node restarted on its data (a minute or two on a busy machine). */
const ROUND_MS = 600_000;

const missing = missingRealCluster() ?? missingCassandraCluster();

engineSuite('three-node Cassandra and the distributed profile', missing)('Cassandra nodes dying under load', () => {
  let cluster: RealCluster;
  beforeAll(async () => {
    await clusterWhole();
    const t = Date.now();
    cluster = await startRealCluster({
      replicas: ['A', 'B'],
      cassandra: { contactPoints: cassandraClusterPoints()!, replication: 'datacenter1:3' },
      env: { CASSANDRA_CONSISTENCY: 'LOCAL_QUORUM' },
      // The first replica creates the schema: each DDL statement waits for the three nodes to agree.
      startWithinMs: 480_000,
    });
    console.log(JSON.stringify({ replicasServingWithSchemaMs: Date.now() - t }));
  }, 600_000);
  afterAll(async () => {
    await cluster?.stop();
  });

  /** 200 workflows through both replicas with three workers; `fault` runs once 20 completions are acknowledged. */
  async function underLoad(fault: (probe: string) => Promise<void>): Promise<void> {
    const { name, taskType, probe } = await defineLoad(cluster);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map((i) => startRecordingWorker({ taskType, url: () => cluster.replicas[i % 2]!.url, decide, log }));
    try {
      const first = await startMany(cluster, name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      const second = startMany(cluster, name, WORKFLOWS / 2, WORKFLOWS / 2);
      await fault(probe);
      await expectAllCompleted(cluster, [...first, ...(await second)], log);
      expect(placementWedges(cluster)).toEqual([]);
    } finally {
      for (const w of workers) await w.stop();
    }
  }

  test.each(Array.from({ length: ROUNDS_ONE }, (_, i) => [i + 1]))(
    'round %i: one node killed under load loses nothing and pauses no replica',
    async (round) => {
      const node = (((round - 1) % 3) + 1) as NodeNumber;
      const startedAt = Date.now();
      let back: Promise<number> | undefined;
      try {
        await underLoad(async (probe) => {
          const killedAt = Date.now();
          await killNode(node);
          const servingAfterMs = await timeUntilServing(cluster, probe, killedAt);
          // The node comes back while the rest of the load runs on, as an operator restarts it under traffic.
          back = timed(() => restartNode(node));
          back.catch(() => undefined);
          console.log(JSON.stringify({ fault: 'kill -9 of one of three Cassandra nodes', round, node, servingAfterMs }));
          expect(servingAfterMs).toBeLessThanOrEqual(BOUND_MS);
        });
      } finally {
        const restartMs = await (back ?? timed(() => restartNode(node)));
        await clusterWhole();
        console.log(JSON.stringify({ round, node, restartMs, roundMs: Date.now() - startedAt }));
      }
    },
    ROUND_MS,
  );

  test.each(Array.from({ length: ROUNDS_TWO }, (_, i) => [i + 1]))(
    'round %i: two nodes killed: clear retryable errors, and all completes when one returns',
    async (round) => {
      const [back, later] = (round % 2 === 1 ? [2, 3] : [3, 1]) as [NodeNumber, NodeNumber];
      const startedAt = Date.now();
      try {
        await underLoad(async (probe) => {
          await Promise.all([killNode(back), killNode(later)]);
          // Until one node returns, every answer is a success (a read Redis alone serves) or a retryable 503 with Conductor's body.
          const answers = await answersDuringOutage(cluster, probe);
          const unclear = answers.filter(
            (a) => !((typeof a.status === 'number' && a.status < 300) || (a.status === 503 && a.retryable === true && typeof a.message === 'string')),
          );
          expect(unclear).toEqual([]);
          expect(answers.filter((a) => a.status === 503).length).toBeGreaterThan(0);
          await restartNode(back);
          const backAt = Date.now();
          const servingAfterMs = await timeUntilServing(cluster, probe, backAt);
          console.log(JSON.stringify({ fault: 'kill -9 of two of three Cassandra nodes, one restarted', round, servingAfterMs }));
          expect(servingAfterMs).toBeLessThanOrEqual(BOUND_MS);
        });
      } finally {
        await Promise.all([restartNode(back), restartNode(later)]);
        await clusterWhole();
        console.log(JSON.stringify({ round, twoNodes: true, roundMs: Date.now() - startedAt }));
      }
    },
    ROUND_MS,
  );
});

/** Milliseconds `action` took. */
async function timed(action: () => Promise<void>): Promise<number> {
  const t = Date.now();
  await action();
  return Date.now() - t;
}

interface Answer {
  what: string;
  status: number | 'no answer';
  retryable?: unknown;
  message?: unknown;
}

/** Starts of the probe and reads of one of them through each replica, for 15 s: what clients see without a quorum. */
async function answersDuringOutage(cluster: RealCluster, probe: string): Promise<Answer[]> {
  const answers: Answer[] = [];
  const end = Date.now() + 15_000;
  while (Date.now() < end) {
    for (const r of cluster.replicas) {
      const ask = async (what: string, method: string, path: string, body?: unknown): Promise<void> => {
        // 30 s: past the driver's own request timeout (12 s), so no answer in that time is a hang.
        const res = await call(r.url, method, path, body, { timeoutMs: 30_000 }).catch(() => undefined);
        answers.push(
          res
            ? { what: `${r.name} ${what}`, status: res.status, retryable: res.body?.retryable, message: res.body?.message }
            : { what: `${r.name} ${what}`, status: 'no answer' },
        );
      };
      await Promise.all([
        ask('start', 'POST', '/api/workflow', { name: probe }),
        ask('search by name', 'GET', `/api/workflow/running/${probe}`),
        ask('poll', 'GET', `/api/tasks/poll/${probe}_none`),
      ]);
    }
    await sleep(250);
  }
  return answers;
}
