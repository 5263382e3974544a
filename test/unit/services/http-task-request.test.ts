import { effectiveTimeoutMs, httpRequestOf, literalTimeoutIssues, parseTimeout } from '../../../src/model/http-request';
import { WorkflowDefSchema, TaskDefSchema } from '../../../src/model/definitions';
import type { Task } from '../../../src/model/execution';
import { hostKeyOf } from '../../../src/services/http-task/host-key';
import { callRequestOf, oversizedResult, taskResultOf } from '../../../src/services/http-task/task-request';

const limits = { maxTimeoutMs: 60_000, maxRedirects: 5 };

describe('parseTimeout: seconds, or milliseconds above 1000', () => {
  test.each([
    [undefined, undefined],
    [null, undefined],
    ['', undefined],
    [2, 2000],
    ['2', 2000],
    [1.5, 1500],
    [1000, 1_000_000],
    [1001, 1001],
    [3000, 3000],
    ['3000', 3000],
    [0, 0],
  ])('%p -> %p ms', (value, ms) => {
    expect(parseTimeout(value)).toEqual({ ok: true, ms });
  });

  test.each([-1, '-5', 'abc', '12s', ' ', NaN, Infinity, 3_000_000_000, true, {}, []])('%p is refused', (value) => {
    expect(parseTimeout(value).ok).toBe(false);
  });

  test('effective value: the default when absent, the cap when 0 or above it', () => {
    expect(effectiveTimeoutMs(undefined, 60_000)).toBe(3000);
    expect(effectiveTimeoutMs(undefined, 1000)).toBe(1000);
    expect(effectiveTimeoutMs(0, 60_000)).toBe(60_000);
    expect(effectiveTimeoutMs(5000, 60_000)).toBe(5000);
    expect(effectiveTimeoutMs(3_600_000, 60_000)).toBe(60_000);
  });

  test('literal timeouts are checked at registration; ${…} expressions wait for run time', () => {
    expect(literalTimeoutIssues({ connectionTimeOut: 'abc', readTimeOut: -1 })).toEqual([
      expect.stringMatching(/^connectionTimeOut must be a number.*"abc"/),
      expect.stringMatching(/^readTimeOut must be a number.*-1/),
    ]);
    expect(literalTimeoutIssues({ connectionTimeOut: '${workflow.input.t}', readTimeOut: 5 })).toEqual([]);
    expect(literalTimeoutIssues(undefined)).toEqual([]);
  });
});

describe('registration refuses bad literal timeouts with a validation message', () => {
  const def = (http_request: Record<string, unknown>) => ({
    name: 'w',
    tasks: [{ name: 'call', taskReferenceName: 'c', type: 'HTTP', inputParameters: { http_request } }],
  });

  test('in http_request, at the top level, and in a task definition template', () => {
    const r = WorkflowDefSchema.safeParse(def({ uri: 'http://x', method: 'GET', readTimeOut: 'soon' }));
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.message)).toEqual([expect.stringMatching(/^http_request\.readTimeOut must be .*"soon" for task: c$/)]);
    const top = WorkflowDefSchema.safeParse({
      name: 'w',
      tasks: [{ name: 'call', taskReferenceName: 'c', type: 'HTTP', inputParameters: { uri: 'http://x', method: 'GET', connectionTimeOut: -3 } }],
    });
    expect(top.success).toBe(false);
    const td = TaskDefSchema.safeParse({ name: 'call', inputTemplate: { http_request: { uri: 'http://x', method: 'GET', connectionTimeOut: 'x' } } });
    expect(td.success).toBe(false);
    expect(td.error?.issues[0]?.message).toMatch(/^TaskDef: call http_request\.connectionTimeOut must be/);
  });

  test('good values, expressions and 0 pass', () => {
    expect(WorkflowDefSchema.safeParse(def({ uri: 'http://x', method: 'GET', connectionTimeOut: '2', readTimeOut: 3000 })).success).toBe(true);
    expect(WorkflowDefSchema.safeParse(def({ uri: 'http://x', method: 'GET', readTimeOut: '${workflow.input.t}', connectionTimeOut: 0 })).success).toBe(true);
  });
});

