import { apiClient } from '../support/api-client';
import { useBaton } from '../support/baton';

// User-supplied regular expressions (a JSON schema's pattern, a JSONPath filter's regex literal) run in
// linear time or are refused: a pattern that backtracks exponentially in JavaScript, over thousands of
// characters, gets its answer and the server keeps answering other requests meanwhile.

const baton = useBaton();
const api = apiClient(() => baton.url());
const evil = '^(a+)+$';
/** Backtracking would try about 2^5000 ways before answering false. */
const evilInput = `${'a'.repeat(5000)}b`;

describe('JSON schema patterns', () => {
  test('a start checked against an exponential pattern is answered (400 for the miss, 200 for the match) while a GET is served', async () => {
    const schema = api.uniq('evil_pattern');
    expect(
      (
        await api.call('POST', '/api/schema', [
          { name: schema, version: 1, type: 'JSON', data: { type: 'object', properties: { s: { type: 'string', pattern: evil } } } },
        ])
      ).status,
    ).toBe(200);
    const name = api.uniq('evil_pattern_wf');
    await api.register({ name, inputSchema: { name: schema, version: 1 }, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });

    const [refused, other] = await Promise.all([
      api.call('POST', '/api/workflow', { name, input: { s: evilInput } }),
      api.call('GET', '/api/metadata/taskdefs'),
    ]);
    expect(other.status).toBe(200);
    expect(refused.status).toBe(400);
    expect(refused.body.validationErrors).toEqual([expect.objectContaining({ path: 'input/s', message: `must match pattern "${evil}"` })]);
    expect((await api.call('POST', '/api/workflow', { name, input: { s: 'a'.repeat(5000) } })).status).toBe(200);
  });

  test('a schema whose pattern needs backtracking (lookaround, backreference) is refused with a 400 saying why, and not stored', async () => {
    for (const data of [
      { type: 'string', pattern: '^(?=a)a+$' },
      { type: 'object', patternProperties: { '(x)\\1': {} } },
    ]) {
      const name = api.uniq('lookaround');
      const r = await api.call('POST', '/api/schema', [{ name, version: 1, type: 'JSON', data }]);
      expect(r.status).toBe(400);
      expect(r.body.validationErrors).toEqual([
        { path: 'schemas.0.data', message: expect.stringMatching(/not a usable JSON schema: .*cannot run in linear time/) },
      ]);
      expect((await api.call('GET', `/api/schema/${name}`)).status).toBe(404);
    }
  });
});

describe('JSONPath filters in task inputs', () => {
  const adHoc = (name: string, expression: string) => ({
    name,
    workflowDef: {
      name,
      version: 1,
      schemaVersion: 2,
      tasks: [{ name: 'hold', taskReferenceName: 'hold', type: 'WAIT', inputParameters: { matched: expression } }],
    },
  });

  test("an ad-hoc start whose task input filters with an exponential regex gets RE2's answer while a GET is served", async () => {
    const name = api.uniq('evil_filter');
    const body = {
      ...adHoc(name, '${workflow.input.items[?(/^(a+)+$/.test(@.s))].id}'),
      input: {
        items: [
          { id: 1, s: evilInput },
          { id: 2, s: 'a'.repeat(5000) },
        ],
      },
    };
    const [started, other] = await Promise.all([api.call('POST', '/api/workflow', body), api.call('GET', '/api/metadata/taskdefs')]);
    expect(other.status).toBe(200);
    expect(started.status).toBe(200);
    const hold = await api.waitForTask(started.text, 'hold', 'IN_PROGRESS');
    expect(hold.inputData).toMatchObject({ matched: [2] });
  });

  test('a filter calling a method Baton does not run fails the task and the workflow with the reason; nothing runs', async () => {
    const name = api.uniq('method_filter');
    const id = await api.start(name, { items: [{ s: evilInput }] }, adHoc(name, '${workflow.input.items[?(@.s.match(/^(a+)+$/))]}'));
    const wf = await api.waitForStatus(id, 'FAILED');
    const reason = expect.stringMatching(/^JSONPath filter '@\.s\.match\(\/\^\(a\+\)\+\$\/\)' calls 'match', which Baton does not run in filters/);
    expect(wf.tasks.find((t) => t.referenceTaskName === 'hold')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: reason });
    expect(wf.reasonForIncompletion).toEqual(reason);
  });
});
