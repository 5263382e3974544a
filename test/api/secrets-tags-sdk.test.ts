import { EventClient, SecretClient, simpleTask, workflow } from '@io-orkes/conductor-javascript';
import { apiClient } from '../support/api-client';
import { eventually } from '../support/baton';
import { startSdkHarness, uniqueName, waitForWorkflow, type SdkHarness } from '../support/sdk';

// Secrets, tags and event handler statistics: over the API, and through the official JS SDK's own
// clients (SecretClient, MetadataClient tag calls, EventClient).

let h: SdkHarness;
let secrets: SecretClient;
let events: EventClient;
const api = apiClient(() => h.baton.url);

beforeAll(async () => {
  h = await startSdkHarness();
  secrets = new SecretClient(h.client);
  events = new EventClient(h.client);
});
afterAll(async () => {
  await h?.stop();
});

describe('tags over the API', () => {
  test('workflow definitions: set, add, remove, read; every version carries them; registration sets them', async () => {
    const name = uniqueName('tagged_wf');
    await api.register({ name, version: 1, tasks: [{ name: 'a', taskReferenceName: 'a', type: 'SIMPLE' }], tags: [{ key: 'team', value: 'ops' }] });
    expect((await api.call('GET', `/api/metadata/workflow/${name}/tags`)).body).toEqual([{ key: 'team', value: 'ops' }]);
    await api.register({ name, version: 2, tasks: [{ name: 'a', taskReferenceName: 'a', type: 'SIMPLE' }] });
    expect(
      (
        await api.call('PUT', `/api/metadata/workflow/${name}/tags`, [
          { key: 'team', value: 'core' },
          { key: 'tier', value: '1' },
        ])
      ).status,
    ).toBe(200);
    expect((await api.call('POST', `/api/metadata/workflow/${name}/tags`, { key: 'pii', value: 'no' })).status).toBe(200);
    expect((await api.call('DELETE', `/api/metadata/workflow/${name}/tags`, { key: 'tier', value: '1' })).status).toBe(200);
    const want = [
      { key: 'team', value: 'core' },
      { key: 'pii', value: 'no' },
    ];
    expect((await api.call('GET', `/api/metadata/workflow/${name}/tags`)).body).toEqual(want);
    for (const v of [1, 2]) expect((await api.call('GET', `/api/metadata/workflow/${name}?version=${v}`)).body.tags).toEqual(want);
    expect((await api.call('GET', '/api/metadata/tags')).body).toEqual(expect.arrayContaining(want));
    // Deleting the route's path segment does not reach the version route.
    expect((await api.call('GET', `/api/metadata/workflow/${name}/versions`)).body).toHaveLength(2);
  });

  test('task definitions and event handlers', async () => {
    const task = uniqueName('tagged_task');
    await api.registerTaskDefs([{ name: task, tags: [{ key: 'k', value: 'v' }] }]);
    expect((await api.call('GET', `/api/metadata/task/${task}/tags`)).body).toEqual([{ key: 'k', value: 'v' }]);
    expect((await api.call('POST', `/api/metadata/task/${task}/tags`, { key: 'k2', value: 'v2' })).status).toBe(200);
    expect((await api.call('DELETE', `/api/metadata/task/${task}/tags`, { key: 'k', value: 'v' })).status).toBe(200);
    expect((await api.call('GET', `/api/metadata/taskdefs/${task}`)).body.tags).toEqual([{ key: 'k2', value: 'v2' }]);

    const handler = uniqueName('tagged_handler');
    await api.call('POST', '/api/event', {
      name: handler,
      event: `conductor:${handler}:x`,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name: 'x' } }],
      tags: [{ key: 'a', value: '1' }],
    });
    expect((await api.call('PUT', `/api/event/${handler}/tags`, [{ key: 'b', value: '2' }])).status).toBe(200);
    expect((await api.call('DELETE', `/api/event/${handler}/tags`, [{ key: 'a', value: '1' }])).status).toBe(200);
    expect((await api.call('GET', `/api/event/${handler}/tags`)).body).toEqual([{ key: 'b', value: '2' }]);
    expect((await api.call('GET', '/api/metadata/tags')).body).toEqual(
      expect.arrayContaining([
        { key: 'k2', value: 'v2' },
        { key: 'b', value: '2' },
      ]),
    );
  });

  test('unknown names are 404, malformed tags 400, changing nothing', async () => {
    const expectError = (r: { status: number; body: any }, status: number) => expect([r.status, typeof r.body?.message]).toEqual([status, 'string']);
    expectError(await api.call('GET', `/api/metadata/workflow/${uniqueName('none')}/tags`), 404);
    expectError(await api.call('PUT', `/api/metadata/workflow/${uniqueName('none')}/tags`, []), 404);
    expectError(await api.call('POST', `/api/metadata/task/${uniqueName('none')}/tags`, { key: 'a', value: 'b' }), 404);
    expectError(await api.call('GET', `/api/event/${uniqueName('none')}/tags`), 404);
    const task = uniqueName('tag_bad');
    await api.registerTaskDefs([{ name: task }]);
    for (const body of [{ key: '' }, 'x', [{ key: 1 }], { value: 'no key' }]) expectError(await api.call('POST', `/api/metadata/task/${task}/tags`, body), 400);
    expectError(await api.call('POST', '/api/metadata/taskdefs', [{ name: uniqueName('t'), tags: 'not a list' }]), 400);
    expect((await api.call('GET', `/api/metadata/task/${task}/tags`)).body).toEqual([]);
  });
});

