import { SchemaClient } from '@io-orkes/conductor-javascript';
import { apiClient } from '../support/api-client';
import { startSdkHarness, uniqueName, type SdkHarness } from '../support/sdk';

// JSON schemas: the /api/schema API through the JS SDK's SchemaClient and over REST, and their
// enforcement: a start whose input breaks the workflow's input schema is a 400 that starts nothing; a
// worker's COMPLETED result whose output breaks its task definition's output schema fails the task;
// a SUB_WORKFLOW whose input breaks the child's input schema fails.

let h: SdkHarness;
let schemas: SchemaClient;
const api = apiClient(() => h.baton.url);

beforeAll(async () => {
  h = await startSdkHarness();
  schemas = new SchemaClient(h.client);
});
afterAll(async () => {
  await h?.stop();
});

const orderSchema = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: { orderId: { type: 'integer' }, email: { type: 'string', format: 'email' } },
  required: ['orderId'],
};

describe('SchemaClient', () => {
  test('registers, reads by name and version, lists, versions with newVersion, and deletes', async () => {
    const name = uniqueName('sdk_schema');
    await schemas.registerSchema([{ name, version: 1, type: 'JSON', data: orderSchema }]);
    const v1 = await schemas.getSchema(name, 1);
    expect(v1).toMatchObject({ name, version: 1, type: 'JSON', data: orderSchema });
    expect(v1.createTime).toBeGreaterThan(0);

    await schemas.registerSchema([{ name, version: 1, type: 'JSON', data: { type: 'object' } }], true);
    expect(await schemas.getSchemaByName(name)).toMatchObject({ version: 2, data: { type: 'object' } });
    expect((await schemas.getAllSchemas()).filter((s) => s.name === name).map((s) => s.version)).toEqual([1, 2]);

    await schemas.deleteSchema(name, 2);
    expect((await schemas.getSchemaByName(name)).version).toBe(1);
    await schemas.deleteSchemaByName(name);
    await expect(schemas.getSchema(name, 1)).rejects.toThrow();
  });
});

describe('/api/schema over REST', () => {
  test('bad input is a 400 that stores nothing; unknown names and versions are 404s', async () => {
    const name = api.uniq('rest_schema');
    const bad = [
      [{ name, type: 'XML', data: {} }],
      [{ name, type: 'JSON' }],
      [{ name: '', type: 'JSON', data: {} }],
      [{ name, version: 0, type: 'JSON', data: {} }],
      'text',
    ];
    for (const body of bad) {
      const r = await api.call('POST', '/api/schema', body);
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ status: 400 });
    }
    expect((await api.call('GET', `/api/schema/${name}`)).status).toBe(404);
    expect((await api.call('GET', `/api/schema/${name}/1`)).status).toBe(404);
    expect((await api.call('GET', `/api/schema/${name}/zero`)).status).toBe(400);
    expect((await api.call('DELETE', `/api/schema/${name}`)).status).toBe(404);
    expect((await api.call('DELETE', `/api/schema/${name}/3`)).status).toBe(404);
    // AVRO and PROTOBUF schemas are stored as given (never enforced).
    expect((await api.call('POST', '/api/schema', [{ name, type: 'AVRO', data: { type: 'record' } }])).status).toBe(200);
    expect((await api.call('GET', `/api/schema/${name}/1`)).body).toMatchObject({ type: 'AVRO', data: { type: 'record' } });
  });
});

