import { call, useBaton } from '../support/baton';
import { toErrorBody } from '../../src/api/errors';
import { ExpressionLimitError } from '../../src/engine/jsonpath-budget';
import { CommitOutcomeUnknown, PayloadTooLargeError, StaleWriteError } from '../../src/store/ports';
import { ActorDeactivated, HostStopping, OutcomeUnknown } from '../../src/runtime/ports';
import { SearchUnavailable } from '../../src/search/search-unavailable';
import { QuerySyntaxError } from '../../src/search/query';
import { ScriptError } from '../../src/scripting/script-error';

// A body Baton cannot read answers a named error from the catalogue, on express's routes and on the
// hot path alike; the store's and the expression evaluator's own errors carry their names too.

const b = useBaton({ BATON_MAX_BODY_BYTES: '4096' });

async function refused(method: string, path: string, raw: string) {
  const r = await call(b.url(), method, path, undefined, { raw });
  return { status: r.status, code: r.body?.code, message: r.body?.message };
}

describe('bodies Baton cannot read', () => {
  // POST /api/metadata/workflow goes through express; POST /api/tasks (a task update) through the hot path.
  const routes: Array<[string, string]> = [
    ['POST', '/api/metadata/workflow'],
    ['POST', '/api/tasks'],
  ];

  test.each(routes)('malformed JSON on %s %s is a 400 BODY_MALFORMED_JSON', async (method, path) => {
    expect(await refused(method, path, '{"name": ')).toEqual({
      status: 400,
      code: 'BODY_MALFORMED_JSON',
      message: expect.stringMatching(/^Malformed JSON body: /),
    });
  });

  test.each(routes)('a body over BATON_MAX_BODY_BYTES on %s %s is a 413 BODY_TOO_LARGE', async (method, path) => {
    expect(await refused(method, path, JSON.stringify({ pad: 'x'.repeat(8192) }))).toEqual({
      status: 413,
      code: 'BODY_TOO_LARGE',
      message: 'Request body too large',
    });
  });

  test('a search query Baton cannot parse is a 400 QUERY_INVALID', async () => {
    const r = await call(b.url(), 'GET', `/api/workflow/search?query=${encodeURIComponent('status = (((')}`);
    expect(r.body).toMatchObject({ status: 400, code: 'QUERY_INVALID' });
  });

  test('the server keeps serving after them', async () => {
    expect((await call(b.url(), 'GET', '/api/metadata/workflow')).status).toBe(200);
  });
});

describe("the store's and the evaluator's errors", () => {
  test('a stale write answers 503 STALE_WRITE, retryable', () => {
    expect(toErrorBody(new StaleWriteError('wf-1', 3))).toMatchObject({
      status: 503,
      code: 'STALE_WRITE',
      message: 'stale write to workflow wf-1 at rev 3',
      retryable: true,
    });
  });

  test('an expression over its limit answers 400 EXPRESSION_LIMIT with its own message', () => {
    const e = new ExpressionLimitError('JSONPath ${a..b} read more than 1000 nodes');
    expect(e.name).toBe('ExpressionLimitError');
    expect(toErrorBody(e)).toMatchObject({ status: 400, code: 'EXPRESSION_LIMIT', message: 'JSONPath ${a..b} read more than 1000 nodes', retryable: false });
  });

  test('the other classes that answer a request carry their names', () => {
    const cases: Array<[Error, number, string]> = [
      [new SearchUnavailable('down'), 503, 'SEARCH_UNAVAILABLE'],
      [new QuerySyntaxError('unexpected )', 3), 400, 'QUERY_INVALID'],
      [new ScriptError('syntax', 'SyntaxError: x'), 400, 'SCRIPT_FAILED'],
      [new PayloadTooLargeError('input over 1 MB'), 413, 'STORE_PAYLOAD_TOO_LARGE'],
      [new ActorDeactivated('moved'), 503, 'ACTOR_DEACTIVATED'],
      [new HostStopping(), 503, 'HOST_STOPPING'],
      [new OutcomeUnknown({ type: 'workflow', id: 'wf-1', method: 'start' }, 'timeout'), 500, 'OUTCOME_UNKNOWN'],
      [new CommitOutcomeUnknown('wf-1', 'timeout'), 500, 'OUTCOME_UNKNOWN'],
    ];
    for (const [e, status, code] of cases) expect([e.name, toErrorBody(e)]).toEqual([e.name, expect.objectContaining({ status, code, message: e.message })]);
    expect(toErrorBody(new QuerySyntaxError('unexpected )', 3)).message).toBe('unexpected ) at position 3');
    expect(toErrorBody(new OutcomeUnknown({ type: 'workflow', id: 'wf-1', method: 'start' }, 'timeout')).retryable).toBe(false);
  });
});
