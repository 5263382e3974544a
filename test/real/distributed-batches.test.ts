import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Batches by query on real engines: two replicas with real daprd sidecars, the batch in Cassandra, the search in
// Elasticsearch, one runner at a time under the Redis lease. A replica is killed with -9 mid-batch; the batch finishes
// and no execution is acted on twice. The counter: each execution's only task calls this test's server naming it, so
// every restart of an execution is one more hit.

const EXECUTIONS = 16;
let cluster: RealCluster;
const hits = new Map<string, number>();
const counter = http.createServer((req, res) => {
  const id = (req.url ?? '').replace(/^\/hit\//, '');
  hits.set(id, (hits.get(id) ?? 0) + 1);
  res.setHeader('content-type', 'application/json');
  res.end('{"ok":true}');
});

engineSuite('distributed profile on real engines', missingRealCluster())('batches by query on two real replicas', () => {
  beforeAll(async () => {
    await new Promise<void>((r) => counter.listen(0, '127.0.0.1', () => r()));
    // Two executions per interval: the kill lands mid-batch.
    cluster = await startRealCluster({ replicas: ['A', 'B'], env: { BATON_BATCH_BUDGET: '2', BATON_BATCH_INTERVAL_MS: '300' } });
  });
  afterAll(async () => {
    await cluster?.stop();
    await new Promise<void>((r) => counter.close(() => r()));
  });

  test('a restart batch finishes after a replica is killed, each execution restarted once', async () => {
    const api = (m: string, p: string, b?: unknown) => call(cluster.nextUrl(), m, p, b);
    const name = `rt_batch_${Date.now().toString(36)}`;
    const hit = { uri: `http://127.0.0.1:${(counter.address() as AddressInfo).port}/hit/\${workflow.workflowId}`, method: 'GET' };
    const def = { name, version: 1, tasks: [{ name: 'hit', taskReferenceName: 'hit', type: 'HTTP', inputParameters: { http_request: hit } }] };
    expect((await api('POST', '/api/metadata/workflow', def)).status).toBe(200);
    const ids: string[] = [];
    for (let i = 0; i < EXECUTIONS; i++) ids.push((await api('POST', '/api/workflow', { name, input: { i } })).text);
    const completed = encodeURIComponent(`workflowType = '${name}' AND status = 'COMPLETED'`);
    await eventually(async () => (await api('GET', `/api/workflow/search?size=0&query=${completed}`)).body.totalHits === EXECUTIONS, 120_000, 500);
    expect(ids.map((id) => hits.get(id))).toEqual(ids.map(() => 1));

    const started = await api('POST', '/api/batch', { query: `workflowType = '${name}'`, action: 'restart' });
    expect(started.body.matched).toBe(EXECUTIONS);
    const batch = started.body.id as string;
    await eventually(async () => (await api('GET', `/api/batch/${batch}`)).body.done >= 4, 120_000, 200);
    await cluster.kill(cluster.replicas[0]!);

    const done = await eventually(
      async () => {
        const b = (await api('GET', `/api/batch/${batch}`)).body;
        return b.state === 'COMPLETED' && b;
      },
      180_000,
      500,
    );
    expect(done.done + done.failed).toBe(EXECUTIONS);
    const failed = new Set((done.failures as Array<{ workflowId: string }>).map((f) => f.workflowId));
    // Once every execution has ended again, every call it made has been counted.
    await eventually(
      async () => {
        for (const id of ids) if ((await api('GET', `/api/workflow/${id}?includeTasks=false`)).body.status !== 'COMPLETED') return false;
        return true;
      },
      120_000,
      500,
    );
    for (const id of ids) {
      if (failed.has(id)) expect(hits.get(id)).toBeLessThanOrEqual(2);
      else expect(hits.get(id)).toBe(2);
    }
  });
});
