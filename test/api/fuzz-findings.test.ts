import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// What `npm run fuzz` (schemathesis against /api-docs) found, each kept here so `npm test` covers it:
// a refused task update still stored its log lines; a JSON null start input was a 500; a served path
// asked with an unserved method was a 404 or a handler's 400 instead of 405; the document described
// request bodies as responses (unknown properties refused, defaulted fields required), left out 204
// answers and named one path template two ways; a JSON null rerun request reran the execution; the
// document left out a bound a handler enforced (an application's tags: at most 100).

const baton = useBaton();
const api = apiClient(baton.url);

describe('a refused task update stores no log lines', () => {
  // application/json goes through the hot path; application/vnd.baton+json through express: both answer through worker-calls.
  test.each([
    ['POST /api/tasks, hot path', '/api/tasks', 'application/json'],
    ['POST /api/tasks, express', '/api/tasks', 'application/vnd.baton+json'],
    ['POST /api/tasks/update-v2, hot path', '/api/tasks/update-v2', 'application/json'],
  ])('%s: unknown workflow, then a payload of the right task', async (_label, path, contentType) => {
    const { workflowId, taskId } = await api.polledTask('fuzz');
    const wrong = { workflowInstanceId: '588438cd-3744-4280-a89f-7de51473b524', taskId, status: 'COMPLETED', logs: [{ log: 'from a refused update' }] };
    const refused = await api.call('POST', path, undefined, { raw: JSON.stringify(wrong), contentType });
    expect(refused.status).toBe(404);
    expect(await api.taskLogLines(taskId)).toEqual([]);

    const right = { workflowInstanceId: workflowId, taskId, status: 'COMPLETED', logs: [{ log: 'from the applied update' }] };
    const applied = await api.call('POST', path, undefined, { raw: JSON.stringify(right), contentType });
    expect([200, 204]).toContain(applied.status);
    expect(await api.taskLogLines(taskId)).toEqual(['from the applied update']);

    // The task has ended: a second result is ignored (200, as in Conductor), and so are its log lines.
    const again = await api.call('POST', path, undefined, { raw: JSON.stringify({ ...right, logs: [{ log: 'after the end' }] }), contentType });
    expect([200, 204]).toContain(again.status);
    expect(await api.taskLogLines(taskId)).toEqual(['from the applied update']);
  });
});

test('POST /api/workflow/{name} with a JSON null body is a 400, not a 500', async () => {
  const name = api.uniq('null_input');
  expect(
    (
      await api.call('POST', '/api/metadata/workflowdef', {
        name,
        version: 1,
        schemaVersion: 2,
        tasks: [{ name: 'wait', taskReferenceName: 'wait', type: 'WAIT' }],
      })
    ).status,
  ).toBe(200);
  const r = await api.call('POST', `/api/workflow/${name}`, undefined, { raw: 'null' });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ status: 400, retryable: false });
  // An empty body still starts it with no input.
  expect((await api.call('POST', `/api/workflow/${name}`)).status).toBe(200);
});

test('POST /api/workflow/{id}/rerun with a JSON null body is a 400 that reruns nothing; no body reruns', async () => {
  const name = api.uniq('null_rerun');
  await api.register({ name, tasks: [{ name: 'stop', taskReferenceName: 'stop', type: 'TERMINATE', inputParameters: { terminationStatus: 'FAILED' } }] });
  const id = await api.start(name);
  await api.waitForStatus(id, 'FAILED');
  const r = await api.call('POST', `/api/workflow/${id}/rerun`, undefined, { raw: 'null' });
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ status: 400, retryable: false });
  expect((await api.workflow(id)).status).toBe('FAILED');
  expect((await api.call('POST', `/api/workflow/${id}/rerun`)).status).toBe(200);
});

