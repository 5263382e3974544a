import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'cassandra-driver';
import { call, eventually } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';

// Secrets in the distributed profile on real engines (daprd, Cassandra, Elasticsearch): written on
// one replica, read and used on the other, sealed in Cassandra, revealed only in the HTTP task's
// request and a polled task, never in the execution, search or the stored row.

let cluster: RealCluster;
let endpoint: Server;
const headers: string[] = [];
let n = 0;
const uniq = (p: string): string => `${p}_${++n}_${Date.now().toString(36)}`;
const on = (i: number) => (method: string, path: string, body?: unknown) => call<any>(cluster.replicas[i]!.url, method, path, body);

engineSuite('distributed profile on real engines', missingRealCluster())('secrets on two real replicas', () => {
  beforeAll(async () => {
    endpoint = createServer((req, res) => {
      headers.push(String(req.headers['x-secret']));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ echoed: req.headers['x-secret'] }));
    });
    await new Promise<void>((r) => endpoint.listen(0, '127.0.0.1', () => r()));
    cluster = await startRealCluster({
      replicas: ['A', 'B'],
      env: { BATON_AUTH: 'off', BATON_SECRETS_KEY: randomBytes(32).toString('base64'), BATON_HTTP_TASK_ALLOW: '127.0.0.1' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
    await new Promise((r) => endpoint?.close(r));
  });

  test('put on A, read on B; sealed in Cassandra; an HTTP task and a worker get the value, the execution keeps the reference', async () => {
    const [a, b] = [on(0), on(1)];
    const secret = uniq('dist_secret');
    const value = `dist-value-${Date.now()}`;
    expect((await a('PUT', `/api/secrets/${secret}`, value)).status).toBe(200);
    expect((await b('GET', `/api/secrets/${secret}`)).body).toBe(value);
    expect((await b('GET', '/api/secrets')).body).toContain(secret);
    expect((await b('PUT', `/api/secrets/${secret}/tags`, [{ key: 'k', value: 'v' }])).status).toBe(200);
    expect((await a('GET', `/api/secrets/${secret}/tags`)).body).toEqual([{ key: 'k', value: 'v' }]);

    const cassandra = new Client({
      contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(','),
      localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
    });
    try {
      const row = (await cassandra.execute(`SELECT secret_json FROM ${cluster.keyspace}.secrets WHERE name = ?`, [secret], { prepare: true })).first();
      expect(String(row?.get('secret_json'))).toContain('"sealed":"v1.');
      expect(String(row?.get('secret_json'))).not.toContain(value);
    } finally {
      await cassandra.shutdown();
    }

    const name = uniq('dist_secret_wf');
    const type = uniq('dist_secret_task');
    const uri = `http://127.0.0.1:${(endpoint.address() as AddressInfo).port}/echo`;
    const ref = `\${workflow.secrets.${secret}}`;
    const def = {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [
        { name: 'call', taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: { uri, method: 'GET', headers: { 'X-Secret': ref } } } },
        { name: type, taskReferenceName: 'work', type: 'SIMPLE', inputParameters: { token: ref } },
      ],
    };
    expect((await a('POST', '/api/metadata/workflowdef', def)).status).toBe(200);
    const id = (await a('POST', '/api/workflow', { name, input: {} })).text;
    const polled = await eventually(async () => (await b('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=200`)).body?.[0], 60_000);
    expect(polled.inputData).toEqual({ token: value });
    expect(headers).toContain(value);
    expect((await b('POST', '/api/tasks', { workflowInstanceId: id, taskId: polled.taskId, status: 'COMPLETED', outputData: {} })).status).toBe(200);
    const wf = await eventually(async () => {
      const w = (await a('GET', `/api/workflow/${id}?includeTasks=true`)).body;
      return w.status === 'COMPLETED' ? w : undefined;
    }, 60_000);
    expect(wf.tasks.map((t: any) => t.inputData)).toEqual([
      expect.objectContaining({ http_request: expect.objectContaining({ headers: { 'X-Secret': ref } }) }),
      { token: ref },
    ]);
    expect(wf.tasks[0].outputData.response.body).toEqual({ echoed: '***' });
    const search = await eventually(async () => {
      const r = await b('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowId = '${id}'`)}`);
      return r.body?.results?.[0]?.status === 'COMPLETED' ? r : undefined;
    }, 60_000);
    expect(JSON.stringify(wf) + search.text).not.toContain(value);
  });
});
