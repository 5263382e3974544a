import type { Page } from 'playwright-core';
import { startBaton, type TestBaton } from '../support/baton';
import { screenshot, startBrowser, waitAttr, waitCount, waitText, type TestBrowser } from '../support/browser';
import { ok, register, start, uniq, waitIndexed, workflow } from './console-fixtures';

// Batches by query from the console: "act on all N matches" from a search, confirmed with the match count, then the
// batch's page with its progress, its failures and its cancel.

jest.setTimeout(180_000);

let b: TestBaton;
let browser: TestBrowser;
let page: Page;

beforeAll(async () => {
  // Two executions a second: a batch of ten runs long enough to be cancelled from its page.
  b = await startBaton({ BATON_BATCH_BUDGET: '1', BATON_BATCH_INTERVAL_MS: '500' });
  browser = await startBrowser();
  page = await browser.page();
});

afterAll(async () => {
  await browser?.close();
  await b?.stop();
});

const open = (path: string) => page.goto(b.url + path);

async function executions(n: number): Promise<{ name: string; ids: string[] }> {
  const name = uniq('ui_batch');
  await register(b.url, { name, tasks: [{ name: uniq('ui_batch_task'), taskReferenceName: 'only', type: 'SIMPLE' }] });
  const ids: string[] = [];
  for (let i = 0; i < n; i++) ids.push(await start(b.url, name));
  await waitIndexed(b.url, `workflowType = '${name}'`, n);
  return { name, ids };
}

/** From the executions search of `name`, starts a batch of `action` over all matches; answers the batch id. */
async function actOnAll(name: string, count: number, action: string, title: string): Promise<string> {
  await open(`/executions?name=${name}`);
  await waitCount(page.locator('[data-testid=execution-row]'), count);
  const bar = page.getByTestId('batchbar');
  await bar.getByLabel('Action on all matches').selectOption(action);
  await bar.getByRole('button', { name: `Act on all ${count} matches…` }).click();
  await waitText(page.getByTestId('confirm-dialog'), title);
  await page.getByTestId('confirm').click();
  await page.waitForURL(/\/batches\/[^/]+$/);
  return decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
}

describe('batches by query in the console', () => {
  it('terminates all matches of a search after a confirmation naming their count, and shows the progress and failures', async () => {
    const { name, ids } = await executions(3);
    const id = await actOnAll(name, 3, 'terminate', 'Terminate all 3 matching executions?');
    await waitAttr(page.getByTestId('batch-state'), 'data-state', 'COMPLETED');
    await waitText(page.getByTestId('batch-progress'), '3 done, 0 failed, of 3 matched');
    for (const w of ids) expect((await workflow(b.url, w)).status).toBe('TERMINATED');
    await screenshot(page, 'batch-completed');

    // Pausing ended executions fails for each; the page lists them with the server's reason.
    const second = await actOnAll(name, 3, 'pause', 'Pause all 3 matching executions?');
    expect(second).not.toBe(id);
    await waitAttr(page.getByTestId('batch-state'), 'data-state', 'COMPLETED');
    await waitText(page.getByTestId('batch-progress'), '0 done, 3 failed, of 3 matched');
    await waitCount(page.locator('[data-testid=batch-failures] li'), 3);

    await open('/batches');
    await waitAttr(page.locator(`[data-testid=batch-row][data-id="${id}"] [data-status]`), 'data-status', 'COMPLETED');
    await waitCount(page.locator(`[data-testid=batch-row][data-id="${second}"]`), 1);
  });

  it('cancels a running batch from its page: it stops before its next execution', async () => {
    const { name, ids } = await executions(10);
    const id = await actOnAll(name, 10, 'pause', 'Pause all 10 matching executions?');
    await page.getByRole('button', { name: 'Cancel batch' }).click();
    await page.getByTestId('confirm').click();
    await waitAttr(page.getByTestId('batch-state'), 'data-state', 'CANCELLED');
    const batch = await ok(b.url, 'GET', `/api/batch/${id}`);
    expect(batch.done).toBeLessThan(10);
    // Exactly the executions the batch reports done were paused; the rest still run.
    const statuses = await Promise.all(ids.map(async (w) => (await workflow(b.url, w)).status));
    expect(statuses.filter((s) => s === 'PAUSED')).toHaveLength(batch.done);
    expect(statuses.filter((s) => s === 'RUNNING')).toHaveLength(10 - batch.done);
  });
});
