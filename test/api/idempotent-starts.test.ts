import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// Starts with an idempotency key (Orkes' idempotencyKey and idempotencyStrategy): the key is scoped to
// the workflow name and claimed atomically, so retried and racing starts make one execution.

const baton = useBaton();
const api = apiClient(baton.url);

const defineWaiting = async (prefix: string): Promise<string> => {
  const name = api.uniq(prefix);
  await api.register({ name, tasks: [{ name: `${name}_task`, taskReferenceName: 't1', type: 'SIMPLE' }] });
  return name;
};
const startWith = (name: string, key: string, strategy?: string, input: Record<string, unknown> = {}) =>
  api.call('POST', '/api/workflow', { name, input, idempotencyKey: key, ...(strategy ? { idempotencyStrategy: strategy } : {}) });
const running = async (name: string): Promise<string[]> => (await api.call('GET', `/api/workflow/running/${name}`)).body;

test('FAIL (the default) refuses a second start with the key, running or ended, with 409 and one execution made', async () => {
  const name = await defineWaiting('idem_fail');
  const first = await startWith(name, 'order-1');
  expect(first.status).toBe(200);
  for (const strategy of [undefined, 'FAIL']) {
    const again = await startWith(name, 'order-1', strategy);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ status: 409, message: 'Workflow with the idempotency key order-1 already exists' });
  }
  expect(await running(name)).toEqual([first.text]);
  expect((await api.workflow(first.text, false)).idempotencyKey).toBe('order-1');

  await api.complete(await api.pollOne(`${name}_task`));
  await api.waitForStatus(first.text, 'COMPLETED');
  expect((await startWith(name, 'order-1')).status).toBe(409);
});

test('RETURN_EXISTING answers the holder, running and after it ended; the key is scoped to the workflow name', async () => {
  const name = await defineWaiting('idem_return');
  const first = (await startWith(name, 'k', 'RETURN_EXISTING')).text;
  expect((await startWith(name, 'k', 'RETURN_EXISTING')).text).toBe(first);
  await api.call('DELETE', `/api/workflow/${first}?reason=done`);
  expect((await startWith(name, 'k', 'RETURN_EXISTING')).text).toBe(first);

  const other = await defineWaiting('idem_return_other');
  const elsewhere = await startWith(other, 'k', 'FAIL');
  expect(elsewhere.status).toBe(200);
  expect(elsewhere.text).not.toBe(first);
});

test('FAIL_ON_RUNNING refuses while the holder is open and starts anew once it ended', async () => {
  const name = await defineWaiting('idem_running');
  const first = (await startWith(name, 'k', 'FAIL_ON_RUNNING')).text;
  await api.call('PUT', `/api/workflow/${first}/pause`);
  expect((await startWith(name, 'k', 'FAIL_ON_RUNNING')).status).toBe(409);
  await api.call('DELETE', `/api/workflow/${first}?reason=done`);
  const second = await startWith(name, 'k', 'FAIL_ON_RUNNING');
  expect(second.status).toBe(200);
  expect(second.text).not.toBe(first);
  // The new execution holds the key now.
  expect((await startWith(name, 'k', 'RETURN_EXISTING')).text).toBe(second.text);
});

test('20 parallel starts with one key make one execution: RETURN_EXISTING all answer it, FAIL answers 409 to all but one', async () => {
  const name = await defineWaiting('idem_race');
  const returned = await Promise.all(Array.from({ length: 20 }, () => startWith(name, 'same', 'RETURN_EXISTING')));
  expect(returned.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(new Set(returned.map((r) => r.text)).size).toBe(1);

  const failed = await Promise.all(Array.from({ length: 20 }, () => startWith(name, 'other', 'FAIL')));
  expect(failed.filter((r) => r.status === 200)).toHaveLength(1);
  expect(failed.filter((r) => r.status === 409)).toHaveLength(19);
  expect((await running(name)).sort()).toEqual([returned[0]!.text, failed.find((r) => r.status === 200)!.text].sort());
});

test('removing the execution frees its key', async () => {
  const name = await defineWaiting('idem_removed');
  const first = (await startWith(name, 'k')).text;
  expect((await api.call('DELETE', `/api/workflow/${first}/terminate-remove`)).status).toBe(200);
  const second = await startWith(name, 'k');
  expect(second.status).toBe(200);
  expect(second.text).not.toBe(first);
});

test('POST /api/workflow/{name} takes the key and strategy from X-Idempotency-key and X-on-conflict', async () => {
  const name = await defineWaiting('idem_headers');
  const byName = (headers: Record<string, string>) => api.call('POST', `/api/workflow/${name}`, { a: 1 }, { headers });
  const first = await byName({ 'X-Idempotency-key': 'h' });
  expect(first.status).toBe(200);
  expect((await byName({ 'X-Idempotency-key': 'h', 'X-on-conflict': 'RETURN_EXISTING' })).text).toBe(first.text);
  expect((await byName({ 'X-Idempotency-key': 'h' })).status).toBe(409);
  const bad = await byName({ 'X-Idempotency-key': 'h', 'X-on-conflict': 'SOMETIMES' });
  expect(bad.status).toBe(400);
  expect(await running(name)).toEqual([first.text]);
});

test('execute with a key: RETURN_EXISTING answers the existing execution, FAIL a 409', async () => {
  const name = await defineWaiting('idem_execute');
  const execute = (strategy: string) =>
    api.call('POST', `/api/workflow/execute/${name}/1?waitForSeconds=1&returnStrategy=TARGET_WORKFLOW`, {
      input: {},
      idempotencyKey: 'e',
      idempotencyStrategy: strategy,
    });
  const first = await execute('FAIL');
  expect(first.status).toBe(200);
  const id = first.body.workflowId;
  expect((await execute('RETURN_EXISTING')).body).toMatchObject({ workflowId: id, targetWorkflowId: id, targetWorkflowStatus: 'RUNNING' });
  expect((await execute('FAIL')).status).toBe(409);
  expect(await running(name)).toEqual([id]);
});

test('an unknown strategy is a 400 that starts nothing', async () => {
  const name = await defineWaiting('idem_bad');
  const r = await startWith(name, 'k', 'MAYBE');
  expect(r.status).toBe(400);
  expect(JSON.stringify(r.body.validationErrors)).toMatch(/idempotencyStrategy/);
  expect(await running(name)).toEqual([]);
});
