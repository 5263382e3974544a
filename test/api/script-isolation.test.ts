import { apiClient, taskOf } from '../support/api-client';
import { startBaton, type TestBaton } from '../support/baton';

// Scripts and expressions cannot stall the server: INLINE and JSON_JQ_TRANSFORM run in the script
// workers while the event loop serves everyone else, `${...}` JSONPath has a budget, and a DO_WHILE
// that never ends stops at its iteration cap. Against an embedded Baton over real HTTP.

const TIME_LIMIT_MS = 500;
let b: TestBaton;
const api = apiClient(() => b.url);

beforeAll(async () => {
  // 40 spinning scripts queue for 2 workers that are replaced after each jq overrun; the workers run at nice 19,
  // so on a busy CI machine that queue can outlast the default 30 s wait: the wait here is as long as the test's.
  b = await startBaton({
    BATON_SCRIPT_TIMEOUT_MS: String(TIME_LIMIT_MS),
    BATON_SCRIPT_WORKERS: '2',
    BATON_SCRIPT_QUEUE_TIMEOUT_MS: '100000',
    BATON_DO_WHILE_MAX_ITERATIONS: '50',
  });
  for (let i = 0; i < 20; i++) await api.registerTaskDefs([{ name: `iso_def_${i}`, retryCount: 0 }]);
});
afterAll(() => b?.stop());

const inline = (ref: string, expression: string, extra: Record<string, unknown> = {}, inputs: Record<string, unknown> = {}) => ({
  name: ref,
  taskReferenceName: ref,
  type: 'INLINE',
  inputParameters: { evaluatorType: 'javascript', expression, ...inputs },
  ...extra,
});
const jq = (ref: string, queryExpression: string, extra: Record<string, unknown> = {}) => ({
  name: ref,
  taskReferenceName: ref,
  type: 'JSON_JQ_TRANSFORM',
  inputParameters: { queryExpression },
  ...extra,
});

const ended = (id: string) => api.waitForStatus(id, ['COMPLETED', 'FAILED', 'TERMINATED', 'TIMED_OUT'], 100_000);

/** Runs `during` while unrelated `GET /api/metadata/taskdefs` calls go one after another, each answered 200. */
async function whileServing<T>(during: () => Promise<T>): Promise<T> {
  let done = false;
  const probe = (async () => {
    while (!done) expect((await api.call('GET', '/api/metadata/taskdefs')).status).toBe(200);
  })();
  try {
    return await during();
  } finally {
    done = true;
    await probe;
  }
}

test('20 workflows each spinning an INLINE while(true) and a jq [range(1e9)]: every script fails at its time limit while the server keeps answering', async () => {
  await api.register({
    name: 'iso_spin',
    tasks: [
      {
        name: 'fork',
        taskReferenceName: 'fork',
        type: 'FORK_JOIN',
        // Optional, so the first script to fail does not cancel the other: each reports its own reason.
        forkTasks: [[inline('js_spin', 'while (true) {}', { optional: true })], [jq('jq_spin', '[range(1e9)]', { optional: true })]],
      },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['js_spin', 'jq_spin'] },
    ],
  });
  // That the loop is never held by a script is the script engine's own test (test/unit/scripting/script-engine.test.ts,
  // the loop turning while scripts spin); here, end to end: every request during the spins is answered.
  const ids = await whileServing(async () => {
    const ids = await Promise.all(Array.from({ length: 20 }, () => api.start('iso_spin')));
    await Promise.all(ids.map(ended));
    return ids;
  });
  for (const id of ids) {
    const wf = await api.workflow(id);
    expect(taskOf(wf, 'js_spin')).toMatchObject({ status: 'COMPLETED_WITH_ERRORS', reasonForIncompletion: 'Script not evaluated within 500 ms, interrupted.' });
    expect(taskOf(wf, 'jq_spin')).toMatchObject({
      status: 'COMPLETED_WITH_ERRORS',
      reasonForIncompletion: 'jq query exceeded the time limit of 500 ms and was stopped',
    });
  }
}, 180_000);

