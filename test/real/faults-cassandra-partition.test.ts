import { call, eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS } from '../support/fault-load';
import { sleep } from '../support/processes';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster, type RealReplica } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// A replica partitioned from Cassandra while its daprd stays up: replica A reaches Cassandra only through a
// proxy the test cuts for 20 s under 200 workflows (its connections reset, new ones refused), then restores.
// daprd keeps A's actors on A (its health says nothing of Cassandra), so executions placed there cannot move
// on: A answers them with a clear retryable 503, B serves what it hosts, and once the link is back every
// replica serves again within the bound and every workflow completes, none lost, none handed out twice.

const ROUNDS = 5;
const CUT_MS = 20_000;
const BOUND_MS = 15_000;

engineSuite('distributed profile on real engines', missingRealCluster())('a replica partitioned from Cassandra', () => {
  let cluster: RealCluster;
  let proxy: TcpProxy;
  let a: RealReplica;
  let b: RealReplica;
  beforeAll(async () => {
    const [host, port] = (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(',')[0]!.split(':');
    proxy = await startTcpProxy({ host: host!, port: Number(port ?? 9042) });
    cluster = await startRealCluster({ replicas: ['B'] });
    // One node: its system.peers is empty, so the driver talks to the contact point (the proxy) only.
    a = await cluster.addReplica('A', { CASSANDRA_CONTACT_POINTS: `127.0.0.1:${proxy.port}` });
    b = cluster.replicas[0]!;
  }, 600_000);
  afterAll(async () => {
    await cluster?.stop();
    await proxy?.close();
  });

  test.each(Array.from({ length: ROUNDS }, (_, i) => [i + 1]))('round %i: cut for 20 s under load, then restored', async (round) => {
    const { name, taskType, probe } = await defineLoad(cluster);
    const log = newWorkerLog();
    const workers = [a, b, b].map((r) => startRecordingWorker({ taskType, url: () => r.url, decide, log }));
    try {
      const first = await startMany(cluster, name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      const second = startMany(cluster, name, WORKFLOWS / 2, WORKFLOWS / 2);
      await proxy.cut();
      let answers: Answer[];
      try {
        answers = await answersFor(cluster, probe, CUT_MS);
      } finally {
        await proxy.restore();
      }
      const restoredAt = Date.now();
      // Every answer is clear: a success, or a retryable 503 with Conductor's body; never a 500 or a hang.
      const unclear = answers.filter(
        (x) => !((typeof x.status === 'number' && x.status < 300) || (x.status === 503 && x.retryable === true && typeof x.message === 'string')),
      );
      expect(unclear).toEqual([]);
      // A cannot reach its store; B keeps serving the executions it hosts.
      expect(answers.some((x) => x.replica === 'A' && x.status === 503)).toBe(true);
      expect(answers.some((x) => x.replica === 'B' && x.what === 'start' && x.status === 200)).toBe(true);
      const servingAfterMs = await timeUntilServing(cluster, probe, restoredAt);
      console.log(JSON.stringify({ fault: 'a replica partitioned from Cassandra for 20 s, its daprd up', round, servingAfterMs }));
      await expectAllCompleted(cluster, [...first, ...(await second)], log);
      expect(placementWedges(cluster)).toEqual([]);
      expect(servingAfterMs).toBeLessThanOrEqual(BOUND_MS);
    } finally {
      for (const w of workers) await w.stop();
    }
  });
});

interface Answer {
  replica: string;
  what: string;
  status: number | 'no answer';
  retryable?: unknown;
  message?: unknown;
}

/** Starts of the probe and reads by name through each replica for `ms`: what clients see during the partition. */
async function answersFor(cluster: RealCluster, probe: string, ms: number): Promise<Answer[]> {
  const answers: Answer[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    await Promise.all(
      cluster.replicas.flatMap((r) => {
        const ask = async (what: string, method: string, path: string, body?: unknown): Promise<void> => {
          // 30 s: past the driver's own request timeout (12 s), so no answer in that time is a hang.
          const res = await call(r.url, method, path, body, { timeoutMs: 30_000 }).catch(() => undefined);
          answers.push({ replica: r.name, what, status: res ? res.status : 'no answer', retryable: res?.body?.retryable, message: res?.body?.message });
        };
        return [ask('start', 'POST', '/api/workflow', { name: probe }), ask('running by name', 'GET', `/api/workflow/running/${probe}`)];
      }),
    );
    await sleep(250);
  }
  return answers;
}
