import { ADMIN_KEY, raw, requestsAs, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// Orkes' users, groups and grants over real HTTP with auth on: the API as the SDKs call it, bad input
// refused with nothing changed, and grants on a workflow or task definition deciding who may start,
// read or poll it, on the hot path (node:http) and through express alike.

let b: AuthBaton;
let admin: string;

beforeAll(async () => {
  b = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
  admin = await tokenFor(b.port, ADMIN_KEY);
});
afterAll(async () => {
  await b?.stop();
});

const as = (token: string) => requestsAs(b.port, token);
const A = () => as(admin);

async function appWith(roles: string[]): Promise<{ appId: string; userId: string; token: string }> {
  const app = await A()('POST', '/api/applications', { name: uniqueName('app') });
  for (const role of roles) expect((await A()('POST', `/api/applications/${app.body.id}/roles/${role}`)).status).toBe(200);
  const key = await A()('POST', `/api/applications/${app.body.id}/accessKeys`);
  const token = await tokenFor(b.port, { keyId: key.body.id, keySecret: key.body.secret });
  const me = await as(token)('GET', '/api/token/userInfo');
  return { appId: app.body.id, userId: me.body.id, token };
}

async function definedWorkflow(): Promise<{ name: string; type: string }> {
  const name = uniqueName('authz_wf');
  const type = uniqueName('authz_task');
  expect((await A()('POST', '/api/metadata/taskdefs', [{ name: type, ownerEmail: 'a@b.c', responseTimeoutSeconds: 10 }])).status).toBe(200);
  expect((await A()('POST', '/api/metadata/workflowdef', { name, version: 1, tasks: [{ name: type, taskReferenceName: 't1', type: 'SIMPLE' }] })).status).toBe(
    200,
  );
  return { name, type };
}

describe('users, groups and grants', () => {
  test('users: upsert, get, list, delete; roles by Orkes name, groups by id', async () => {
    const group = uniqueName('g');
    expect((await A()('PUT', `/api/groups/${group}`, { description: 'team', roles: ['USER'] })).status).toBe(200);
    const id = `${uniqueName('u')}@example.com`;
    const put = await A()('PUT', `/api/users/${encodeURIComponent(id)}`, { name: 'Ann', roles: ['USER'], groups: [group] });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ id, name: 'Ann', roles: [{ name: 'USER' }], groups: [{ id: group, description: 'team' }] });
    // The JS SDK's types send one role as a string.
    expect((await A()('PUT', `/api/users/${encodeURIComponent(id)}`, { name: 'Ann B', roles: 'WORKER' })).body).toMatchObject({
      name: 'Ann B',
      roles: [{ name: 'WORKER' }],
      groups: [{ id: group }],
    });
    expect((await A()('GET', `/api/users/${encodeURIComponent(id)}`)).body).toMatchObject({ id, name: 'Ann B' });
    expect((await A()('GET', '/api/users')).body.map((u: { id: string }) => u.id)).toContain(id);
    expect((await A()('GET', `/api/groups/${group}/users`)).body.map((u: { id: string }) => u.id)).toEqual([id]);
    expect((await A()('DELETE', `/api/users/${encodeURIComponent(id)}`)).status).toBe(200);
    expect((await A()('GET', `/api/users/${encodeURIComponent(id)}`)).status).toBe(404);
    expect((await A()('DELETE', `/api/users/${encodeURIComponent(id)}`)).status).toBe(404);
  });

  test('groups: members added and removed one at a time or in a list; deleting a group ends its memberships', async () => {
    const g = uniqueName('grp');
    const [u1, u2] = [uniqueName('u1'), uniqueName('u2')];
    await A()('PUT', `/api/groups/${g}`, { description: 'd', defaultAccess: { WORKFLOW_DEF: ['READ'] } });
    for (const u of [u1, u2]) await A()('PUT', `/api/users/${u}`, { name: u });
    expect((await A()('POST', `/api/groups/${g}/users/${u1}`)).status).toBe(200);
    expect((await A()('POST', `/api/groups/${g}/users`, [u2])).status).toBe(200);
    expect((await A()('GET', `/api/groups/${g}/users`)).body.map((u: { id: string }) => u.id).sort()).toEqual([u1, u2].sort());
    expect((await A()('DELETE', `/api/groups/${g}/users`, [u2])).status).toBe(200);
    expect((await A()('DELETE', `/api/groups/${g}/users/${u1}`)).status).toBe(200);
    expect((await A()('GET', `/api/groups/${g}/users`)).body).toEqual([]);
    expect((await A()('GET', `/api/groups/${g}`)).body).toMatchObject({ id: g, description: 'd', defaultAccess: { WORKFLOW_DEF: ['READ'] } });
    await A()('POST', `/api/groups/${g}/users/${u1}`);
    expect((await A()('DELETE', `/api/groups/${g}`)).status).toBe(200);
    expect((await A()('GET', `/api/users/${u1}`)).body.groups).toEqual([]);
    expect((await A()('GET', `/api/groups/${g}`)).status).toBe(404);
  });

  test('grants: added to, listed per target, per user and per group, taken away access by access', async () => {
    const u = uniqueName('user');
    const g = uniqueName('group');
    await A()('PUT', `/api/users/${u}`, { name: u });
    await A()('PUT', `/api/groups/${g}`, { description: '' });
    const target = { type: 'WORKFLOW_DEF', id: uniqueName('wf') };
    expect((await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: ['READ'] })).status).toBe(200);
    expect((await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: ['EXECUTE'] })).status).toBe(200);
    expect((await A()('POST', '/api/auth/authorization', { subject: { type: 'GROUP', id: g }, target, access: ['READ', 'UPDATE'] })).status).toBe(200);
    expect((await A()('GET', `/api/auth/authorization/WORKFLOW_DEF/${target.id}`)).body).toEqual({
      READ: [
        { type: 'GROUP', id: g },
        { type: 'USER', id: u },
      ],
      EXECUTE: [{ type: 'USER', id: u }],
      UPDATE: [{ type: 'GROUP', id: g }],
    });
    expect((await A()('GET', `/api/users/${u}/permissions`)).body).toEqual({ grantedAccess: [{ target, access: ['READ', 'EXECUTE'] }] });
    expect((await A()('GET', `/api/groups/${g}/permissions`)).body).toEqual({ grantedAccess: [{ target, access: ['READ', 'UPDATE'] }] });
    expect((await A()('GET', `/api/users/${u}/checkPermissions?type=WORKFLOW_DEF&id=${target.id}`)).body).toEqual({
      CREATE: false,
      READ: true,
      UPDATE: false,
      EXECUTE: true,
      DELETE: false,
    });

    expect((await A()('DELETE', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: ['READ'] })).status).toBe(200);
    expect((await A()('GET', `/api/users/${u}/permissions`)).body).toEqual({ grantedAccess: [{ target, access: ['EXECUTE'] }] });
    await A()('DELETE', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: ['EXECUTE'] });
    expect((await A()('GET', `/api/auth/authorization/WORKFLOW_DEF/${target.id}`)).body).toEqual({
      READ: [{ type: 'GROUP', id: g }],
      UPDATE: [{ type: 'GROUP', id: g }],
    });
    // Every target type Orkes lists is stored, enforced or not.
    const tag = { type: 'TAG', id: 'team:payments' };
    expect((await A()('POST', '/api/auth/authorization', { subject: { type: 'GROUP', id: g }, target: tag, access: ['READ'] })).status).toBe(200);
    expect((await A()('GET', '/api/auth/authorization/TAG/team:payments')).body).toEqual({ READ: [{ type: 'GROUP', id: g }] });
  });

  test('bad input is a 400 or 404 with a JSON error body and changes nothing', async () => {
    const u = uniqueName('bad');
    await A()('PUT', `/api/users/${u}`, { name: u });
    const target = { type: 'WORKFLOW_DEF', id: uniqueName('wf') };
    const refused: Array<[string, string, unknown, number]> = [
      ['POST', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target: { type: 'NOPE', id: 'x' }, access: ['READ'] }, 400],
      ['POST', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: ['FLY'] }, 400],
      ['POST', '/api/auth/authorization', { subject: { type: 'USER', id: u }, target, access: [] }, 400],
      ['POST', '/api/auth/authorization', { target, access: ['READ'] }, 400],
      ['POST', '/api/auth/authorization', 'text', 400],
      ['POST', '/api/auth/authorization', { subject: { type: 'USER', id: uniqueName('ghost') }, target, access: ['READ'] }, 404],
      ['POST', '/api/auth/authorization', { subject: { type: 'GROUP', id: uniqueName('ghost') }, target, access: ['READ'] }, 404],
      ['POST', '/api/auth/authorization', { subject: { type: 'ROLE', id: 'KING' }, target, access: ['READ'] }, 400],
      ['PUT', `/api/users/${u}`, { name: 'x', roles: ['EMPEROR'] }, 400],
      ['PUT', `/api/users/${u}`, { name: 'x', groups: [uniqueName('ghost')] }, 400],
      ['PUT', `/api/users/${u}`, { name: 7 }, 400],
      ['PUT', `/api/groups/${uniqueName('g')}`, { description: 'd', defaultAccess: { NOPE: ['READ'] } }, 400],
      ['POST', `/api/groups/${uniqueName('ghost')}/users/${u}`, undefined, 404],
      ['GET', `/api/users/${u}/checkPermissions?type=NOPE&id=x`, undefined, 400],
      ['GET', `/api/users/${u}/checkPermissions?type=WORKFLOW_DEF`, undefined, 400],
      ['GET', `/api/auth/authorization/NOPE/x`, undefined, 400],
      ['GET', '/api/users?apps=-58800', undefined, 400],
    ];
    for (const [method, path, body, status] of refused) {
      const r = await A()(method, path, body);
      expect([method, path, r.status]).toEqual([method, path, status]);
      expect(r.body).toMatchObject({ status, message: expect.any(String) });
    }
    expect((await A()('GET', `/api/users/${u}`)).body).toMatchObject({ name: u, roles: [], groups: [] });
    expect((await A()('GET', `/api/auth/authorization/WORKFLOW_DEF/${target.id}`)).body).toEqual({});
    // The document says so too: the accesses of a target are a partial map.
    const doc = (await A()('GET', '/api-docs')).body;
    const answer = doc.paths['/api/auth/authorization/{type}/{id}'].get.responses['200'].content['application/json'].schema;
    expect(answer.required ?? []).toEqual([]);
    expect((await A()('GET', `/api/users/${u}/permissions`)).body).toEqual({ grantedAccess: [] });
  });

  test('only admins manage users, groups and grants', async () => {
    const m = await appWith(['METADATA_MANAGER', 'WORKFLOW_MANAGER']);
    for (const [method, path, body] of [
      ['GET', '/api/users'],
      ['PUT', `/api/users/${uniqueName('u')}`, { name: 'x' }],
      ['PUT', `/api/groups/${uniqueName('g')}`, { description: 'x' }],
      ['POST', '/api/auth/authorization', { subject: { type: 'USER', id: m.userId }, target: { type: 'WORKFLOW_DEF', id: 'x' }, access: ['READ'] }],
    ] as Array<[string, string, unknown?]>)
      expect((await as(m.token)(method, path, body)).status).toBe(403);
  });
});

