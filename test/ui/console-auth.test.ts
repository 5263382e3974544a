import type { Page } from 'playwright-core';
import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton } from '../support/auth-baton';
import { eventually } from '../support/baton';
import { screenshot, startBrowser, waitCount, waitText, type TestBrowser } from '../support/browser';

// With auth on, the console is served to anyone (it holds no data) and signs in with an
// application key; it then offers only what the key's roles allow.

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

async function keyWith(roles: string[]): Promise<{ keyId: string; keySecret: string }> {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: `ui_app_${roles.join('_')}_${Date.now()}` } });
  for (const role of roles) await raw(b.port, 'POST', `/api/applications/${app.body.id}/roles/${role}`, { token: admin });
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  return { keyId: key.body.id, keySecret: key.body.secret };
}

async function signIn(page: Page, key: { keyId: string; keySecret: string }): Promise<void> {
  await page.locator('input[name=keyId]').fill(key.keyId);
  await page.locator('input[name=keySecret]').fill(key.keySecret);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

it('serves the console without a token and keeps the API closed', async () => {
  const page = await raw(b.port, 'GET', '/executions');
  expect(page.status).toBe(200);
  expect(page.text).toContain('<div id="root">');
  expect((await raw(b.port, 'GET', '/api/workflow/search')).status).toBe(401);
});

it('refuses a wrong secret with the server message, signs in with a key, and offers only what its roles allow', async () => {
  const name = `ui_auth_${Date.now()}`;
  expect(
    (
      await raw(b.port, 'POST', '/api/metadata/workflowdef', {
        token: admin,
        body: { name, version: 1, schemaVersion: 2, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] },
      })
    ).status,
  ).toBe(200);
  const id = (await raw(b.port, 'POST', '/api/workflow', { token: admin, body: { name, input: {} } })).text;
  await eventually(
    async () =>
      (await raw(b.port, 'GET', `/api/workflow/search?size=0&query=${encodeURIComponent(`workflowType = '${name}'`)}`, { token: admin })).body.totalHits === 1,
  );

  const page = await browser.page();
  await page.goto(`${b.url}/executions/${id}`);
  await page.getByTestId('sign-in').waitFor();
  await signIn(page, { keyId: ADMIN_KEY.keyId, keySecret: 'not-the-secret-at-all' });
  await waitText(page.getByTestId('error'), 'Invalid access key id or secret');
  await screenshot(page, 'sign-in');

  // A read-only key sees the execution but no action.
  const reader = await keyWith(['READ_ONLY']);
  await signIn(page, reader);
  await waitText(page.getByTestId('who'), 'READ_ONLY');
  await page.locator('[data-testid=graph-node][data-node=w]').waitFor();
  await waitCount(page.getByTestId('actions'), 0);
  await page.goto(`${b.url}/executions?name=${name}`);
  await waitCount(page.getByTestId('execution-row'), 1);
  expect(await page.getByLabel(`Select ${id}`).isDisabled()).toBe(true);
  await page.goto(`${b.url}/queues`);
  await page.getByTestId('queues').waitFor();
  await waitCount(page.getByRole('button', { name: 'Requeue' }), 0);

  // Signing out forgets the token; a workflow manager may act.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByTestId('sign-in').waitFor();
  await signIn(page, await keyWith(['WORKFLOW_MANAGER']));
  await waitText(page.getByTestId('who'), 'WORKFLOW_MANAGER');
  await page.goto(`${b.url}/executions/${id}`);
  await page.getByTestId('actions').getByRole('button', { name: 'Pause', exact: true }).click();
  await page.getByTestId('confirm').click();
  await waitText(page.getByRole('heading', { level: 1 }), 'PAUSED');
  expect((await raw(b.port, 'GET', `/api/workflow/${id}`, { token: admin })).body.status).toBe('PAUSED');
});
