import { call, useBaton } from '../support/baton';
import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';

// Each refusal answers its own stable code from the error catalogue, with the same message as before,
// so a client can act on the code instead of parsing the text.

const b = useBaton();

async function refused(method: string, path: string, body?: unknown) {
  const r = await call(b.url(), method, path, body);
  return { status: r.status, code: r.body?.code, message: r.body?.message };
}

describe('named error codes', () => {
  test('batches', async () => {
    expect(await refused('GET', '/api/batch/nope')).toEqual({ status: 404, code: 'BATCH_NOT_FOUND', message: 'No such batch: nope' });
    expect(await refused('POST', '/api/batch/nope/cancel')).toMatchObject({ status: 404, code: 'BATCH_NOT_FOUND' });
  });

  test('secrets', async () => {
    expect(await refused('GET', '/api/secrets/nope_secret')).toEqual({
      status: 404,
      code: 'SECRET_NOT_FOUND',
      message: 'No such secret found by key: nope_secret',
    });
    expect(await refused('PUT', '/api/secrets/bad%20name', 'v')).toMatchObject({ status: 400, code: 'SECRET_NAME_INVALID' });
  });

  test('schedules', async () => {
    expect(await refused('GET', '/api/scheduler/schedules/nope')).toEqual({ status: 404, code: 'SCHEDULE_NOT_FOUND', message: "Schedule 'nope' not found" });
    expect(await refused('GET', '/api/scheduler/nextFewSchedules')).toMatchObject({ status: 400, code: 'CRON_EXPRESSION_REQUIRED' });
    expect(await refused('GET', '/api/scheduler/nextFewSchedules?cronExpression=nope')).toMatchObject({ status: 400, code: 'CRON_EXPRESSION_INVALID' });
    expect(await refused('GET', '/api/scheduler/schedules/tags')).toMatchObject({ status: 400, code: 'SCHEDULE_TAG_REQUIRED' });
  });
  test('metadata, events and schemas', async () => {
    expect(await refused('GET', '/api/metadata/taskdefs/nope_task')).toEqual({
      status: 404,
      code: 'TASK_DEF_NOT_FOUND',
      message: 'No such taskType found by name: nope_task',
    });
    expect(await refused('DELETE', '/api/metadata/taskdefs/nope_task')).toMatchObject({ status: 404, code: 'TASK_DEF_TO_DELETE_NOT_FOUND' });
    expect(await refused('DELETE', '/api/metadata/workflow/nope_wf/1')).toMatchObject({ status: 404, code: 'WORKFLOW_DEF_TO_DELETE_NOT_FOUND' });
    expect(await refused('GET', '/api/schema/nope_schema')).toEqual({ status: 404, code: 'SCHEMA_NOT_FOUND', message: 'Schema nope_schema not found' });
    expect(await refused('POST', '/api/event', [])).toMatchObject({
      status: 400,
      code: 'BODY_MISSING',
      message: 'Missing request body: eventHandler expected',
    });
  });
  test('request parameters, executions and tasks', async () => {
    expect(await refused('GET', '/api/tasks/queue/polldata')).toEqual({
      status: 400,
      code: 'TASK_TYPE_REQUIRED',
      message: "Required query parameter 'taskType' is missing",
    });
    expect(await refused('GET', '/api/event/some_event?activeOnly=maybe')).toMatchObject({ status: 400, code: 'QUERY_PARAM_NOT_BOOLEAN' });
    expect(await refused('POST', '/api/tasks/wf-1/ref/NOPE', {})).toMatchObject({
      status: 400,
      code: 'TASK_STATUS_INVALID',
      message: expect.stringContaining("Invalid task status 'NOPE'; expected one of "),
    });
    expect(await refused('POST', '/api/workflow/execute/some_wf/1?consistency=NOPE', {})).toMatchObject({ status: 400, code: 'CONSISTENCY_INVALID' });
  });
  test('external payloads and objects', async () => {
    expect(await refused('GET', '/api/workflow/externalstoragelocation?operation=NOPE&payloadType=WORKFLOW_INPUT')).toMatchObject({
      status: 400,
      code: 'EXTERNAL_STORAGE_REQUEST_INVALID',
      message: expect.stringContaining('Invalid input - operation must be one of '),
    });
    expect(await refused('GET', '/api/workflow/externalstoragelocation?operation=READ&payloadType=WORKFLOW_INPUT&path=elsewhere')).toEqual({
      status: 400,
      code: 'PAYLOAD_PATH_INVALID',
      message: 'Invalid input - path must name an external payload (a key under payloads/), got "elsewhere"',
    });
  });
  test('starts, polls and the rest of the API', async () => {
    expect(await refused('PATCH', '/api/metadata/taskdefs')).toMatchObject({ status: 405, code: 'METHOD_NOT_ALLOWED' });
    let deep: unknown = 1;
    for (let i = 0; i < 500; i++) deep = { a: deep };
    expect(await refused('POST', '/api/workflow/some_wf', deep)).toMatchObject({ status: 400, code: 'JSON_TOO_DEEP' });
    expect(await refused('GET', '/api/tasks/poll/batch/some_task?timeout=999999999')).toMatchObject({ status: 400, code: 'LONG_POLL_TIMEOUT_TOO_LONG' });
    expect(await refused('PUT', '/api/workflow/skiptask?workflowId=wf-1&taskReferenceName=t&taskInput=not-json')).toEqual({
      status: 400,
      code: 'QUERY_PARAM_NOT_JSON_OBJECT',
      message: "Query parameter 'taskInput' must be a JSON object",
    });
  });
});

describe('named error codes with authentication on', () => {
  let a: AuthBaton;
  let token = '';
  beforeAll(async () => {
    a = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
    token = await tokenFor(a.port, ADMIN_KEY);
  });
  afterAll(() => a?.stop());
  const asAdmin = async (method: string, path: string, body?: unknown) => {
    const r = await raw(a.port, method, path, { token, body });
    return { status: r.status, code: r.body?.code, message: r.body?.message };
  };

  test('authentication, applications and authorization', async () => {
    const missing = await raw(a.port, 'GET', '/api/metadata/taskdefs');
    expect([missing.status, missing.body.code, missing.body.error]).toEqual([401, 'TOKEN_MISSING', 'INVALID_TOKEN']);
    const forged = await raw(a.port, 'GET', '/api/metadata/taskdefs', { token: 'not-a-token' });
    expect([forged.status, forged.body.code, forged.body.message]).toEqual([401, 'TOKEN_INVALID', 'Invalid token']);
    const bad = await raw(a.port, 'POST', '/api/token', { body: { keyId: 'nope', keySecret: 'nope' } });
    expect([bad.status, bad.body.code]).toEqual([401, 'ACCESS_KEY_INVALID']);
    expect(await asAdmin('GET', '/api/applications/nope')).toEqual({ status: 404, code: 'APPLICATION_NOT_FOUND', message: 'No such application: nope' });
    expect(await asAdmin('GET', '/api/users/nope')).toEqual({ status: 404, code: 'USER_NOT_FOUND', message: 'No such user: nope' });
    expect(await asAdmin('GET', '/api/groups/nope')).toEqual({ status: 404, code: 'GROUP_NOT_FOUND', message: 'No such group: nope' });
  });

  test('a token asked of a server with authentication off', async () => {
    expect(await refused('POST', '/api/token', { keyId: 'k', keySecret: 's' })).toMatchObject({ status: 404, code: 'AUTH_OFF' });
  });
});