test("an INLINE's own error and its time limit give different statuses and reasons, as in Conductor", async () => {
  await api.register({ name: 'iso_inline_spin', tasks: [inline('s', 'while (true) {}')] });
  await api.register({ name: 'iso_inline_error', tasks: [inline('s', "throw new Error('no such order')")] });
  const spun = await ended(await api.start('iso_inline_spin'));
  expect(taskOf(spun, 's')).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'Script not evaluated within 500 ms, interrupted.' });
  const broke = await ended(await api.start('iso_inline_error'));
  expect(taskOf(broke, 's')).toMatchObject({
    status: 'FAILED_WITH_TERMINAL_ERROR',
    reasonForIncompletion: 'Error evaluating the script `JavaScript error during evaluation: Error: no such order`',
  });
  expect(broke.status).toBe('FAILED');
});

describe('`${...}` JSONPath over a deep document', () => {
  // The document is built by a script, so no request body limit stands in the way.
  const deepDoc = (levels: number) => `(function () { let v = { leaf: 1 }; for (let i = 0; i < ${levels}; i++) v = { a: v }; return v; })()`;

  test.each([
    [
      'a 200-level document stops at the depth limit',
      200,
      '${build.output.result..*..*..*}',
      "JSONPath expression '$.build.output.result..*..*..*' reached the depth limit of 64 levels",
    ],
    [
      'a 60-level document stops at the step budget',
      60,
      '${build.output.result..*..*..*..*}',
      "JSONPath expression '$.build.output.result..*..*..*..*' exceeded the evaluation budget of 1000000 steps",
    ],
  ])('%s: the task and workflow fail with the reason, the server stays responsive', async (_label, levels, expression, reason) => {
    const name = `iso_jsonpath_${levels}`;
    await api.register({
      name,
      tasks: [inline('build', deepDoc(levels)), { name: 'iso_def_0', taskReferenceName: 'use', type: 'SIMPLE', inputParameters: { all: expression } }],
    });
    const wf = await whileServing(async () => ended(await api.start(name)));
    expect(taskOf(wf, 'use')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: reason });
    expect(wf).toMatchObject({ status: 'FAILED', reasonForIncompletion: reason });
    // Unbounded, the 200-level case held the event loop for over ten seconds; the reason above says the bound stopped it.
  });
});

describe('DO_WHILE iteration cap (BATON_DO_WHILE_MAX_ITERATIONS=50)', () => {
  test('a loop whose condition never turns false fails at the cap with the reason, instead of running on', async () => {
    await api.register({
      name: 'iso_forever',
      tasks: [
        {
          name: 'loop',
          taskReferenceName: 'loop',
          type: 'DO_WHILE',
          loopCondition: 'true',
          loopOver: [inline('step', '$.i', {}, { i: '${loop.output.iteration}' })],
        },
      ],
    });
    const wf = await ended(await api.start('iso_forever'));
    const reason = 'DO_WHILE loop reached the limit of 50 iterations (BATON_DO_WHILE_MAX_ITERATIONS) and its loopCondition still holds';
    expect(taskOf(wf, 'loop')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', iteration: 50, reasonForIncompletion: reason });
    expect(wf.status).toBe('FAILED');
    expect(wf.reasonForIncompletion).toContain(reason);
    expect(wf.tasks.filter((t: any) => t.taskType === 'INLINE')).toHaveLength(50);
  });

  test('a loop of tasks that finish at once, more than one decision takes, carries on in the next turn and completes', async () => {
    const body = Array.from({ length: 40 }, (_, i) => ({ name: `n${i}`, taskReferenceName: `n${i}`, type: 'NOOP' }));
    await api.register({
      name: 'iso_long_items',
      tasks: [{ name: 'each', taskReferenceName: 'each', type: 'DO_WHILE', items: '${workflow.input.list}', loopCondition: 'true', loopOver: body }],
    });
    const wf = await ended(await api.start('iso_long_items', { list: Array.from({ length: 30 }, (_, i) => i) }));
    expect(wf.status).toBe('COMPLETED');
    expect(taskOf(wf, 'each')).toMatchObject({ status: 'COMPLETED', iteration: 30 });
    expect(wf.tasks).toHaveLength(1 + 30 * 40);
  });
});
