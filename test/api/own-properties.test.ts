import { apiClient } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';
import { uniqueName } from '../support/names';

// User keys (case values, input keys, ids) mean own entries only, through the whole server; and requests
// that name many things at once are bounded.

let b: TestBaton;
const api = apiClient(() => b.url);
beforeAll(async () => {
  b = await startBaton();
});
afterAll(async () => {
  await b?.stop();
});

const INHERITED = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];
const setVar = (ref: string) => ({ name: ref, taskReferenceName: ref, type: 'SET_VARIABLE', inputParameters: { took: ref } });

test.each(INHERITED)('a SWITCH on the value %s, which no case names, runs its default case', async (value) => {
  const name = uniqueName('switch_own');
  await api.register({
    name,
    tasks: [
      {
        name: 'sw',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        evaluatorType: 'value-param',
        expression: 'v',
        inputParameters: { v: '${workflow.input.v}' },
        decisionCases: { a: [setVar('case_a')] },
        defaultCase: [setVar('fallback')],
      },
    ],
    outputParameters: { took: '${workflow.variables.took}', inherited: `\${workflow.input.${value}}` },
  });
  const w = await api.waitForStatus(await api.start(name, { v: value }), 'COMPLETED');
  expect(w.tasks!.map((t) => t.referenceTaskName)).toEqual(['sw', 'fallback']);
  expect(w.tasks![0]).toMatchObject({ outputData: { selectedCase: 'defaultCase' } });
  expect(w.output).toEqual({ took: 'fallback', inherited: null });
});

test('a bulk answer keeps an error for every id, __proto__ and constructor included', async () => {
  const r = await api.call('POST', '/api/workflow/bulk/terminate', ['__proto__', 'constructor']);
  expect(r.status).toBe(200);
  expect(Object.keys(r.body.bulkErrorResults).sort()).toEqual(['__proto__', 'constructor']);
  expect(r.body.bulkSuccessfulResults).toEqual([]);
});

test('correlated searches name at most 1,000 correlation ids, or (name, id) pairs, per request', async () => {
  const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`);
  const many = await api.call('POST', '/api/workflow/some_name/correlated', ids(1001));
  expect(many).toMatchObject({
    status: 400,
    body: { status: 400, validationErrors: [expect.objectContaining({ message: expect.stringContaining('1000 correlation ids') })] },
  });
  expect((await api.call('POST', '/api/workflow/some_name/correlated', ids(3))).status).toBe(200);
  const pairs = await api.call('POST', '/api/workflow/correlated/batch', { workflowNames: ['a', 'b'], correlationIds: ids(501) });
  expect(pairs).toMatchObject({
    status: 400,
    body: { status: 400, validationErrors: [expect.objectContaining({ message: expect.stringContaining('1000 (workflow name, correlation id) pairs') })] },
  });
  expect((await api.call('POST', '/api/workflow/correlated/batch', { workflowNames: ['a', 'b'], correlationIds: ids(500) })).status).toBe(200);
});

test('an event handler holds at most 100 actions', async () => {
  const name = uniqueName('many_actions');
  const action = { action: 'start_workflow', start_workflow: { name: 'x' } };
  const r = await api.call('POST', '/api/event', { name, event: 'conductor:x:y', active: true, actions: Array.from({ length: 101 }, () => action) });
  expect(r).toMatchObject({
    status: 400,
    body: { status: 400, validationErrors: [expect.objectContaining({ message: 'An event handler has at most 100 actions' })] },
  });
  expect(((await api.call('GET', '/api/event')).body as Array<{ name: string }>).map((h) => h.name)).not.toContain(name);
  expect(
    (await api.call('POST', '/api/event', { name, event: 'conductor:x:y', active: false, actions: Array.from({ length: 100 }, () => action) })).status,
  ).toBe(200);
});
