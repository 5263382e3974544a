import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton, type RawReply } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// Count caps on what the API creates one request at a time: schedules, secrets, schema versions and
// applications. At the cap a create is a 400 naming the setting and changes nothing; updating an
// existing record stays allowed; deleting one makes room.

const CAP = 2;
let b: AuthBaton;
let admin: string;

beforeAll(async () => {
  b = await startAuthBaton({
    BATON_AUTH: 'on',
    BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
    BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
    BATON_MAX_SCHEDULES: String(CAP),
    BATON_MAX_SECRETS: String(CAP),
    BATON_MAX_SCHEMAS: String(CAP),
    BATON_MAX_APPLICATIONS: String(CAP),
  });
  admin = await tokenFor(b.port, ADMIN_KEY);
});
afterAll(async () => {
  await b?.stop();
});

const call = (method: string, path: string, body?: unknown): Promise<RawReply> => raw(b.port, method, path, { token: admin, body });

function expectRefused(r: RawReply, setting: string): void {
  expect(r.status).toBe(400);
  expect(r.body).toEqual({
    status: 400,
    message: expect.stringContaining(`(${setting})`),
    instance: expect.any(String),
    retryable: false,
    code: 'RECORDS_AT_LIMIT',
  });
  expect(r.body.message).toContain(`Cannot create more than ${CAP}`);
}

test('schedules: the one past the cap is refused and not stored; updating one is allowed; deleting one makes room', async () => {
  const wf = uniqueName('capped_wf');
  expect(
    (await call('POST', '/api/metadata/workflowdef', { name: wf, version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] })).status,
  ).toBe(200);
  const save = (name: string, cron = '0 0 9 ? * MON-FRI') =>
    call('POST', '/api/scheduler/schedules', { name, cronExpression: cron, startWorkflowRequest: { name: wf, version: 1 } });
  const names = [uniqueName('s'), uniqueName('s'), uniqueName('s')];
  expect((await save(names[0]!)).status).toBe(200);
  expect((await save(names[1]!)).status).toBe(200);
  expectRefused(await save(names[2]!), 'BATON_MAX_SCHEDULES');
  expect((await call('GET', `/api/scheduler/schedules/${names[2]}`)).status).toBe(404);
  expect((await save(names[0]!, '0 0 10 ? * MON-FRI')).status).toBe(200);
  expect((await call('DELETE', `/api/scheduler/schedules/${names[1]}`)).status).toBe(200);
  expect((await save(names[2]!)).status).toBe(200);
});

test('secrets: the one past the cap is refused and not stored; a new value for one is allowed', async () => {
  const names = [uniqueName('sec'), uniqueName('sec'), uniqueName('sec')];
  expect((await call('PUT', `/api/secrets/${names[0]}`, 'v0')).status).toBe(200);
  expect((await call('PUT', `/api/secrets/${names[1]}`, 'v1')).status).toBe(200);
  expectRefused(await call('PUT', `/api/secrets/${names[2]}`, 'v2'), 'BATON_MAX_SECRETS');
  expect((await call('GET', `/api/secrets/${names[2]}/exists`)).body).toBe(false);
  expect((await call('PUT', `/api/secrets/${names[0]}`, 'v0-rotated')).status).toBe(200);
  expect((await call('DELETE', `/api/secrets/${names[1]}`)).status).toBe(200);
  expect((await call('PUT', `/api/secrets/${names[2]}`, 'v2')).status).toBe(200);
});

test('schema versions: a request that would pass the cap writes none of its schemas; rewriting a version is allowed', async () => {
  const [a, c] = [uniqueName('schema_a'), uniqueName('schema_c')];
  const def = (name: string, version: number) => ({ name, version, type: 'JSON', data: { type: 'object' } });
  expect((await call('POST', '/api/schema', [def(a, 1)])).status).toBe(200);
  expectRefused(await call('POST', '/api/schema', [def(a, 2), def(c, 1)]), 'BATON_MAX_SCHEMAS');
  expect((await call('GET', `/api/schema/${a}/2`)).status).toBe(404);
  expect((await call('GET', `/api/schema/${c}`)).status).toBe(404);
  expect((await call('POST', '/api/schema?newVersion=true', [def(a, 1)])).status).toBe(200);
  expectRefused(await call('POST', '/api/schema?newVersion=true', [def(a, 1)]), 'BATON_MAX_SCHEMAS');
  expect((await call('POST', '/api/schema', [def(a, 1), def(a, 2)])).status).toBe(200);
  expect((await call('DELETE', `/api/schema/${a}/1`)).status).toBe(200);
  expect((await call('POST', '/api/schema', [def(c, 1)])).status).toBe(200);
});

test('applications: the one past the cap is refused and not stored; renaming one is allowed', async () => {
  const first = await call('POST', '/api/applications', { name: uniqueName('app') });
  expect(first.status).toBe(200);
  expect((await call('POST', '/api/applications', { name: uniqueName('app') })).status).toBe(200);
  expectRefused(await call('POST', '/api/applications', { name: uniqueName('app') }), 'BATON_MAX_APPLICATIONS');
  expect((await call('GET', '/api/applications')).body).toHaveLength(CAP);
  expect((await call('PUT', `/api/applications/${first.body.id}`, { name: 'renamed' })).status).toBe(200);
  expect((await call('DELETE', `/api/applications/${first.body.id}`)).status).toBe(200);
  expect((await call('POST', '/api/applications', { name: uniqueName('app') })).status).toBe(200);
});
