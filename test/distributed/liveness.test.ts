import { call, eventually } from '../support/baton';
import { startCluster, type TestCluster } from './cluster';

// A replica whose sidecar can no longer complete actor calls keeps serving HTTP; its /health must
// turn red (so Kubernetes restarts it) while the other replica's stays green.

let cluster: TestCluster;
beforeAll(async () => {
  cluster = await startCluster({
    replicas: ['A', 'B'],
    env: { BATON_LIVENESS_PROBE_INTERVAL_MS: '100', BATON_LIVENESS_PROBE_TIMEOUT_MS: '200', BATON_LIVENESS_FAILURES: '3', BATON_LIVENESS_WINDOW_MS: '300' },
  });
});
afterAll(async () => {
  await cluster?.stop();
});

test("a replica cut off from its sidecar turns /health red; the other's stays green", async () => {
  const [A, B] = cluster.replicas as [TestCluster['replicas'][0], TestCluster['replicas'][0]];
  for (const r of [A, B]) expect(await call(r.url, 'GET', '/health')).toMatchObject({ status: 200, body: { healthy: true } });
  // A's sidecar goes away; A's own HTTP server keeps answering.
  await cluster.double.removeApp(A.port);
  const red = await eventually(
    async () => {
      const r = await call(A.url, 'GET', '/health');
      return r.status === 503 && r;
    },
    20_000,
    100,
  );
  expect(red.body).toMatchObject({ healthy: false, indicators: [{ name: 'actors', healthy: false }] });
  expect(await call(B.url, 'GET', '/health')).toMatchObject({ status: 200, body: { healthy: true } });
  await cluster.kill(A);
});
