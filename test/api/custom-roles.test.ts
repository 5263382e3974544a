import { ADMIN_KEY, requestsAs, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// Orkes' custom roles (/api/roles) over real HTTP with auth on: the API as the Python SDK calls it,
// system roles kept from change, bad input refused with nothing changed, and a custom role held by
// a key's user or its group giving that key the role's permissions in the gate.

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

async function appWith(roles: string[]): Promise<{ userId: string; token: string }> {
  const app = await A()('POST', '/api/applications', { name: uniqueName('app') });
  for (const role of roles) expect((await A()('POST', `/api/applications/${app.body.id}/roles/${role}`)).status).toBe(200);
  const key = await A()('POST', `/api/applications/${app.body.id}/accessKeys`);
  const token = await tokenFor(b.port, { keyId: key.body.id, keySecret: key.body.secret });
  return { userId: (await as(token)('GET', '/api/token/userInfo')).body.id, token };
}

async function definedWorkflow(): Promise<string> {
  const name = uniqueName('roles_wf');
  const def = { name, version: 1, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] };
  expect((await A()('POST', '/api/metadata/workflowdef', def)).status).toBe(200);
  return name;
}

describe('custom roles: the API', () => {
  test('system roles listed; a custom role created, read, listed, updated and deleted as the Python SDK does', async () => {
    const system = await A()('GET', '/api/roles/system');
    expect(Object.keys(system.body)).toEqual(expect.arrayContaining(['USER', 'ADMIN', 'METADATA_MANAGER', 'WORKFLOW_MANAGER', 'WORKER']));
    expect(system.body.WORKER.permissions.map((p: { name: string }) => p.name)).toEqual(['EXECUTE_TASK_DEF', 'UPDATE_TASK_ID', 'EXECUTE_TASK_ID']);
    const perms = (await A()('GET', '/api/roles/permissions')).body;
    expect(perms.WORKFLOW_DEF).toEqual(['CREATE_WORKFLOW_DEF', 'READ_WORKFLOW_DEF', 'UPDATE_WORKFLOW_DEF', 'DELETE_WORKFLOW_DEF', 'EXECUTE_WORKFLOW_DEF']);

    const name = uniqueName('TEST_ROLE');
    const created = await A()('POST', '/api/roles', { name, permissions: ['READ_WORKFLOW_DEF'] });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ name, permissions: [{ name: 'READ_WORKFLOW_DEF' }] });
    expect((await A()('GET', `/api/roles/${name}`)).body).toEqual(created.body);
    expect((await A()('GET', '/api/roles/custom')).body).toContainEqual(created.body);
    const all = (await A()('GET', '/api/roles')).body.map((r: { name: string }) => r.name);
    expect(all).toEqual(expect.arrayContaining(['ADMIN', 'USER', name]));

    const updated = await A()('PUT', `/api/roles/${name}`, { name, permissions: ['READ_WORKFLOW_DEF', 'EXECUTE_WORKFLOW_DEF'] });
    expect(updated.body).toEqual({ name, permissions: [{ name: 'READ_WORKFLOW_DEF' }, { name: 'EXECUTE_WORKFLOW_DEF' }] });
    expect((await A()('GET', `/api/roles/${name}`)).body).toEqual(updated.body);

    expect((await A()('DELETE', `/api/roles/${name}`)).status).toBe(200);
    expect((await A()('GET', `/api/roles/${name}`)).status).toBe(404);
    expect((await A()('GET', '/api/roles/custom')).body.map((r: { name: string }) => r.name)).not.toContain(name);
  });

  test('system role names cannot be created, changed or deleted; bad input is a 4xx with a JSON body and changes nothing', async () => {
    const name = uniqueName('kept');
    await A()('POST', '/api/roles', { name, permissions: ['READ_WORKFLOW'] });
    const refused: Array<[string, string, unknown, number, string?]> = [
      ['POST', '/api/roles', { name: 'ADMIN', permissions: [] }, 400, 'ROLE_BUILT_IN'],
      ['POST', '/api/roles', { name: 'READ_ONLY', permissions: ['READ_WORKFLOW'] }, 400, 'ROLE_BUILT_IN'],
      ['PUT', '/api/roles/USER', { permissions: ['READ_WORKFLOW'] }, 400, 'ROLE_BUILT_IN'],
      ['DELETE', '/api/roles/WORKER', undefined, 400, 'ROLE_BUILT_IN'],
      ['POST', '/api/roles', { name, permissions: [] }, 409, 'ROLE_EXISTS'],
      ['POST', '/api/roles', { name: uniqueName('r'), permissions: ['workflow-read'] }, 400, 'ROLE_PERMISSION_UNKNOWN'],
      ['PUT', `/api/roles/${name}`, { permissions: ['READ_WORKFLOW', 'FLY_WORKFLOW'] }, 400, 'ROLE_PERMISSION_UNKNOWN'],
      ['POST', '/api/roles', { permissions: [] }, 400],
      ['POST', '/api/roles', { name: uniqueName('r'), permissions: 'READ_WORKFLOW' }, 400],
      ['POST', '/api/roles', 'text', 400],
      ['PUT', `/api/roles/${uniqueName('ghost')}`, { permissions: [] }, 404, 'ROLE_NOT_FOUND'],
      ['DELETE', `/api/roles/${uniqueName('ghost')}`, undefined, 404, 'ROLE_NOT_FOUND'],
      ['PUT', `/api/users/${uniqueName('u')}`, { roles: [uniqueName('ghost_role')] }, 400, 'ROLE_UNKNOWN'],
    ];
    for (const [method, path, body, status, code] of refused) {
      const r = await A()(method, path, body);
      expect([method, path, r.status]).toEqual([method, path, status]);
      expect(r.body).toMatchObject({ status, message: expect.any(String), ...(code ? { code } : {}) });
    }
    expect((await A()('GET', `/api/roles/${name}`)).body).toEqual({ name, permissions: [{ name: 'READ_WORKFLOW' }] });
    expect((await A()('GET', '/api/roles/system')).body.ADMIN).toBeDefined();
    const m = await appWith(['METADATA_MANAGER', 'WORKFLOW_MANAGER']);
    expect((await as(m.token)('POST', '/api/roles', { name: uniqueName('r'), permissions: [] })).status).toBe(403);
    expect((await as(m.token)('GET', '/api/roles')).status).toBe(403);
  });
});