describe('a schema whose data is not a JSON Schema', () => {
  // What the Python SDK's own suite saves: a SchemaDef wrapped as data (`type: "JSON"` is no JSON Schema type).
  const wrapped = { name: 'schema-test', type: 'JSON', data: { type: 'object', properties: { $schema: 'http://json-schema.org/draft-07/schema' } } };

  test('is stored and read back as given, as Orkes stores it', async () => {
    const name = api.uniq('wrapped_schema');
    const saved = await api.call('POST', '/api/schema', [{ name, version: 1, type: 'JSON', data: wrapped, externalRef: 'http://example.com' }]);
    expect(saved.status).toBe(200);
    expect((await api.call('GET', `/api/schema/${name}/1`)).body).toMatchObject({ name, version: 1, type: 'JSON', data: wrapped });
  });

  test("enforced, it refuses a start with a 400 saying the schema is not usable, and fails a task's input check saying so", async () => {
    const schema = api.uniq('unusable');
    await api.call('POST', '/api/schema', [{ name: schema, version: 1, type: 'JSON', data: wrapped }]);
    const name = api.uniq('unusable_wf');
    await api.register({ name, inputSchema: { name: schema, version: 1, type: 'JSON' }, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });
    const refused = await api.call('POST', '/api/workflow', { name, input: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(
      new RegExp(`^Workflow input does not conform to the input schema ${schema}:1: / the schema is not a usable JSON Schema: `),
    );
    expect((await api.call('GET', `/api/workflow/running/${name}`)).body).toEqual([]);

    const taskName = api.uniq('unusable_task');
    await api.registerTaskDefs([{ name: taskName, retryCount: 0, inputSchema: { name: schema, type: 'JSON' } }]);
    const wf = api.uniq('unusable_task_wf');
    await api.register({ name: wf, tasks: [{ name: taskName, taskReferenceName: 't' }] });
    const id = await api.start(wf, {});
    expect((await api.call('GET', `/api/tasks/poll/batch/${taskName}?count=5&timeout=2000`)).body).toEqual([]);
    const failed = await api.waitForStatus(id, 'FAILED');
    expect(failed.tasks[0]).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: expect.stringMatching(
        new RegExp(`^Task input does not conform to the input schema ${schema}:1: / the schema is not a usable JSON Schema: `),
      ),
    });
    // The server goes on serving.
    expect((await api.call('GET', `/api/schema/${schema}/1`)).status).toBe(200);
  });
});

