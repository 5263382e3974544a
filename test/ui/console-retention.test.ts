import { startBaton } from '../support/baton';
import { waitText } from '../support/browser';
import { purgeAhead } from '../support/purge-ahead';
import { consoleSession, ok, register, start, uniq, waitForStatus } from './console-fixtures';

// The execution page shows the retention its definition asks for, and an archived execution
// read-only: marked archived, without the actions the server would refuse.

const ui = consoleSession();

test('retention line, then the archived execution read-only', async () => {
  const name = uniq('ui_retention');
  await register(ui.b.url, { name, tasks: [{ name: `${name}_task`, taskReferenceName: 'only', type: 'SIMPLE' }], retention: { days: 1, archive: true } });
  const id = await start(ui.b.url, name, { n: 1 });
  await ok(ui.b.url, 'DELETE', `/api/workflow/${id}?reason=done`);
  await waitForStatus(ui.b.url, id, 'TERMINATED');

  await ui.page.goto(`${ui.b.url}/executions/${id}`);
  await waitText(ui.page.locator('dl.facts'), '1 day after it ends, then archived');
  await ui.page.getByTestId('actions').getByRole('button', { name: 'Retry', exact: true }).waitFor();

  const dataDir = ui.b.dataDir;
  await ui.b.stop();
  expect(await purgeAhead(dataDir, 2 * 86_400_000)).toMatchObject({ purged: 1, archived: 1 });
  ui.b = await startBaton({ BATON_DATA_DIR: dataDir });

  await ui.page.goto(`${ui.b.url}/executions/${id}`);
  await waitText(ui.page.getByTestId('archived'), 'Archived');
  await waitText(ui.page.getByTestId('archived'), 'ended TERMINATED');
  await waitText(ui.page.getByTestId('workflow-id'), id);
  expect(await ui.page.getByTestId('actions').count()).toBe(0);
  expect(await ui.page.locator('dl.facts').innerText()).not.toContain('Retention');
});
