import Database from 'better-sqlite3';
import path from 'node:path';
import { apiClient, type Json } from '../support/api-client';
import { eventually, startBaton, type TestBaton } from '../support/baton';

// Conductor's external payload storage in the embedded profile (objects in BATON_DATA_DIR/objects, links
// served by Baton): locations, payloads named by path on a start and a task update, and payloads above the
// thresholds kept outside the execution rows, answered as Conductor answers them.

const THRESHOLD = 2048;
const WORKFLOW_MAX = 64 * 1024;
const clientError = (status: number) => ({ status, message: expect.any(String), retryable: false, instance: expect.any(String) });
const blob = (marker: string, bytes: number) => ({ marker, blob: marker + 'x'.repeat(bytes) });

describe('external payload storage (embedded profile)', () => {
  let b: TestBaton;
  const api = apiClient(() => b.url);
  beforeAll(async () => {
    b = await startBaton({
      BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: String(THRESHOLD),
      BATON_TASK_PAYLOAD_THRESHOLD_BYTES: String(THRESHOLD),
      BATON_WORKFLOW_PAYLOAD_MAX_BYTES: String(WORKFLOW_MAX),
    });
  });
  afterAll(async () => {
    await b?.stop();
  });

  const location = async (resource: 'workflow' | 'tasks', operation: string, payloadType: string, p = '') =>
    api.call('GET', `/api/${resource}/externalstoragelocation?path=${encodeURIComponent(p)}&operation=${operation}&payloadType=${payloadType}`);
  /** What a client library does above its threshold: a WRITE location, a PUT of the JSON to its uri; answers the path. */
  const upload = async (resource: 'workflow' | 'tasks', payloadType: string, payload: unknown): Promise<string> => {
    const loc = await location(resource, 'WRITE', payloadType);
    expect(loc.status).toBe(200);
    const put = await fetch(loc.body.uri, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) });
    expect(put.status).toBe(200);
    return loc.body.path;
  };
  /** What a client library does with a path it finds: a READ location, a GET of its uri. */
  const download = async (resource: 'workflow' | 'tasks', payloadType: string, p: string): Promise<any> => {
    const loc = await location(resource, 'READ', payloadType, p);
    expect(loc.body).toEqual({ uri: expect.any(String), path: p });
    const got = await fetch(loc.body.uri);
    expect(got.status).toBe(200);
    return got.json();
  };
  /** The text of every execution row and task row of the SQLite store. */
  const rowsText = (): string => {
    const db = new Database(path.join(b.dataDir, 'baton.db'), { readonly: true });
    try {
      const rows = [...db.prepare('SELECT data FROM workflows').all(), ...db.prepare('SELECT data FROM tasks').all()] as Array<{ data: string }>;
      return rows.map((r) => r.data).join('\n');
    } finally {
      db.close();
    }
  };
  const rowCount = (name: string): number => {
    const db = new Database(path.join(b.dataDir, 'baton.db'), { readonly: true });
    try {
      return (db.prepare('SELECT count(*) AS n FROM workflows WHERE name = ?').get(name) as { n: number }).n;
    } finally {
      db.close();
    }
  };
  const oneTaskFlow = async (): Promise<{ name: string; type: string }> => {
    const name = api.uniq('ext');
    const type = `${name}_work`;
    await api.registerTaskDefs([{ name: type, retryCount: 0, responseTimeoutSeconds: 60, timeoutSeconds: 0 }]);
    await api.register({
      name,
      tasks: [{ name: type, taskReferenceName: 't', type: 'SIMPLE', inputParameters: { marker: '${workflow.input.marker}', blob: '${workflow.input.blob}' } }],
      outputParameters: { result: '${t.output.result}', echoed: '${workflow.input.marker}' },
    });
    return { name, type };
  };

  test('WRITE hands out a new path under payloads/ and a link to PUT to; READ a link to GET it back', async () => {
    const written = await upload('workflow', 'WORKFLOW_INPUT', { hello: 'world' });
    expect(written).toMatch(/^payloads\/workflow\/input\/[0-9a-f-]{36}\.json$/);
    expect(await download('workflow', 'WORKFLOW_INPUT', written)).toEqual({ hello: 'world' });
    // A path given with WRITE is not taken: a client never chooses what it overwrites.
    const other = await location('tasks', 'WRITE', 'TASK_OUTPUT', written);
    expect(other.body.path).toMatch(/^payloads\/task\/output\//);
    expect(other.body.path).not.toBe(written);
  });

  test('bad location requests are 400s with Conductor-style bodies', async () => {
    for (const [resource, query] of [
      ['workflow', 'operation=DELETE&payloadType=WORKFLOW_INPUT&path=x'],
      ['workflow', 'operation=READ&payloadType=WHATEVER&path=x'],
      ['tasks', 'operation=READ&payloadType=TASK_INPUT'],
      ['tasks', 'operation=READ&payloadType=TASK_INPUT&path=archive%2Fx.json'],
      ['tasks', 'operation=READ&payloadType=TASK_INPUT&path=payloads%2F..%2Fobjects.key'],
    ] as const) {
      const r = await api.call('GET', `/api/${resource}/externalstoragelocation?${query}`);
      expect([query, r.status]).toEqual([query, 400]);
      expect(r.body).toMatchObject(clientError(400));
    }
  });

  test('a start naming externalInputPayloadStoragePath runs on that input; the row keeps the path, GET answers {} beside it', async () => {
    const { name, type } = await oneTaskFlow();
    const input = blob('wf-input-marker', 3 * THRESHOLD);
    const inputPath = await upload('workflow', 'WORKFLOW_INPUT', input);
    const id = await api.start(name, undefined as unknown as Json, { input: null, externalInputPayloadStoragePath: inputPath });
    const started = await api.workflow(id);
    expect(started).toMatchObject({ input: {}, externalInputPayloadStoragePath: inputPath, status: 'RUNNING' });

    // The task's input (resolved from the workflow's) is over the threshold too: handed out as {} and a path.
    const polled = await api.pollOne(type);
    expect(polled.inputData).toEqual({});
    expect(polled.externalInputPayloadStoragePath).toMatch(new RegExp(`^payloads/executions/${id}/task-${polled.taskId}-input-[0-9a-f]{32}\\.json$`));
    expect(await download('tasks', 'TASK_INPUT', polled.externalInputPayloadStoragePath)).toEqual(input);

    // The worker's output goes the same way: uploaded, then named on the update.
    const output = { result: blob('task-output-marker', 3 * THRESHOLD) };
    const outputPath = await upload('tasks', 'TASK_OUTPUT', output);
    const update = await api.call('POST', '/api/tasks', {
      workflowInstanceId: id,
      taskId: polled.taskId,
      status: 'COMPLETED',
      outputData: {},
      externalOutputPayloadStoragePath: outputPath,
    });
    expect(update.status).toBe(200);
    const done = await api.waitForStatus(id, 'COMPLETED');
    expect(done.tasks[0]).toMatchObject({ outputData: {}, externalOutputPayloadStoragePath: outputPath, inputData: {} });
    // The workflow's output, resolved from the task's, is over the threshold: Baton stored it.
    expect(done.output).toEqual({});
    expect(done.externalOutputPayloadStoragePath).toMatch(new RegExp(`^payloads/executions/${id}/workflow-output-[0-9a-f]{32}\\.json$`));
    expect(await download('workflow', 'WORKFLOW_OUTPUT', done.externalOutputPayloadStoragePath)).toEqual({ result: output.result, echoed: input.marker });

    // Search answers the summaries as Conductor does: empty payloads, their paths.
    const summary = await eventually(async () => {
      const found = await api.call('GET', `/api/workflow/search?query=${encodeURIComponent(`workflowType='${name}' AND status='COMPLETED'`)}`);
      return found.body.results[0];
    });
    expect(summary).toMatchObject({
      input: '{}',
      output: '{}',
      externalInputPayloadStoragePath: inputPath,
      externalOutputPayloadStoragePath: done.externalOutputPayloadStoragePath,
    });

    // None of the payloads is in an execution row.
    const rows = rowsText();
    expect(rows).toContain(inputPath);
    for (const marker of ['wf-input-marker', 'task-output-marker']) expect(rows).not.toContain(marker);
  });

  test('payloads under the thresholds stay inline, without paths', async () => {
    const { name, type } = await oneTaskFlow();
    const id = await api.start(name, { marker: 'small', blob: 'tiny' });
    const polled = await api.pollOne(type);
    expect(polled.inputData).toEqual({ marker: 'small', blob: 'tiny' });
    expect(polled.externalInputPayloadStoragePath).toBeUndefined();
    await api.complete(polled, { result: 'ok' });
    const done = await api.waitForStatus(id, 'COMPLETED');
    expect(done).toMatchObject({ input: { marker: 'small', blob: 'tiny' }, output: { result: 'ok', echoed: 'small' } });
    expect(done.externalInputPayloadStoragePath).toBeUndefined();
    expect(done.externalOutputPayloadStoragePath).toBeUndefined();
    expect(rowsText()).toContain('small');
  });

  test('a start naming a missing, non-JSON, foreign or too large payload is refused (400, 413) and starts nothing', async () => {
    const { name } = await oneTaskFlow();
    const notJson = await location('workflow', 'WRITE', 'WORKFLOW_INPUT');
    expect((await fetch(notJson.body.uri, { method: 'PUT', body: 'not json at all' })).status).toBe(200);
    const array = await upload('workflow', 'WORKFLOW_INPUT', [1, 2, 3]);
    const huge = await upload('workflow', 'WORKFLOW_INPUT', blob('huge', WORKFLOW_MAX + 1));
    for (const [p, status] of [
      ['payloads/workflow/input/00000000-0000-0000-0000-000000000000.json', 400],
      [notJson.body.path, 400],
      [array, 400],
      ['objects.key', 400],
      ['payloads/../objects.key', 400],
      [huge, 413],
    ] as const) {
      const r = await api.call('POST', '/api/workflow', { name, externalInputPayloadStoragePath: p });
      expect([p, r.status]).toEqual([p, status]);
      expect(r.body).toMatchObject(clientError(status));
    }
    expect(rowCount(name)).toBe(0);
  });

  test('an update naming a missing payload is a 400 and leaves the task as it was', async () => {
    const { name, type } = await oneTaskFlow();
    const id = await api.start(name, { marker: 'm', blob: 'b' });
    const polled = await api.pollOne(type);
    const r = await api.call('POST', '/api/tasks', {
      workflowInstanceId: id,
      taskId: polled.taskId,
      status: 'COMPLETED',
      externalOutputPayloadStoragePath: 'payloads/task/output/00000000-0000-0000-0000-000000000000.json',
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ ...clientError(400), message: expect.stringContaining('Unable to download payload') });
    expect((await api.workflow(id)).tasks[0]).toMatchObject({ status: 'IN_PROGRESS', outputData: {} });
    await api.complete(polled, { result: 'after' });
    expect((await api.waitForStatus(id, 'COMPLETED')).output).toEqual({ result: 'after', echoed: 'm' });
  });

  test("removing an execution removes its payloads: Baton's and the uploads it names", async () => {
    const { name, type } = await oneTaskFlow();
    const inputPath = await upload('workflow', 'WORKFLOW_INPUT', blob('removed-input', 3 * THRESHOLD));
    const id = await api.start(name, undefined as unknown as Json, { externalInputPayloadStoragePath: inputPath });
    const polled = await api.pollOne(type);
    const taskInput = polled.externalInputPayloadStoragePath as string;
    expect((await location('tasks', 'READ', 'TASK_INPUT', taskInput)).status).toBe(200);
    expect((await api.call('DELETE', `/api/workflow/${id}?reason=done`)).status).toBe(200);
    expect((await api.call('DELETE', `/api/workflow/${id}/remove`)).status).toBe(200);
    for (const p of [inputPath, taskInput]) {
      const loc = await location('tasks', 'READ', 'TASK_INPUT', p);
      expect([p, (await fetch(loc.body.uri)).status]).toEqual([p, 404]);
    }
  });

  test('after a restart the execution loads its payloads back from the object store and goes on with them', async () => {
    const { name, type } = await oneTaskFlow();
    const input = blob('reload-marker', 3 * THRESHOLD);
    const id = await api.start(name, input);
    expect((await api.workflow(id)).externalInputPayloadStoragePath).toMatch(/^payloads\/executions\//);
    const env = {
      BATON_DATA_DIR: b.dataDir,
      BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: String(THRESHOLD),
      BATON_TASK_PAYLOAD_THRESHOLD_BYTES: String(THRESHOLD),
      BATON_WORKFLOW_PAYLOAD_MAX_BYTES: String(WORKFLOW_MAX),
    };
    await b.stop();
    b = await startBaton(env);
    const polled = await api.pollOne(type);
    expect(await download('tasks', 'TASK_INPUT', polled.externalInputPayloadStoragePath)).toEqual(input);
    await api.complete(polled, { result: 'r' });
    const done = await api.waitForStatus(id, 'COMPLETED');
    expect(done.output).toEqual({ result: 'r', echoed: 'reload-marker' });
    expect(done.input).toEqual({});
  });
});
