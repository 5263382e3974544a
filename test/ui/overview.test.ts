import type { Page } from 'playwright-core';
import { startBaton, type TestBaton } from '../support/baton';
import { screenshot, startBrowser, waitCount, type TestBrowser } from '../support/browser';
import { ok, register, start, uniq, waitIndexed } from './console-fixtures';

// The overview page in a real headless Chromium against a real embedded Baton: its charts are drawn
// (chart.js, loaded with the view) and its tables hold the numbers of the executions this test ran.

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

/** Polls one task of `type` and ends it with `status`. */
async function work(type: string, status: 'COMPLETED' | 'FAILED'): Promise<void> {
  const task = await ok<{ taskId: string; workflowInstanceId: string }>(b.url, 'GET', `/api/tasks/poll/${type}?workerid=ui`);
  await ok(b.url, 'POST', '/api/tasks', {
    workflowInstanceId: task.workflowInstanceId,
    taskId: task.taskId,
    status,
    outputData: {},
    reasonForIncompletion: 'no',
  });
}

const cells = async (testId: string, name: string): Promise<string[]> => {
  const row = page.locator(`[data-testid=${testId}-row][data-name="${name}"]`);
  await waitCount(row, 1);
  return (await row.locator('td').allTextContents()).map((s) => s.trim());
};

it('draws the last hour as charts, with the numbers of the executions started here in its tables', async () => {
  const name = uniq('ui_overview');
  const type = uniq('ui_overview_task');
  await ok(b.url, 'POST', '/api/metadata/taskdefs', [{ name: type, retryCount: 0, ownerEmail: 'ui@example.com' }]);
  await register(b.url, { name, tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE' }] });
  for (let i = 0; i < 4; i++) await start(b.url, name, { i });
  await work(type, 'COMPLETED');
  await work(type, 'COMPLETED');
  await work(type, 'FAILED');
  await waitIndexed(b.url, `workflowType = '${name}' AND status = COMPLETED`, 2);
  await waitIndexed(b.url, `workflowType = '${name}' AND status = FAILED`, 1);

  await page.goto(`${b.url}/overview`);
  expect(await cells('series', name)).toEqual([name, '4', '2', '1']);
  expect(await cells('failing', name)).toEqual([name, '1', '3']);
  expect((await cells('slowest', name)).slice(0, 2)).toEqual([name, '2']);
  expect(await cells('queue-depths', type)).toEqual([type, '1']);
  expect((await cells('task-waits', type)).slice(0, 2)).toEqual([type, '3']);

  // Every chart has drawn something: some pixel of each canvas is not blank.
  const charts = page.locator('canvas[data-testid^=chart-]');
  await waitCount(charts, 7);
  // The canvas as the page sees it (this file is compiled without the DOM's types).
  interface Canvas {
    width: number;
    height: number;
    dataset: Record<string, string>;
    getContext(kind: '2d'): { getImageData(x: number, y: number, w: number, h: number): { data: ArrayLike<number> } };
  }
  const drawn = await charts.evaluateAll((nodes) =>
    (nodes as unknown as Canvas[]).map((c) => {
      const { data } = c.getContext('2d').getImageData(0, 0, c.width, c.height);
      let painted = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i]! > 0) painted++;
      return { chart: c.dataset.testid, width: c.width, painted: painted > 0 };
    }),
  );
  expect(drawn.filter((d) => d.width === 0 || !d.painted)).toEqual([]);
  expect(await page.getByRole('img', { name: 'Executions started per minute by workflow name' }).count()).toBe(1);
  await screenshot(page, 'overview');
});