describe('enforcement', () => {
  test("a start whose input breaks the workflow's input schema is a 400 naming each violation, and starts nothing", async () => {
    const schema = api.uniq('wf_input');
    await api.call('POST', '/api/schema', [{ name: schema, version: 1, type: 'JSON', data: orderSchema }]);
    const name = api.uniq('schema_wf');
    await api.register({ name, inputSchema: { name: schema, version: 1, type: 'JSON' }, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });

    const refused = await api.call('POST', '/api/workflow', { name, input: { orderId: 'seven', email: 'nope' } });
    expect(refused.status).toBe(400);
    expect(refused.body.message).toMatch(new RegExp(`^Workflow input does not conform to the input schema ${schema}:1`));
    expect(refused.body.validationErrors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ path: 'input/orderId', message: 'must be integer' }),
        expect.objectContaining({ path: 'input/email' }),
      ]),
    );
    expect((await api.call('POST', `/api/workflow/${name}`, {})).status).toBe(400);
    expect((await api.call('POST', `/api/workflow/execute/${name}/1`, { input: {} })).status).toBe(400);
    expect((await api.call('GET', `/api/workflow/running/${name}`)).body).toEqual([]);

    expect((await api.call('POST', '/api/workflow', { name, input: { orderId: 7, email: 'a@example.com' } })).status).toBe(200);
  });

  test("a SUB_WORKFLOW whose input breaks the child's input schema fails with the violations and starts no child", async () => {
    const schema = api.uniq('child_input');
    await api.call('POST', '/api/schema', [{ name: schema, version: 1, type: 'JSON', data: orderSchema }]);
    const child = api.uniq('schema_child');
    await api.register({ name: child, inputSchema: { name: schema, version: 1 }, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });
    const parent = api.uniq('schema_parent');
    await api.register({
      name: parent,
      tasks: [
        {
          name: 'sub',
          taskReferenceName: 'sub',
          type: 'SUB_WORKFLOW',
          subWorkflowParam: { name: child, version: 1 },
          inputParameters: { orderId: '${workflow.input.orderId}' },
        },
      ],
    });

    const bad = await api.start(parent, { orderId: 'seven' });
    const failed = await api.waitForStatus(bad, 'FAILED');
    expect(failed.tasks[0]).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: expect.stringMatching(new RegExp(`^Workflow input does not conform to the input schema ${schema}:1: .*orderId must be integer`)),
    });
    const childId = failed.tasks[0]!.outputData?.subWorkflowId as string;
    expect((await api.call('GET', `/api/workflow/${childId}`)).status).toBe(404);

    const good = await api.start(parent, { orderId: 7 });
    const running = await api.waitForTask(good, 'sub', 'IN_PROGRESS');
    expect((await api.call('GET', `/api/workflow/${running.subWorkflowId as string}`)).body).toMatchObject({ status: 'RUNNING', input: { orderId: 7 } });
  });

  test('enforceSchema false leaves the input unchecked; a schema that does not exist refuses the start', async () => {
    const name = api.uniq('schema_off');
    await api.register({ name, inputSchema: { name: api.uniq('absent') }, enforceSchema: false, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });
    expect((await api.call('POST', '/api/workflow', { name, input: { anything: true } })).status).toBe(200);
    const missing = api.uniq('schema_missing');
    await api.register({ name: missing, inputSchema: { name: api.uniq('absent') }, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });
    const r = await api.call('POST', '/api/workflow', { name: missing, input: {} });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/does not exist/);
  });

  test("a worker's COMPLETED result whose output breaks the task's output schema fails the task with the violations", async () => {
    const schema = api.uniq('task_output');
    await api.call('POST', '/api/schema', [
      { name: schema, type: 'JSON', data: { type: 'object', required: ['total'], properties: { total: { type: 'number' } } } },
    ]);
    const taskName = api.uniq('schema_task');
    await api.registerTaskDefs([{ name: taskName, retryCount: 0, outputSchema: { name: schema, type: 'JSON' } }]);
    const name = api.uniq('schema_task_wf');
    await api.register({ name, tasks: [{ name: taskName, taskReferenceName: 't' }] });

    const bad = await api.start(name);
    await api.complete(await api.pollOne(taskName), { total: 'lots' });
    const failed = await api.waitForStatus(bad, 'FAILED');
    expect(failed.tasks[0]).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `Task output does not conform to the output schema ${schema}:1: /total must be number`,
    });

    const good = await api.start(name);
    // update-v2 goes through the same check.
    const polled = await api.pollOne(taskName);
    expect(
      (await api.call('POST', '/api/tasks/update-v2', { workflowInstanceId: good, taskId: polled.taskId, status: 'COMPLETED', outputData: { total: 3 } }))
        .status,
    ).toBe(204); // no next task waiting
    await api.waitForStatus(good, 'COMPLETED');
  });

  test("a task whose input breaks its task definition's input schema is failed with the violations instead of handed to a worker", async () => {
    const schema = api.uniq('task_input');
    await api.call('POST', '/api/schema', [
      { name: schema, type: 'JSON', data: { type: 'object', required: ['qty'], properties: { qty: { type: 'integer' } } } },
    ]);
    const taskName = api.uniq('schema_in_task');
    await api.registerTaskDefs([{ name: taskName, retryCount: 0, inputSchema: { name: schema, type: 'JSON' } }]);
    const name = api.uniq('schema_in_wf');
    await api.register({ name, tasks: [{ name: taskName, taskReferenceName: 't', inputParameters: { qty: '${workflow.input.qty}' } }] });

    const bad = await api.start(name, { qty: 'two' });
    // The poll that leases it fails it: the worker gets nothing.
    expect((await api.call('GET', `/api/tasks/poll/batch/${taskName}?count=5&timeout=2000`)).body).toEqual([]);
    const failed = await api.waitForStatus(bad, 'FAILED');
    expect(failed.tasks[0]).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `Task input does not conform to the input schema ${schema}:1: /qty must be integer`,
    });

    const good = await api.start(name, { qty: 2 });
    const polled = await api.pollOne(taskName);
    expect(polled).toMatchObject({ workflowInstanceId: good, inputData: { qty: 2 } });
  });
});
