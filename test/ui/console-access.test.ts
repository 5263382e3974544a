import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { screenshot, startBrowser, waitCount, waitExactText, waitText, type TestBrowser } from '../support/browser';

// The console's access page: an admin lists users and groups with their grants, adds a user, a group
// and a grant, and revokes and deletes them; puts a user in a group and takes it out; sets roles,
// built-in and custom; creates and deletes a custom role. What the page shows is what the API holds.

jest.setTimeout(180_000);

let b: AuthBaton;
let browser: TestBrowser;
let admin: string;

beforeAll(async () => {
  b = await startAuthBaton({ BATON_AUTH: 'on', BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId, BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret, LOG_LEVEL: 'warn' });
  browser = await startBrowser();
  admin = await tokenFor(b.port, ADMIN_KEY);
});

afterAll(async () => {
  await browser?.close();
  await b?.stop();
});

it('an admin adds a user, a group and a grant, sees them listed, then revokes and deletes them', async () => {
  const user = `ui_user_${Date.now()}`;
  const group = `ui_group_${Date.now()}`;
  const wf = `ui_wf_${Date.now()}`;
  const page = await browser.page();
  await page.goto(`${b.url}/access`);
  await page.locator('input[name=keyId]').fill(ADMIN_KEY.keyId);
  await page.locator('input[name=keySecret]').fill(ADMIN_KEY.keySecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('subjects').waitFor();

  const addSubject = page.getByTestId('add-subject');
  await addSubject.getByLabel('Id').fill(user);
  await addSubject.getByLabel('Name or description').fill('Ann');
  await addSubject.getByRole('button', { name: 'Save' }).click();
  await page.locator(`[data-subject="USER:${user}"]`).waitFor();
  await addSubject.getByLabel('Kind').selectOption('GROUP');
  await addSubject.getByLabel('Id').fill(group);
  await addSubject.getByRole('button', { name: 'Save' }).click();
  await page.locator(`[data-subject="GROUP:${group}"]`).waitFor();

  const addGrant = page.getByTestId('add-grant');
  await addGrant.getByLabel('Subject id').fill(user);
  await addGrant.getByLabel('Target id').fill(wf);
  await addGrant.getByLabel('EXECUTE').check();
  await addGrant.getByRole('button', { name: 'Grant' }).click();
  const userRow = page.locator(`[data-subject="USER:${user}"]`);
  await waitText(userRow.getByTestId('grant'), `READ, EXECUTE on WORKFLOW_DEF ${wf}`);
  await screenshot(page, 'access');
  expect((await raw(b.port, 'GET', `/api/auth/authorization/WORKFLOW_DEF/${wf}`, { token: admin })).body).toEqual({
    READ: [{ type: 'USER', id: user }],
    EXECUTE: [{ type: 'USER', id: user }],
  });

  await userRow.getByRole('button', { name: `Revoke WORKFLOW_DEF ${wf} from ${user}` }).click();
  await waitCount(userRow.getByTestId('grant'), 0);
  expect((await raw(b.port, 'GET', `/api/auth/authorization/WORKFLOW_DEF/${wf}`, { token: admin })).body).toEqual({});
  await page.getByRole('button', { name: `Delete ${group}` }).click();
  await waitCount(page.locator(`[data-subject="GROUP:${group}"]`), 0);
  expect((await raw(b.port, 'GET', `/api/groups/${group}`, { token: admin })).status).toBe(404);
});

it('an admin creates a custom role, puts a user in a group, sets their roles, then takes them away again', async () => {
  const user = `ui_member_${Date.now()}`;
  const group = `ui_team_${Date.now()}`;
  const role = `ui_role_${Date.now()}`;
  await raw(b.port, 'PUT', `/api/users/${user}`, { token: admin, body: { name: 'Bea' } });
  await raw(b.port, 'PUT', `/api/groups/${group}`, { token: admin, body: { description: 'team' } });
  const page = await browser.page();
  await page.goto(`${b.url}/access`);
  await page.locator('input[name=keyId]').fill(ADMIN_KEY.keyId);
  await page.locator('input[name=keySecret]').fill(ADMIN_KEY.keySecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const userRow = page.locator(`[data-subject="USER:${user}"]`);
  const groupRow = page.locator(`[data-subject="GROUP:${group}"]`);
  await groupRow.waitFor();

  const addRole = page.getByTestId('add-role');
  await addRole.getByLabel('Role name').fill(role);
  await addRole.getByLabel('EXECUTE_WORKFLOW_DEF', { exact: true }).check();
  await addRole.getByLabel('READ_WORKFLOW_DEF', { exact: true }).check();
  await addRole.getByRole('button', { name: 'Create role' }).click();
  const roleRow = page.locator(`[data-role="${role}"]`);
  await waitText(roleRow.getByTestId('permissions'), 'EXECUTE_WORKFLOW_DEF, READ_WORKFLOW_DEF');
  expect((await raw(b.port, 'GET', `/api/roles/${role}`, { token: admin })).body).toEqual({
    name: role,
    permissions: [{ name: 'EXECUTE_WORKFLOW_DEF' }, { name: 'READ_WORKFLOW_DEF' }],
  });

  // A built-in name is refused with the server's 400 shown, and no role is added.
  await addRole.getByLabel('Role name').fill('ADMIN');
  await addRole.getByRole('button', { name: 'Create role' }).click();
  await waitText(page.getByTestId('error'), '400');
  expect((await raw(b.port, 'GET', '/api/roles/custom', { token: admin })).body.map((r: { name: string }) => r.name)).toEqual([role]);
  await waitCount(page.getByTestId('custom-role'), 1);

  const addMember = page.getByTestId('add-member');
  await addMember.getByLabel('User').selectOption(user);
  await addMember.getByLabel('Group').selectOption(group);
  await addMember.getByRole('button', { name: 'Add to group' }).click();
  await waitText(userRow.getByTestId('membership'), group);

  const setRoles = page.getByTestId('set-roles');
  await setRoles.getByLabel('Holder').selectOption(`USER:${user}`);
  await setRoles.getByLabel(role, { exact: true }).check();
  await setRoles.getByRole('button', { name: 'Set roles' }).click();
  await waitExactText(userRow.getByTestId('roles'), role);
  await setRoles.getByLabel('Holder').selectOption(`GROUP:${group}`);
  await setRoles.getByLabel('METADATA_MANAGER', { exact: true }).check();
  await setRoles.getByRole('button', { name: 'Set roles' }).click();
  await waitText(groupRow.getByTestId('roles'), 'METADATA_MANAGER');
  await page.evaluate('window.scrollTo(0, 0)');
  await screenshot(page, 'access-roles');

  const held = (await raw(b.port, 'GET', `/api/users/${user}`, { token: admin })).body;
  expect(held.roles.map((r: { name: string }) => r.name)).toEqual([role]);
  expect(held.groups.map((g: { id: string }) => g.id)).toEqual([group]);
  expect((await raw(b.port, 'GET', `/api/groups/${group}/users`, { token: admin })).body.map((u: { id: string }) => u.id)).toEqual([user]);
  expect((await raw(b.port, 'GET', `/api/groups/${group}`, { token: admin })).body.roles).toEqual([{ name: 'METADATA_MANAGER', permissions: [] }]);

  await userRow.getByRole('button', { name: `Remove ${user} from ${group}` }).click();
  await waitCount(userRow.getByTestId('membership'), 0);
  expect((await raw(b.port, 'GET', `/api/users/${user}`, { token: admin })).body.groups).toEqual([]);
  expect((await raw(b.port, 'GET', `/api/groups/${group}/users`, { token: admin })).body).toEqual([]);

  await roleRow.getByRole('button', { name: `Delete role ${role}` }).click();
  await waitCount(roleRow, 0);
  await waitExactText(userRow.getByTestId('roles'), '');
  expect((await raw(b.port, 'GET', `/api/users/${user}`, { token: admin })).body.roles).toEqual([]);
  expect((await raw(b.port, 'GET', `/api/roles/${role}`, { token: admin })).status).toBe(404);
});

it('a key without ADMIN is not offered the page', async () => {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: `ui_reader_${Date.now()}` } });
  await raw(b.port, 'POST', `/api/applications/${app.body.id}/roles/READ_ONLY`, { token: admin });
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  const page = await browser.page();
  await page.goto(`${b.url}/executions`);
  await page.locator('input[name=keyId]').fill(key.body.id);
  await page.locator('input[name=keySecret]').fill(key.body.secret);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await waitText(page.getByTestId('who'), 'READ_ONLY');
  await waitCount(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Access' }), 0);
  await waitCount(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queues' }), 1);
});