describe('callRequestOf', () => {
  test('http_request or top-level keys, default headers, JSON body, capped timeouts', () => {
    const r = callRequestOf(
      { http_request: { uri: 'http://h/x', method: 'post', body: { a: 1 }, headers: { 'X-N': 7 }, connectionTimeOut: 2, readTimeOut: 3_600_000 } },
      limits,
    );
    expect(r).toEqual({
      ok: true,
      request: {
        url: 'http://h/x',
        method: 'POST',
        headers: { 'X-N': '7', 'Content-Type': 'application/json', Accept: 'application/json' },
        body: '{"a":1}',
        connectTimeoutMs: 2000,
        readTimeoutMs: 60_000,
        maxRedirects: 5,
      },
    });
    const top = callRequestOf({ uri: 'http://h/y', method: 'GET', body: { ignored: true }, 'content-Type': 'text/plain', accept: ['a/b', 'c/d'] }, limits);
    expect(top).toMatchObject({
      ok: true,
      request: { method: 'GET', body: undefined, headers: { 'Content-Type': 'text/plain', Accept: 'a/b, c/d' }, connectTimeoutMs: 3000, readTimeoutMs: 3000 },
    });
  });

  test('followRedirects: false (or "false") turns redirects off for the task', () => {
    expect(callRequestOf({ http_request: { uri: 'http://h', method: 'GET', followRedirects: false } }, limits)).toMatchObject({ request: { maxRedirects: 0 } });
    expect(callRequestOf({ http_request: { uri: 'http://h', method: 'GET', followRedirects: 'false' } }, limits)).toMatchObject({
      request: { maxRedirects: 0 },
    });
    expect(callRequestOf({ http_request: { uri: 'http://h', method: 'GET' } }, { ...limits, maxRedirects: 0 })).toMatchObject({ request: { maxRedirects: 0 } });
  });

  test('a missing URI or method, or a bad timeout resolved at run time, is a reason to fail', () => {
    expect(callRequestOf({ http_request: { method: 'GET' } }, limits)).toEqual({ ok: false, reason: 'Missing HTTP URI or method' });
    expect(callRequestOf({ http_request: { uri: 'http://h', method: 'GET', readTimeOut: 'later' } }, limits)).toEqual({
      ok: false,
      reason: expect.stringMatching(/^Invalid http_request: readTimeOut must be/),
    });
    // A URI of the wrong type is dropped, not thrown on.
    expect(callRequestOf({ http_request: { uri: 42, method: 'GET' } }, limits)).toEqual({ ok: false, reason: 'Missing HTTP URI or method' });
    expect(httpRequestOf({ http_request: { uri: 'http://h', method: 'GET', headers: 'nope' } }).headers).toBeUndefined();
  });
});

describe('taskResultOf', () => {
  const task = (asyncComplete = false) => ({ taskId: 't1', workflowInstanceId: 'w1', workflowTask: { asyncComplete } }) as unknown as Task;
  const response = (status: number, text: string, contentType = 'application/json') => ({
    kind: 'response' as const,
    status,
    statusText: 'X',
    headers: { a: ['b'] },
    contentType,
    text,
  });

  test('2xx completes with the parsed body; asyncComplete stays IN_PROGRESS', () => {
    expect(taskResultOf(task(), response(200, '{"ok":true}'), 'h')).toEqual({
      workflowInstanceId: 'w1',
      taskId: 't1',
      workerId: 'h',
      status: 'COMPLETED',
      outputData: { response: { statusCode: 200, reasonPhrase: 'X', headers: { a: ['b'] }, body: { ok: true } } },
    });
    expect(taskResultOf(task(true), response(204, ''), 'h').status).toBe('IN_PROGRESS');
    expect(taskResultOf(task(), response(200, 'not json'), 'h').outputData).toMatchObject({ response: { body: 'not json' } });
  });

  test("non-2xx fails with Conductor's reason text and the status in it", () => {
    const r = taskResultOf(task(), response(503, 'down', 'text/plain'), 'h');
    expect(r.status).toBe('FAILED');
    expect(r.reasonForIncompletion).toBe('Failed to invoke HTTP task due to: 503 X: down');
  });

  test('a failed call fails the task with the reason; a refused body keeps status and headers', () => {
    const r = taskResultOf(
      task(),
      { kind: 'failure', reason: 'response body is larger than 10 bytes', partial: { status: 200, statusText: 'OK', headers: {} } },
      'h',
    );
    expect(r).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: 'Failed to invoke HTTP task due to: response body is larger than 10 bytes',
      outputData: { response: { statusCode: 200 } },
    });
    expect((r.outputData as { response: object }).response).not.toHaveProperty('body');
  });

  test('a result the store refuses as too large becomes a failure without the body', () => {
    const ok = taskResultOf(task(), response(200, '{"big":1}'), 'h');
    const r = oversizedResult(ok, 'task c outputData is 4000000 bytes, over the limit');
    expect(r).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: expect.stringContaining('does not fit in a task output'),
      outputData: { response: { statusCode: 200 } },
    });
    expect(JSON.stringify(r.outputData)).not.toContain('big');
  });
});

describe('hostKeyOf', () => {
  test('hostKeyOf: host and port of the URI, lower-cased, default ports filled in', () => {
    expect(hostKeyOf('http://API.example.com/x')).toBe('api.example.com:80');
    expect(hostKeyOf('https://api.example.com/x')).toBe('api.example.com:443');
    expect(hostKeyOf('http://127.0.0.1:9000/')).toBe('127.0.0.1:9000');
    expect(hostKeyOf('not a url')).toBeUndefined();
    expect(hostKeyOf(undefined)).toBeUndefined();
  });
});

test('a timeout of the wrong type resolved at run time fails the task rather than falling back to the default', () => {
  expect(callRequestOf({ http_request: { uri: 'http://h', method: 'GET', connectionTimeOut: true } }, limits)).toEqual({
    ok: false,
    reason: expect.stringMatching(/^Invalid http_request: connectionTimeOut must be .*true/),
  });
});
