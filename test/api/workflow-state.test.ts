import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// Variables, state updates and correlated batches over REST: what they answer, and that bad input is
// a 4xx with Conductor's error body that changes nothing.

const baton = useBaton();
const api = apiClient(baton.url);

const startWaiting = async (): Promise<{ name: string; id: string }> => {
  const name = api.uniq('state');
  await api.register({ name, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }], variables: { a: 1 } });
  return { name, id: await api.start(name, {}, { correlationId: 'corr' }) };
};

test('POST /{workflowId}/variables answers the execution with its variables replaced key by key', async () => {
  const { id } = await startWaiting();
  const r = await api.call('POST', `/api/workflow/${id}/variables`, { b: { deep: true } });
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ workflowId: id, variables: { a: 1, b: { deep: true } } });
  expect(r.body.tasks).toHaveLength(1);
});

test('bad variables input: not an object is a 400, an unknown execution a 404, an ended one a 409; nothing changes', async () => {
  const { id } = await startWaiting();
  for (const body of [[1, 2], 'text', null]) {
    const r = await api.call('POST', `/api/workflow/${id}/variables`, body);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: 400 });
  }
  expect((await api.call('POST', '/api/workflow/no-such-id/variables', { x: 1 })).status).toBe(404);
  await api.call('DELETE', `/api/workflow/${id}?reason=done`);
  expect((await api.call('POST', `/api/workflow/${id}/variables`, { x: 1 })).status).toBe(409);
  expect((await api.workflow(id)).variables).toEqual({ a: 1 });
});

test('POST /{workflowId}/state: a result without a reference is a 400, an unknown reference a 404, after the variables are checked', async () => {
  const { id } = await startWaiting();
  const state = (body: unknown) => api.call('POST', `/api/workflow/${id}/state?requestId=r1&waitForSeconds=1`, body);
  expect((await state({ taskResult: { status: 'COMPLETED' } })).status).toBe(400);
  expect((await state({ taskReferenceName: 'w', taskResult: { status: 'DONE' } })).status).toBe(400);
  expect((await state({ taskReferenceName: 'nope', taskResult: { status: 'COMPLETED' }, variables: { a: 'changed' } })).status).toBe(404);
  expect((await api.workflow(id)).variables).toEqual({ a: 1 });
  expect((await api.call('POST', '/api/workflow/no-such-id/state', { variables: { x: 1 } })).status).toBe(404);
  const done = await state({ taskReferenceName: 'w', taskResult: { status: 'COMPLETED', outputData: { ok: 1 } } });
  expect(done.status).toBe(200);
  expect(done.body).toMatchObject({ workflowId: id, status: 'COMPLETED', requestId: 'r1' });
});

test('POST /correlated/batch: a body without both lists is a 400; booleans read as Spring reads them', async () => {
  const { name, id } = await startWaiting();
  for (const body of [{}, { correlationIds: ['corr'] }, { workflowNames: [name], correlationIds: 'corr' }, []]) {
    expect((await api.call('POST', '/api/workflow/correlated/batch', body)).status).toBe(400);
  }
  const r = await api.call('POST', '/api/workflow/correlated/batch?includeClosed=True&includeTasks=FALSE', { workflowNames: [name], correlationIds: ['corr'] });
  expect(r.status).toBe(200);
  expect(r.body.corr.map((w: { workflowId: string; tasks: unknown[] }) => [w.workflowId, w.tasks.length])).toEqual([[id, 0]]);
  expect((await api.call('POST', '/api/workflow/correlated/batch?includeClosed=maybe', { workflowNames: [name], correlationIds: ['corr'] })).status).toBe(400);
});
