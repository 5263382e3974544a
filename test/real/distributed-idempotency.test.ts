import { call } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Idempotent starts on two real replicas (real daprd, Cassandra, Elasticsearch): the key is claimed
// with a Cassandra lightweight transaction, so starts sent to both replicas at once make one execution.

let cluster: RealCluster;
const uniq = (p: string): string => `${p}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 6)}`;

engineSuite('distributed profile on real engines', missingRealCluster())('idempotent starts on two real replicas', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({ replicas: ['A', 'B'] });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  const define = async (): Promise<string> => {
    const name = uniq('idem_real');
    const r = await call(cluster.nextUrl(), 'POST', '/api/metadata/workflowdef', { name, version: 1, schemaVersion: 2, tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }] });
    expect(r.status).toBe(200);
    return name;
  };
  const urls = (): string[] => cluster.live().map((r) => r.url);

  test('RETURN_EXISTING: 20 starts over both replicas answer one execution', async () => {
    const name = await define();
    const [a, b] = urls();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? b! : a!, 'POST', '/api/workflow', { name, idempotencyKey: 'k', idempotencyStrategy: 'RETURN_EXISTING' })));
    expect(replies.map((r) => r.status)).toEqual(Array(20).fill(200));
    expect(new Set(replies.map((r) => r.text)).size).toBe(1);
    expect((await call(a!, 'GET', `/api/workflow/running/${name}`)).body).toEqual([replies[0]!.text]);
  });

  test('FAIL: one of 20 starts over both replicas succeeds, the others answer 409', async () => {
    const name = await define();
    const [a, b] = urls();
    const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i % 2 ? b! : a!, 'POST', '/api/workflow', { name, idempotencyKey: 'k' })));
    expect(replies.filter((r) => r.status === 200)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(19);
    expect((await call(b!, 'GET', `/api/workflow/running/${name}`)).body).toEqual([replies.find((r) => r.status === 200)!.text]);
  });
});
