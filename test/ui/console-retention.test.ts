import type { Page } from 'playwright-core';
import { startBaton, type TestBaton } from '../support/baton';
import { startBrowser, waitText, type TestBrowser } from '../support/browser';
import { purgeAhead } from '../support/purge-ahead';
import { ok, register, start, uniq, waitForStatus } from './console-fixtures';

// The execution page shows the retention its definition asks for, and an archived execution
// read-only: marked archived, without the actions the server would refuse.

jest.setTimeout(180_000);

let b: TestBaton;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  b = await startBaton();
  browser = await startBrowser();
  page = await browser.page();
});

afterAll(async () => {
  await browser?.close();
  await b?.stop();
});

test('retention line, then the archived execution read-only', async () => {
  const name = uniq('ui_retention');
  await register(b.url, { name, tasks: [{ name: `${name}_task`, taskReferenceName: 'only', type: 'SIMPLE' }], retention: { days: 1, archive: true } });
  const id = await start(b.url, name, { n: 1 });
  await ok(b.url, 'DELETE', `/api/workflow/${id}?reason=done`);
  await waitForStatus(b.url, id, 'TERMINATED');

  await page.goto(`${b.url}/executions/${id}`);
  await waitText(page.locator('dl.facts'), '1 day after it ends, then archived');
  await page.getByTestId('actions').getByRole('button', { name: 'Retry', exact: true }).waitFor();

  const dataDir = b.dataDir;
  await b.stop();
  expect(await purgeAhead(dataDir, 2 * 86_400_000)).toMatchObject({ purged: 1, archived: 1 });
  b = await startBaton({ BATON_DATA_DIR: dataDir });

  await page.goto(`${b.url}/executions/${id}`);
  await waitText(page.getByTestId('archived'), 'Archived');
  await waitText(page.getByTestId('archived'), 'ended TERMINATED');
  await waitText(page.getByTestId('workflow-id'), id);
  expect(await page.getByTestId('actions').count()).toBe(0);
  expect(await page.locator('dl.facts').innerText()).not.toContain('Retention');
});
