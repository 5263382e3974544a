import { Client } from 'cassandra-driver';
import { call } from '../support/baton';
import { engineSuite } from '../support/real-engines';
import { missingRealCluster, startRealCluster, type RealCluster } from '../support/real-cluster';
import { s3Env } from '../support/s3';

// External payload storage in the distributed profile on real engines (daprd, Cassandra, Elasticsearch) with
// the bucket of the S3-compatible server `npm run services` starts (s3proxy): locations are presigned URLs to
// the bucket, payloads above 4 KB leave the Cassandra rows, and either replica reads them back.

let cluster: RealCluster;
const on = (i: number) => (method: string, path: string, body?: unknown) => call<any>(cluster.replicas[i]!.url, method, path, body);
const uniq = (p: string): string => `${p}_${Date.now().toString(36)}`;
const missing = missingRealCluster() ?? (s3Env() ? undefined : 'BATON_S3_* not set (s3proxy is started by scripts/services/s3proxy.sh)');

engineSuite('distributed profile with s3proxy', missing)('external payloads on two real replicas and a bucket', () => {
  beforeAll(async () => {
    cluster = await startRealCluster({
      replicas: ['A', 'B'],
      env: { BATON_AUTH: 'off', ...s3Env()!, BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: '4096', BATON_TASK_PAYLOAD_THRESHOLD_BYTES: '4096' },
    });
  });
  afterAll(async () => {
    await cluster?.stop();
  });

  test('a large input started on A runs on B; an output uploaded to the bucket completes the task; no payload is in a Cassandra row', async () => {
    const [a, b] = [on(0), on(1)];
    const name = uniq('dist_payloads');
    const type = `${name}_work`;
    expect((await a('POST', '/api/metadata/taskdefs', [{ name: type, retryCount: 0, responseTimeoutSeconds: 60, timeoutSeconds: 0 }])).status).toBe(200);
    const def = {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [{ name: type, taskReferenceName: 't', type: 'SIMPLE', inputParameters: { marker: '${workflow.input.marker}', blob: '${workflow.input.blob}' } }],
      outputParameters: { result: '${t.output.result}', echoed: '${workflow.input.marker}' },
    };
    expect((await a('POST', '/api/metadata/workflowdef', def)).status).toBe(200);

    const input = { marker: 'dist-input-marker', blob: 'x'.repeat(8000) };
    const started = await a('POST', '/api/workflow', { name, input });
    expect(started.status).toBe(200);
    const id = started.text;
    const running = await b('GET', `/api/workflow/${id}`);
    expect(running.body).toMatchObject({ input: {}, externalInputPayloadStoragePath: expect.stringMatching(`^payloads/executions/${id}/workflow-input-`) });

    // A READ location is a presigned URL to the bucket, not to Baton.
    const readInput = await b(
      'GET',
      `/api/workflow/externalstoragelocation?operation=READ&payloadType=WORKFLOW_INPUT&path=${encodeURIComponent(running.body.externalInputPayloadStoragePath)}`,
    );
    expect(readInput.body.uri).toContain(process.env.BATON_S3_ENDPOINT);
    expect(readInput.body.uri).toContain('X-Amz-Signature=');
    expect(await (await fetch(readInput.body.uri)).json()).toEqual(input);

    let polled: any;
    let lastPoll: unknown;
    for (const until = Date.now() + 60_000; !polled && Date.now() < until;) {
      const r = await b('GET', `/api/tasks/poll/batch/${type}?count=1&timeout=1000&workerid=w`);
      lastPoll = { status: r.status, body: r.body };
      polled = Array.isArray(r.body) ? r.body[0] : undefined;
    }
    // When no poll hands the task out, say what the execution and the last poll looked like.
    if (!polled)
      throw new Error(
        `no task polled in 60 s: last poll ${JSON.stringify(lastPoll)}, execution ${JSON.stringify((await a('GET', `/api/workflow/${id}`)).body)}`,
      );
    expect(polled).toMatchObject({ inputData: {}, externalInputPayloadStoragePath: expect.stringMatching(`^payloads/executions/${id}/task-`) });

    const write = await a('GET', '/api/tasks/externalstoragelocation?operation=WRITE&payloadType=TASK_OUTPUT&path=');
    const output = { result: 'dist-output-marker' + 'y'.repeat(8000) };
    expect((await fetch(write.body.uri, { method: 'PUT', body: JSON.stringify(output) })).status).toBe(200);
    const updated = await a('POST', '/api/tasks', {
      workflowInstanceId: id,
      taskId: polled.taskId,
      status: 'COMPLETED',
      outputData: {},
      externalOutputPayloadStoragePath: write.body.path,
    });
    expect(updated.status).toBe(200);
    let done: any;
    for (const until = Date.now() + 60_000; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
      done = (await b('GET', `/api/workflow/${id}`)).body;
      if (done.status === 'COMPLETED') break;
    }
    expect(done).toMatchObject({
      status: 'COMPLETED',
      output: {},
      externalOutputPayloadStoragePath: expect.stringMatching(`^payloads/executions/${id}/workflow-output-`),
    });
    expect(done.tasks[0]).toMatchObject({ outputData: {}, externalOutputPayloadStoragePath: write.body.path });
    const readOutput = await a(
      'GET',
      `/api/workflow/externalstoragelocation?operation=READ&payloadType=WORKFLOW_OUTPUT&path=${encodeURIComponent(done.externalOutputPayloadStoragePath)}`,
    );
    expect(await (await fetch(readOutput.body.uri)).json()).toEqual({ result: output.result, echoed: 'dist-input-marker' });

    const cassandra = new Client({
      contactPoints: (process.env.CASSANDRA_CONTACT_POINTS ?? '').split(','),
      localDataCenter: process.env.CASSANDRA_LOCAL_DC ?? 'datacenter1',
    });
    try {
      const rows = (
        await cassandra.execute(`SELECT workflow_json, task_json FROM ${cluster.keyspace}.executions WHERE workflow_id = ?`, [id], { prepare: true })
      ).rows;
      const text = JSON.stringify(rows);
      expect(text).toContain(id);
      for (const marker of ['dist-input-marker', 'dist-output-marker', 'x'.repeat(100), 'y'.repeat(100)]) expect(text).not.toContain(marker);
    } finally {
      await cassandra.shutdown();
    }
  });
});