describe('methods a path is not served with', () => {
  test('are 405 with an Allow header and a Conductor-style body', async () => {
    const r = await api.call('PATCH', '/api/metadata/taskdefs');
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ status: 405, retryable: false });
    const patch = await fetch(`${baton.url()}/api/workflow/search`, { method: 'PATCH' });
    expect(patch.status).toBe(405);
    // /api/workflow/search is also /api/workflow/{workflowId}: every method of both templates.
    expect(patch.headers.get('allow')).toBe('DELETE, GET, HEAD, POST, OPTIONS');
  });

  test("a path that only looks like a route with a closed parameter is 405, not that route's 400", async () => {
    // POST /api/tasks/{workflowId}/{taskRefName}/{status} takes task statuses only.
    for (const path of ['/api/tasks/queue/all/verbose', '/api/tasks/poll/batch/some_type']) {
      const r = await api.call('POST', path);
      expect(r.status).toBe(405);
    }
    const status = await api.call('POST', '/api/tasks/no-such-workflow/ref/COMPLETED', {});
    expect(status.status).toBe(404);
  });

  test('OPTIONS answers the Allow header; unknown paths stay 404', async () => {
    const r = await fetch(`${baton.url()}/api/metadata/taskdefs/some_name`, { method: 'OPTIONS' });
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toBe('DELETE, GET, HEAD, OPTIONS');
    expect((await api.call('PATCH', '/api/no/such/path')).status).toBe(404);
    expect((await api.call('GET', '/api/no/such/path')).status).toBe(404);
  });
});

describe('the OpenAPI document says what the handlers accept', () => {
  let doc: any;
  beforeAll(async () => {
    doc = (await api.call('GET', '/api-docs')).body;
  });
  const op = (method: string, path: string) => doc.paths[path][method];
  const schemaOf = (o: any): any => {
    const s = o.requestBody.content['application/json'].schema;
    return s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s;
  };

  test('request bodies accept unknown properties and leave defaulted fields optional', async () => {
    const defs = schemaOf(op('put', '/api/metadata/workflow'));
    const item = defs.items.$ref ? doc.components.schemas[defs.items.$ref.split('/').pop()] : defs.items;
    expect(item.additionalProperties).not.toBe(false);
    expect(item.required).toEqual(['name', 'tasks']); // not createTime, updateTime, schemaVersion…: they have defaults
    expect(defs.minItems).toBe(1);
    expect(schemaOf(op('post', '/api/applications')).additionalProperties).not.toBe(false);
    // And the server does accept what the document allows.
    const name = api.uniq('app');
    expect((await api.call('POST', '/api/applications', { name, extra: 42 })).status).toBe(200);
  });

  test('204 answers, optional bodies, closed path parameters and bounded query parameters are documented', () => {
    expect(op('get', '/api/tasks/poll/{taskType}').responses['204']).toBeDefined();
    expect(op('get', '/api/tasks/{taskId}/log').responses['204']).toBeDefined();
    expect(op('post', '/api/tasks/update-v2').responses['204']).toBeDefined();
    expect(op('post', '/api/workflow/{workflowId}').requestBody.required).toBe(false);
    const status = op('post', '/api/tasks/{workflowId}/{taskRefName}/{status}').parameters.find((p: any) => p.name === 'status');
    expect(status.schema.enum).toEqual(['IN_PROGRESS', 'FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'COMPLETED', 'CANCELED']);
    const size = op('get', '/api/workflow/search').parameters.find((p: any) => p.name === 'size');
    expect(size.schema).toEqual({ type: 'integer', minimum: 0, maximum: 5000 });
    const taskType = op('get', '/api/tasks/queue/size').parameters.find((p: any) => p.name === 'taskType');
    expect(taskType.required).toBe(true);
  });

  test('request bodies are documented by the schema their route parses with: its bounds, and each form it takes', async () => {
    const appTags = schemaOf(op('put', '/api/applications/{id}/tags'));
    expect(appTags.maxItems).toBe(100);
    const { body: app } = await api.call('POST', '/api/applications', { name: api.uniq('tags') });
    const tags = (n: number) => Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: 'v' }));
    expect((await api.call('PUT', `/api/applications/${app.id}/tags`, tags(101))).status).toBe(400);
    expect((await api.call('PUT', `/api/applications/${app.id}/tags`, tags(100))).status).toBe(200);
    // One tag or a list, as the handler takes either.
    const forms = schemaOf(op('post', '/api/metadata/workflow/{name}/tags')).anyOf.map((s: any) => s.type);
    expect(forms).toEqual(['array', 'object']);
  });

  test('no two path templates differ only in their parameter names (OpenAPI forbids it)', () => {
    const shapes = Object.keys(doc.paths).map((p) => p.replace(/\{[^}]+\}/g, '{}'));
    expect(shapes.filter((s, i) => shapes.indexOf(s) !== i)).toEqual([]);
  });
});