describe('through the JS SDK', () => {
  test('SecretClient: put, get, exists, list, tags, delete', async () => {
    const key = uniqueName('sdk_secret');
    await secrets.putSecret(key, 'sdk-value');
    expect(await secrets.getSecret(key)).toBe('sdk-value');
    expect(await secrets.secretExists(key)).toBe(true);
    expect(await secrets.listAllSecretNames()).toContain(key);
    expect(await secrets.listSecretsThatUserCanGrantAccessTo()).toContain(key);
    await secrets.setSecretTags([{ key: 'owner', value: 'sdk' }], key);
    expect(await secrets.getSecretTags(key)).toEqual([{ key: 'owner', value: 'sdk' }]);
    await secrets.deleteSecretTags([{ key: 'owner', value: 'sdk' }], key);
    expect(await secrets.getSecretTags(key)).toEqual([]);
    await secrets.deleteSecret(key);
    await expect(secrets.getSecret(key)).rejects.toThrow();
    expect(await secrets.listAllSecretNames()).not.toContain(key);
  });

  test('a secret put through the SDK reaches a worker through the SDK, and never the stored execution', async () => {
    const key = uniqueName('sdk_worker_secret');
    await secrets.putSecret(key, 'value-for-worker-77');
    const name = uniqueName('sdk_secret_wf');
    const taskName = uniqueName('sdk_secret_task');
    await h.metadata.registerWorkflowDef({ ...workflow(name, [simpleTask('t', taskName, { auth: `\${workflow.secrets.${key}}` })]) }, true);
    const seen: unknown[] = [];
    h.startWorkers([{ taskDefName: taskName, execute: async (t) => (seen.push(t.inputData?.auth), { status: 'COMPLETED', outputData: { ok: true } }) }]);
    const id = await h.executor.startWorkflow({ name, version: 1, input: {} });
    const wf = await waitForWorkflow(h.executor, id, 'COMPLETED');
    expect(seen).toEqual(['value-for-worker-77']);
    expect(JSON.stringify(wf)).not.toContain('value-for-worker-77');
    expect(wf.tasks?.[0]?.inputData).toEqual({ auth: `\${workflow.secrets.${key}}` });
  });

  test('MetadataClient tag calls on workflow and task definitions', async () => {
    const name = uniqueName('sdk_tag_wf');
    const task = uniqueName('sdk_tag_task');
    await h.metadata.registerTask({ name: task, retryCount: 0, timeoutSeconds: 0, responseTimeoutSeconds: 60 } as never);
    await h.metadata.registerWorkflowDef(workflow(name, [simpleTask('t', task, {})]), true);
    await h.metadata.setWorkflowTags([{ key: 'a', value: '1' }], name);
    await h.metadata.addWorkflowTag({ key: 'b', value: '2' }, name);
    await h.metadata.deleteWorkflowTag({ key: 'a', value: '1' }, name);
    expect(await h.metadata.getWorkflowTags(name)).toEqual([{ key: 'b', value: '2' }]);
    await h.metadata.setTaskTags([{ key: 'c', value: '3' }], task);
    await h.metadata.addTaskTag({ key: 'd', value: '4' }, task);
    await h.metadata.deleteTaskTag({ key: 'c', value: '3' }, task);
    expect(await h.metadata.getTaskTags(task)).toEqual([{ key: 'd', value: '4' }]);
  });

  test('EventClient: handler tags, executions and statistics', async () => {
    const handler = uniqueName('sdk_handler');
    const target = uniqueName('sdk_started');
    await h.metadata.registerWorkflowDef(
      workflow(target, [{ name: 'noop', taskReferenceName: 'noop', type: 'SET_VARIABLE', inputParameters: { x: 1 } } as never]),
      true,
    );
    const publisher = uniqueName('sdk_publisher');
    await h.metadata.registerWorkflowDef(
      workflow(publisher, [{ name: 'emit', taskReferenceName: 'emit', type: 'EVENT', sink: 'conductor', inputParameters: {} } as never]),
      true,
    );
    const event = `conductor:${publisher}:emit`;
    await events.addEventHandler({
      name: handler,
      event,
      active: true,
      actions: [{ action: 'start_workflow', start_workflow: { name: target, version: 1 } }],
    } as never);
    await events.putTagForEventHandler(handler, [{ key: 'team', value: 'events' }]);
    expect(await events.getTagsForEventHandler(handler)).toEqual([{ key: 'team', value: 'events' }]);

    await waitForWorkflow(h.executor, await h.executor.startWorkflow({ name: publisher, version: 1, input: {} }), 'COMPLETED');
    const executions = await eventually(async () => {
      const list = await events.getEventExecutions(handler);
      return list.length > 0 ? list : undefined;
    });
    expect(executions[0]).toMatchObject({ name: handler, event, status: 'COMPLETED', action: 'start_workflow' });
    const stats = await events.getAllActiveEventHandlers();
    expect(stats.results).toContainEqual({ name: handler, event, active: true, numberOfActions: 1, numberOfMessages: 1 });
    expect((await events.getEventHandlersWithStats()).results).toContainEqual(expect.objectContaining({ name: handler, numberOfMessages: 1 }));
    const messages = await events.getEventMessages(event);
    expect(messages).toHaveLength(1);
    expect(messages[0]!.eventExecutions?.[0]).toMatchObject({ name: handler });
    await events.deleteTagsForEventHandler(handler, [{ key: 'team', value: 'events' }]);
    expect(await events.getTagsForEventHandler(handler)).toEqual([]);
  });
});
