import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// The event, execute and schema routes read their bodies through the route table's declared schemas:
// valid bodies behave as before, invalid ones are Conductor-style 400s that change nothing.

const baton = useBaton();
const api = apiClient(baton.url);

const pathsOf = (body: { validationErrors?: Array<{ path: string }> }) => (body.validationErrors ?? []).map((e) => e.path);

describe('event handler bodies', () => {
  const handler = (name: string, action: Record<string, unknown>) => ({ name, event: `conductor:${name}:e`, active: true, actions: [action] });

  test("POST takes one handler or a list; an action's missing field is named in the one form and indexed in the list form", async () => {
    const one = api.uniq('one');
    const many = [api.uniq('many'), api.uniq('many')];
    const ok = { action: 'start_workflow', start_workflow: { name: 'x' } };
    expect((await api.call('POST', '/api/event', handler(one, ok))).status).toBe(200);
    expect(
      (
        await api.call(
          'POST',
          '/api/event',
          many.map((n) => handler(n, ok)),
        )
      ).status,
    ).toBe(200);

    const bad = api.uniq('bad');
    const single = await api.call('POST', '/api/event', handler(bad, { action: 'start_workflow', start_workflow: {} }));
    expect(single).toMatchObject({ status: 400, body: { status: 400, code: 'INVALID_INPUT' } });
    expect(pathsOf(single.body)).toEqual(['eventHandler.0.actions.0.start_workflow.name']);
    const list = await api.call('POST', '/api/event', [handler(api.uniq('fine'), ok), handler(bad, { action: 'terminate_workflow', terminate_workflow: {} })]);
    expect(list.status).toBe(400);
    expect(pathsOf(list.body)).toEqual(['eventHandler.1.actions.0.terminate_workflow.workflowId']);

    const names = ((await api.call('GET', '/api/event')).body as Array<{ name: string }>).map((h) => h.name);
    expect(names).toEqual(expect.arrayContaining([one, ...many]));
    expect(names).not.toContain(bad);
  });

  test('PUT refuses a handler whose action lacks what it needs, and keeps the stored one', async () => {
    const name = api.uniq('put');
    const ok = { action: 'start_workflow', start_workflow: { name: 'x' } };
    await api.call('POST', '/api/event', handler(name, ok));
    const r = await api.call('PUT', '/api/event', handler(name, { action: 'complete_task', complete_task: {} }));
    expect(r).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(pathsOf(r.body)).toEqual(['eventHandler.actions.0.complete_task']);
    expect((await api.call('GET', `/api/event/handler/${name}`)).body).toMatchObject({ actions: [ok] });
    expect((await api.call('PUT', '/api/event', 'text')).status).toBe(400);
  });

  test('handleIncomingEvent refuses a body without its event name', async () => {
    for (const body of [{ payload: 1 }, { event: '' }, [], 'text']) {
      const r = await api.call('POST', '/api/event/handleIncomingEvent', body);
      expect(r).toMatchObject({ status: 400, body: { status: 400 } });
    }
  });
});

describe('execute bodies', () => {
  test('a body that is not a StartWorkflowRequest object, or an overlong name in the path, is a 400 that starts nothing', async () => {
    const name = api.uniq('exec_body');
    await api.register({ name, tasks: [{ name: 'noop', taskReferenceName: 'noop', type: 'NOOP' }] });
    for (const body of [[], 'text', { input: 'not an object' }, { priority: 'high' }]) {
      const r = await api.call('POST', `/api/workflow/execute/${name}/1`, body);
      expect(r).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    }
    const long = await api.call('POST', `/api/workflow/execute/${'n'.repeat(300)}/1`, {});
    expect(long).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(pathsOf(long.body)).toEqual(['startWorkflowRequest.name']);
    expect((await api.call('GET', `/api/workflow/search?query=workflowType%3D${name}`)).body).toMatchObject({ totalHits: 0 });
    // A missing body starts with no input, as before.
    expect((await api.call('POST', `/api/workflow/execute/${name}/1`)).body).toMatchObject({ status: 'COMPLETED' });
  });
});

describe('schema bodies', () => {
  test('one schema or a list; errors are indexed as in a list', async () => {
    const name = api.uniq('schema_body');
    const one = await api.call('POST', '/api/schema', { name, type: 'JSON' });
    expect(one).toMatchObject({ status: 400, body: { code: 'INVALID_INPUT' } });
    expect(pathsOf(one.body)).toEqual(['schemas.0.data']);
    expect((await api.call('POST', '/api/schema', { name, type: 'JSON', data: { type: 'object' } })).status).toBe(200);
    expect((await api.call('GET', `/api/schema/${name}/1`)).body).toMatchObject({ name, version: 1, data: { type: 'object' } });
  });
});
