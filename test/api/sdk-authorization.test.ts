import {
  ApplicationClient,
  AuthorizationClient,
  MetadataClient,
  OrkesClients,
  WorkflowExecutor,
  orkesConductorClient,
  simpleTask,
  workflow,
} from '@io-orkes/conductor-javascript';
import { ADMIN_KEY, startAuthBaton, type AuthBaton } from '../support/auth-baton';
import { quietLogger, rejectionOf, uniqueName, type SdkClient } from '../support/sdk';

// The official JS SDK (4.0.0), unchanged, drives Orkes' authorization API (its AuthorizationClient,
// which holds the SDK's user, group and permission calls) against Baton with auth on, and a grant
// made through it decides what another application's key may start.

const SDK_ENV = ['CONDUCTOR_SERVER_URL', 'CONDUCTOR_AUTH_KEY', 'CONDUCTOR_AUTH_SECRET', 'CONDUCTOR_REFRESH_TOKEN_INTERVAL'];

let b: AuthBaton;
const clients: SdkClient[] = [];

async function client(key: { keyId: string; keySecret: string }): Promise<SdkClient> {
  const c = await orkesConductorClient({ serverUrl: b.url, logger: quietLogger, ...key });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  for (const k of SDK_ENV) delete process.env[k];
  b = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret });
});
afterAll(async () => {
  for (const c of clients) c.stopBackgroundRefresh();
  await b?.stop();
});

test('AuthorizationClient manages users, groups, members and grants with the SDK’s own calls', async () => {
  const authz = new OrkesClients(await client(ADMIN_KEY)).getAuthorizationClient();
  const [user, user2, group, wf] = [uniqueName('sdk_user'), uniqueName('sdk_user2'), uniqueName('sdk_group'), uniqueName('sdk_wf')];

  expect(await authz.upsertUser(user, { name: 'Test User', roles: 'USER' })).toMatchObject({ id: user, name: 'Test User', roles: [{ name: 'USER' }] });
  await authz.upsertUser(user2, { name: 'Second', roles: 'WORKER' });
  expect(await authz.getUser(user)).toMatchObject({ id: user, name: 'Test User' });
  expect((await authz.listUsers()).map((u) => u.id)).toEqual(expect.arrayContaining([user, user2]));
  expect(await authz.upsertUser(user, { name: 'Updated', roles: 'USER' })).toMatchObject({ name: 'Updated' });

  expect(await authz.upsertGroup(group, { description: 'sdk group', roles: 'USER' })).toMatchObject({ id: group, description: 'sdk group' });
  expect(await authz.getGroup(group)).toMatchObject({ id: group, roles: [{ name: 'USER' }] });
  expect((await authz.listGroups()).map((g) => g.id)).toContain(group);
  await authz.addUserToGroup(group, user);
  await authz.addUsersToGroup(group, [user2]);
  expect((await authz.getUsersInGroup(group)).map((u) => u.id).sort()).toEqual([user, user2].sort());
  await authz.removeUserFromGroup(group, user2);
  expect((await authz.getUsersInGroup(group)).map((u) => u.id)).toEqual([user]);
  await authz.removeUsersFromGroup(group, [user]);
  expect(await authz.getUsersInGroup(group)).toEqual([]);

  const target = { type: 'WORKFLOW_DEF' as const, id: wf as never };
  await authz.grantPermissions({ subject: { type: 'USER', id: user }, target, access: ['READ', 'EXECUTE'] });
  await authz.grantPermissions({ subject: { type: 'GROUP', id: group }, target, access: ['READ'] });
  expect(await authz.getPermissions('WORKFLOW_DEF', wf)).toEqual({
    READ: [
      { type: 'GROUP', id: group },
      { type: 'USER', id: user },
    ],
    EXECUTE: [{ type: 'USER', id: user }],
  });
  expect(await authz.checkPermissions(user, 'WORKFLOW_DEF', wf)).toMatchObject({ READ: true, EXECUTE: true, DELETE: false });
  expect(await authz.getGrantedPermissionsForUser(user)).toEqual({
    grantedAccess: [{ target: { type: 'WORKFLOW_DEF', id: wf }, access: ['READ', 'EXECUTE'] }],
  });
  expect(await authz.getGrantedPermissionsForGroup(group)).toEqual({ grantedAccess: [{ target: { type: 'WORKFLOW_DEF', id: wf }, access: ['READ'] }] });
  await authz.removePermissions({ subject: { type: 'USER', id: user }, target, access: ['READ', 'EXECUTE'] });
  expect(await authz.getPermissions('WORKFLOW_DEF', wf)).toEqual({ READ: [{ type: 'GROUP', id: group }] });

  await authz.deleteGroup(group);
  await authz.deleteUser(user);
  await authz.deleteUser(user2);
  expect((await rejectionOf(authz.getUser(user)))?.message).toMatch(/No such user/);
  expect((await rejectionOf(authz.getGroup(group)))?.message).toMatch(/No such group/);
  expect(await rejectionOf(authz.deleteUser(uniqueName('nobody')))).toMatchObject({ message: expect.stringMatching(/No such user/) });
  const temp = uniqueName('sdk_temp');
  await authz.upsertGroup(temp, { description: 'temp', roles: 'USER' });
  expect((await rejectionOf(authz.addUserToGroup(temp, uniqueName('nobody'))))?.message).toMatch(/No such user/);
  expect((await rejectionOf(authz.getUsersInGroup(uniqueName('nogroup'))))?.message).toMatch(/No such group/);
});

test('a grant made through the SDK decides which application key may start a workflow; Orkes role USER on an application', async () => {
  const admin = await client(ADMIN_KEY);
  const apps = new ApplicationClient(admin);
  const authz = new AuthorizationClient(admin);
  const app = await apps.createApplication(uniqueName('sdk_starter'));
  await apps.addApplicationRole(app.id, 'USER');
  expect(((await apps.getApplication(app.id)) as unknown as { roles: string[] }).roles).toEqual(['METADATA_MANAGER', 'WORKFLOW_MANAGER']);
  const key = await apps.createAccessKey(app.id);
  const starter = new WorkflowExecutor(await client({ keyId: key.id, keySecret: key.secret }));

  const name = uniqueName('sdk_granted_wf');
  await new MetadataClient(admin).registerWorkflowDef(workflow(name, [simpleTask('only', uniqueName('sdk_granted_task'), {})]));
  expect(await starter.startWorkflow({ name, version: 1, input: {} })).toEqual(expect.any(String));

  const someone = uniqueName('someone');
  await authz.upsertUser(someone, { name: someone });
  const target = { type: 'WORKFLOW_DEF' as const, id: name as never };
  await authz.grantPermissions({ subject: { type: 'USER', id: someone }, target, access: ['EXECUTE'] });
  expect((await rejectionOf(starter.startWorkflow({ name, version: 1, input: {} })))?.message).toMatch(/no EXECUTE grant on WORKFLOW_DEF/);
  await authz.grantPermissions({ subject: { type: 'USER', id: `app:${app.id}` }, target, access: ['EXECUTE'] });
  expect(await starter.startWorkflow({ name, version: 1, input: {} })).toEqual(expect.any(String));
});