describe('grants in the gate', () => {
  test('a workflow definition with a grant is started only by keys holding EXECUTE on it: hot path and express, granted, through a group, revoked', async () => {
    const wf = await definedWorkflow();
    const me = await appWith(['WORKFLOW_MANAGER']);
    const other = uniqueName('other');
    await A()('PUT', `/api/users/${other}`, { name: other });
    const starts = async (token: string): Promise<number[]> => [
      (await as(token)('POST', '/api/workflow', { name: wf.name })).status, // the hot path
      (await raw(b.port, 'POST', '/api/workflow', { token, body: { name: wf.name }, headers: { 'content-type': 'application/vnd.conductor+json' } })).status, // express
      (await as(token)('POST', `/api/workflow/${wf.name}`, {})).status,
      (await as(token)('POST', `/api/workflow/execute/${wf.name}/1?waitForSeconds=0`, {})).status,
    ];
    const target = { type: 'WORKFLOW_DEF', id: wf.name };

    // No grant names the definition: open to the key's role, as before grants.
    expect(await starts(me.token)).toEqual([200, 200, 200, 200]);
    await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: other }, target, access: ['EXECUTE'] });
    expect(await starts(me.token)).toEqual([403, 403, 403, 403]);
    const refused = await as(me.token)('POST', `/api/workflow/${wf.name}`, {});
    expect(refused.body).toMatchObject({ status: 403, error: 'ACCESS_DENIED', message: expect.stringContaining(`EXECUTE grant on WORKFLOW_DEF ${wf.name}`) });
    // Reading the definition is not granted either (READ), while an admin still passes.
    expect((await as(me.token)('GET', `/api/metadata/workflow/${wf.name}`)).status).toBe(403);
    expect(await starts(admin)).toEqual([200, 200, 200, 200]);

    await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: me.userId }, target, access: ['EXECUTE'] });
    expect(await starts(me.token)).toEqual([200, 200, 200, 200]);
    await A()('DELETE', '/api/auth/authorization', { subject: { type: 'USER', id: me.userId }, target, access: ['EXECUTE'] });
    expect(await starts(me.token)).toEqual([403, 403, 403, 403]);

    // Through a group the key's user belongs to.
    const g = uniqueName('starters');
    await A()('PUT', `/api/groups/${g}`, { description: '' });
    await A()('PUT', `/api/users/${me.userId}`, { name: 'the app', groups: [g] });
    await A()('POST', '/api/auth/authorization', { subject: { type: 'GROUP', id: g }, target, access: ['EXECUTE', 'READ'] });
    expect(await starts(me.token)).toEqual([200, 200, 200, 200]);
    expect((await as(me.token)('GET', `/api/metadata/workflow/${wf.name}`)).status).toBe(200);
    await A()('DELETE', `/api/groups/${g}/users/${me.userId}`);
    expect(await starts(me.token)).toEqual([403, 403, 403, 403]);

    // Through a role the key's application holds.
    await A()('POST', '/api/auth/authorization', { subject: { type: 'ROLE', id: 'WORKFLOW_MANAGER' }, target, access: ['EXECUTE'] });
    expect(await starts(me.token)).toEqual([200, 200, 200, 200]);
  });

  test('a task definition with a grant is polled only by workers holding EXECUTE on it: hot path and express', async () => {
    const wf = await definedWorkflow();
    const worker = await appWith(['WORKER']);
    const other = uniqueName('other');
    await A()('PUT', `/api/users/${other}`, { name: other });
    const polls = async (): Promise<number[]> => [
      (await as(worker.token)('GET', `/api/tasks/poll/batch/${wf.type}?count=1&timeout=0`)).status, // the hot path
      (await as(worker.token)('GET', `/api/tasks/poll/${wf.type}`)).status, // express
    ];
    const target = { type: 'TASK_DEF', id: wf.type };
    expect((await polls()).map((s) => s < 300)).toEqual([true, true]);
    await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: other }, target, access: ['EXECUTE'] });
    expect(await polls()).toEqual([403, 403]);
    // A task waiting for the type stays queued for a worker that may poll it.
    const id = (await A()('POST', '/api/workflow', { name: wf.name })).text;
    await A()('POST', '/api/auth/authorization', { subject: { type: 'USER', id: worker.userId }, target, access: ['EXECUTE'] });
    const polled = await as(worker.token)('GET', `/api/tasks/poll/batch/${wf.type}?count=1&timeout=1000`);
    expect(polled.status).toBe(200);
    expect(polled.body.map((t: { workflowInstanceId: string }) => t.workflowInstanceId)).toEqual([id]);
  });
});