describe('custom roles in the gate', () => {
  test('a key whose user holds a custom role gets its permissions; through a group too; gone with the role', async () => {
    const wf = await definedWorkflow();
    const me = await appWith([]);
    const read = async () => (await as(me.token)('GET', `/api/metadata/workflow/${wf}`)).status;
    const start = async () => (await as(me.token)('POST', `/api/workflow/${wf}`, {})).status;
    expect([await read(), await start()]).toEqual([403, 403]);

    const reader = uniqueName('reader');
    await A()('POST', '/api/roles', { name: reader, permissions: ['READ_WORKFLOW_DEF'] });
    expect((await A()('PUT', `/api/users/${me.userId}`, { name: 'the app', roles: [reader] })).body.roles).toEqual([{ name: reader, permissions: [] }]);
    expect([await read(), await start()]).toEqual([200, 403]);
    // What the role holds changes what the key may do.
    await A()('PUT', `/api/roles/${reader}`, { permissions: ['READ_WORKFLOW_DEF', 'EXECUTE_WORKFLOW_DEF'] });
    expect([await read(), await start()]).toEqual([200, 200]);

    // Through a group the key's user belongs to.
    const starter = uniqueName('starter');
    await A()('POST', '/api/roles', { name: starter, permissions: ['EXECUTE_WORKFLOW_DEF'] });
    const g = uniqueName('grp');
    await A()('PUT', `/api/groups/${g}`, { description: '', roles: [starter] });
    await A()('PUT', `/api/users/${me.userId}`, { roles: [], groups: [g] });
    expect([await read(), await start()]).toEqual([403, 200]);

    // Deleting the role takes it from the group.
    expect((await A()('DELETE', `/api/roles/${starter}`)).status).toBe(200);
    expect((await A()('GET', `/api/groups/${g}`)).body.roles).toEqual([]);
    expect([await read(), await start()]).toEqual([403, 403]);
  });

  test('an application given a custom role (POST /api/applications/{id}/roles/{role}) holds it through its user; taken away, gone', async () => {
    const wf = await definedWorkflow();
    const role = uniqueName('app_reader');
    await A()('POST', '/api/roles', { name: role, permissions: ['READ_WORKFLOW_DEF'] });
    const app = await A()('POST', '/api/applications', { name: uniqueName('app') });
    const key = await A()('POST', `/api/applications/${app.body.id}/accessKeys`);
    const token = await tokenFor(b.port, { keyId: key.body.id, keySecret: key.body.secret });
    const read = async () => (await as(token)('GET', `/api/metadata/workflow/${wf}`)).status;
    expect(await read()).toBe(403);
    expect((await A()('POST', `/api/applications/${app.body.id}/roles/${role}`)).status).toBe(200);
    expect(await read()).toBe(200);
    expect((await A()('GET', `/api/users/app:${app.body.id}`)).body.roles).toEqual([{ name: role, permissions: [] }]);
    expect((await A()('DELETE', `/api/applications/${app.body.id}/roles/${role}`)).status).toBe(200);
    expect(await read()).toBe(403);
    // Unknown names and applications are refused and change nothing.
    expect((await A()('POST', `/api/applications/${app.body.id}/roles/${uniqueName('ghost')}`)).body).toMatchObject({ status: 400, code: 'ROLE_UNKNOWN' });
    expect((await A()('POST', `/api/applications/${uniqueName('ghost')}/roles/${role}`)).status).toBe(404);
    expect((await A()('GET', `/api/users/app:${app.body.id}`)).body.roles).toEqual([]);
  });

  test('a grant to a custom role admits the keys holding it, and only them, on that target', async () => {
    const wf = await definedWorkflow();
    const holder = await appWith(['WORKFLOW_MANAGER']);
    const other = await appWith(['WORKFLOW_MANAGER']);
    const role = uniqueName('wf_runner');
    await A()('POST', '/api/roles', { name: role, permissions: [] });
    await A()('PUT', `/api/users/${holder.userId}`, { roles: [role] });
    const target = { type: 'WORKFLOW_DEF', id: wf };
    expect((await A()('POST', '/api/auth/authorization', { subject: { type: 'ROLE', id: role }, target, access: ['EXECUTE'] })).status).toBe(200);
    expect((await as(holder.token)('POST', `/api/workflow/${wf}`, {})).status).toBe(200);
    expect((await as(other.token)('POST', `/api/workflow/${wf}`, {})).status).toBe(403);
    expect((await A()('GET', `/api/users/${holder.userId}/checkPermissions?type=WORKFLOW_DEF&id=${wf}`)).body).toMatchObject({ EXECUTE: true });
    // Deleting the role drops its grants.
    await A()('DELETE', `/api/roles/${role}`);
    expect((await A()('GET', `/api/auth/authorization/WORKFLOW_DEF/${wf}`)).body).toEqual({});
  });
});
