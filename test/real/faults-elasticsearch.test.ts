import { call, eventually } from '../support/baton';
import { decide, defineLoad, expectAllCompleted, placementWedges, startMany, timeUntilServing, WORKFLOWS } from '../support/fault-load';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { newWorkerLog, startRecordingWorker } from '../support/recording-workers';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy';

// Elasticsearch down under load, on the real engines: every replica reaches the shared Elasticsearch
// through a proxy the test closes (connections refused, as a stopped server refuses them). Executions
// go on, every search answers a retryable 503 at once, and once Elasticsearch is back the index catches
// up: every execution is found with its final status. The outage lasts 20 s per round (a minute in the
// issue) to keep CI short: what is checked does not depend on its length, only on Baton holding what it
// could not write.

const ROUNDS = 5;
const OUTAGE_MS = 20_000;

engineSuite('distributed profile on real engines', missingRealCluster())('Elasticsearch down under load', () => {
  let cluster: RealCluster;
  let proxy: TcpProxy;
  beforeAll(async () => {
    const es = new URL(process.env.ELASTICSEARCH_URL!);
    proxy = await startTcpProxy({ host: es.hostname, port: Number(es.port || 9200) }, es.protocol.replace(':', ''));
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: { ELASTICSEARCH_URL: proxy.url } });
  });
  afterAll(async () => {
    await proxy?.restore();
    await cluster?.stop();
    await proxy?.close();
  });

  const searchOf = (url: string, name: string) =>
    call(url, 'GET', `/api/workflow/search?size=1000&freeText=*&query=${encodeURIComponent(`workflowType IN (${name})`)}`, undefined, { timeoutMs: 60_000 });

  test.each(Array.from({ length: ROUNDS }, (_, i) => i + 1))('round %i: executions go on, search answers 503, the index catches up', async (round) => {
    const { name, taskType, probe } = await defineLoad(cluster);
    const log = newWorkerLog();
    const workers = [0, 1, 2].map(() => startRecordingWorker({ taskType, url: () => cluster.nextUrl(), decide, log }));
    try {
      const first = await startMany(cluster, name, WORKFLOWS / 2);
      await eventually(async () => (log.acknowledged.size >= 20 ? true : undefined), 120_000, 200);
      const downAt = Date.now();
      await proxy.cut();
      const second = startMany(cluster, name, WORKFLOWS / 2, WORKFLOWS / 2);
      // Starts need no index: every replica keeps serving while it is down.
      const servingAfterMs = await timeUntilServing(cluster, probe, downAt);
      // Through the whole outage, every replica answers a search at once with a retryable 503 in Conductor form.
      const answers: Array<{ status: number; retryable?: boolean; code?: string }> = [];
      while (Date.now() - downAt < OUTAGE_MS) {
        for (const r of cluster.live()) {
          const res = await searchOf(r.url, name);
          answers.push({ status: res.status, retryable: res.body?.retryable, code: res.body?.code });
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
      await proxy.restore();
      const upAt = Date.now();
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.filter((a) => a.status !== 503 || a.retryable !== true)).toEqual([]);
      const ids = [...first, ...(await second)];
      await expectAllCompleted(cluster, ids, log);
      // Every execution is found by search with its final status once Elasticsearch is back.
      const missing = await eventually(
        async () => {
          const res = await searchOf(cluster.nextUrl(), name);
          if (res.status !== 200) return undefined;
          const found = new Map<string, string>((res.body.results as Array<{ workflowId: string; status: string }>).map((w) => [w.workflowId, w.status]));
          const left = ids.filter((id) => found.get(id) !== 'COMPLETED');
          return left.length === 0 ? left : undefined;
        },
        120_000,
        1000,
      );
      expect(missing).toEqual([]);
      const indexCompleteAfterMs = Date.now() - upAt;
      console.log(JSON.stringify({ fault: 'Elasticsearch down', round, outageMs: OUTAGE_MS, servingAfterMs, indexCompleteAfterMs }));
      expect(placementWedges(cluster)).toEqual([]);
      expect(servingAfterMs).toBeLessThanOrEqual(15_000);
    } finally {
      await proxy.restore();
      for (const w of workers) await w.stop();
    }
  });
});
