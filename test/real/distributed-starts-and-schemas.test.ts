import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Idempotent starts and JSON schemas on two real replicas (real daprd, Cassandra, Elasticsearch): the
// key is claimed with a Cassandra lightweight transaction, so starts sent to both replicas at once make
// one execution; a schema stored in Cassandra through one replica is enforced by the other.

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
    const r = await call(cluster.nextUrl(), 'POST', '/api/metadata/workflowdef', {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }],
    });
    expect(r.status).toBe(200);
    return name;
  };
  const urls = (): string[] => cluster.live().map((r) => r.url);

  test('RETURN_EXISTING: 20 starts over both replicas answer one execution', async () => {
    const name = await define();
    const [a, b] = urls();
    const replies = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        call(i % 2 ? b! : a!, 'POST', '/api/workflow', { name, idempotencyKey: 'k', idempotencyStrategy: 'RETURN_EXISTING' }),
      ),
    );
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

  test("a schema saved through A refuses a start through B and fails a worker's result through B", async () => {
    const [a, b] = urls();
    const schema = uniq('real_schema');
    expect((await call(a!, 'POST', '/api/schema', [{ name: schema, type: 'JSON', data: { type: 'object', required: ['id'] } }])).status).toBe(200);
    expect((await call(b!, 'GET', `/api/schema/${schema}/1`)).body).toMatchObject({ name: schema, version: 1 });
    const name = uniq('real_schema_wf');
    const task = uniq('real_schema_task');
    expect((await call(a!, 'POST', '/api/metadata/taskdefs', [{ name: task, retryCount: 0, outputSchema: { name: schema } }])).status).toBe(200);
    expect(
      (
        await call(a!, 'POST', '/api/metadata/workflowdef', {
          name,
          version: 1,
          schemaVersion: 2,
          inputSchema: { name: schema },
          tasks: [{ name: task, taskReferenceName: 't' }],
        })
      ).status,
    ).toBe(200);
    const refused = await call(b!, 'POST', '/api/workflow', { name, input: {} });
    expect(refused.status).toBe(400);
    const id = (await call(b!, 'POST', '/api/workflow', { name, input: { id: 1 } })).text;
    const polled = await eventually(async () => (await call(b!, 'GET', `/api/tasks/poll/batch/${task}?count=1&timeout=500`)).body[0]);
    expect((await call(b!, 'POST', '/api/tasks', { workflowInstanceId: id, taskId: polled.taskId, status: 'COMPLETED', outputData: {} })).status).toBe(200);
    const failed = await eventually(async () => {
      const w = (await call(a!, 'GET', `/api/workflow/${id}`)).body;
      return w.status === 'FAILED' ? w : undefined;
    }, 60_000);
    expect(failed.tasks[0].reasonForIncompletion).toMatch(/^Task output does not conform to the output schema/);
  });
});
