import { call, eventually } from '../support/baton';
import { screenshot, waitAttr, waitCount, waitExactText, waitText } from '../support/browser';
import { consoleSession, controlFlowWorkflows, ok, register, start, uniq, waitForStatus, waitIndexed, workflow } from './console-fixtures';

// The operator console in a real headless Chromium against a real embedded Baton: it is served at
// `/`, searches and pages executions, draws an execution's graph with its tasks' statuses, and its
// actions reach the server. Screenshots of each view go to docs/ui with SAVE_UI_SCREENSHOTS=1.

const ui = consoleSession();

const open = async (path: string): Promise<void> => {
  await ui.page.goto(ui.b.url + path);
};
const node = (ref: string) => ui.page.locator(`[data-testid=graph] [data-testid=graph-node][data-node="${ref}"]`);

describe('serving', () => {
  it('answers the console at / and at client routes, hashed assets immutable, the API untouched', async () => {
    const root = await fetch(ui.b.url + '/');
    expect(root.status).toBe(200);
    expect(root.headers.get('cache-control')).toBe('no-cache');
    const html = await root.text();
    expect(html).toContain('<div id="root">');
    const asset = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const js = await fetch(ui.b.url + asset);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(ui.b.url + '/assets/no-such-file.js')).status).toBe(404);
    const deep = await fetch(ui.b.url + '/executions/some-id?task=x');
    expect(deep.status).toBe(200);
    expect(await deep.text()).toBe(html);
    const api = await call(ui.b.url, 'GET', '/api/no-such-route');
    expect(api.status).toBe(404);
    expect(api.contentType).toContain('application/json');
  });
});

describe('executions', () => {
  it('searches by name and correlation id, pages server-side, counts by status, and sorts', async () => {
    const name = uniq('ui_search');
    const type = uniq('ui_search_task');
    await register(ui.b.url, { name, tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE' }] });
    for (let i = 0; i < 23; i++) await start(ui.b.url, name, { i }, { correlationId: `corr-${i}` });
    const done = await start(ui.b.url, name, { i: 99 }, { correlationId: 'corr-terminated' });
    await ok(ui.b.url, 'DELETE', `/api/workflow/${done}?reason=test`);
    await waitIndexed(ui.b.url, `workflowType = '${name}'`, 24);
    await waitIndexed(ui.b.url, `workflowType = '${name}' AND status = TERMINATED`, 1);

    await open(`/executions?name=${name}&size=10`);
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 10);
    await ui.page.getByTestId('page-info').filter({ hasText: 'Page 1 of 3 · 24 executions' }).waitFor();
    await ui.page.getByTestId('count-RUNNING').filter({ hasText: '23' }).waitFor();
    await ui.page.getByTestId('count-TERMINATED').filter({ hasText: '1' }).waitFor();
    await screenshot(ui.page, 'executions');

    await ui.page.getByRole('button', { name: 'Next ›' }).click();
    await ui.page.getByTestId('page-info').filter({ hasText: 'Page 2 of 3' }).waitFor();
    expect(new URL(ui.page.url()).searchParams.get('page')).toBe('1');
    await ui.page.getByRole('button', { name: 'Next ›' }).click();
    await ui.page.getByTestId('page-info').filter({ hasText: 'Page 3 of 3' }).waitFor();
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 4);

    // The status count filters, and the URL holds the filter.
    await ui.page.getByTestId('count-TERMINATED').click();
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 1);
    expect(new URL(ui.page.url()).searchParams.get('status')).toBe('TERMINATED');
    await waitCount(ui.page.locator(`[data-testid=execution-row][data-id="${done}"]`), 1);

    // Correlation id, through the form.
    await open(`/executions?name=${name}`);
    await ui.page.locator('input[name=correlationId]').fill('corr-7');
    await ui.page.getByRole('button', { name: 'Search' }).click();
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 1);
    expect(new URL(ui.page.url()).searchParams.get('correlationId')).toBe('corr-7');

    // The query syntax the API accepts, and its refusal shown as the server words it.
    await open(`/executions?name=${name}&query=${encodeURIComponent("correlationId IN ('corr-1','corr-2')")}`);
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 2);
    await open(`/executions?query=${encodeURIComponent('nosuchfield = 1')}`);
    await ui.page.getByTestId('error').filter({ hasText: 'nosuchfield' }).waitFor();

    // Sort by correlation id ascending, from the column header.
    await open(`/executions?name=${name}&size=10`);
    await ui.page.getByRole('button', { name: /Correlation id/ }).click();
    await ui.page.waitForURL(/sort=correlationId%3ADESC|sort=correlationId:DESC/);
    await ui.page.getByRole('button', { name: /Correlation id/ }).click();
    await ui.page.waitForURL(/sort=correlationId%3AASC|sort=correlationId:ASC/);
    await waitText(ui.page.locator('[data-testid=execution-row]').first(), 'corr-0');
  });

  it('runs bulk actions on a selection and shows what the server refused', async () => {
    const name = uniq('ui_bulk');
    await register(ui.b.url, { name, tasks: [{ name: uniq('ui_bulk_task'), taskReferenceName: 'work', type: 'SIMPLE' }] });
    const ids = [await start(ui.b.url, name), await start(ui.b.url, name), await start(ui.b.url, name)];
    await waitIndexed(ui.b.url, `workflowType = '${name}'`, 3);
    await open(`/executions?name=${name}`);
    await waitCount(ui.page.locator('[data-testid=execution-row]'), 3);
    await ui.page.getByLabel('Select all on this page').check();
    await ui.page.getByTestId('bulkbar').getByRole('button', { name: 'Pause' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('bulk-result').filter({ hasText: 'Pause: 3 done' }).waitFor();
    for (const id of ids) expect((await workflow(ui.b.url, id)).status).toBe('PAUSED');

    await ui.page.getByLabel(`Select ${ids[0]}`).check();
    await ui.page.getByTestId('bulkbar').getByRole('button', { name: 'Terminate' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('bulk-result').filter({ hasText: 'Terminate: 1 done' }).waitFor();
    expect((await workflow(ui.b.url, ids[0]!)).status).toBe('TERMINATED');

    // Resuming a terminated execution is refused by the server, per id.
    await ui.page.getByLabel(`Select ${ids[0]}`).check();
    await ui.page.getByLabel(`Select ${ids[1]}`).check();
    await ui.page.getByTestId('bulkbar').getByRole('button', { name: 'Resume' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('bulk-result').filter({ hasText: '1 refused' }).waitFor();
    expect((await workflow(ui.b.url, ids[1]!)).status).toBe('RUNNING');

    await ui.page.getByLabel('Select all on this page').check();
    await ui.page.getByTestId('bulkbar').getByRole('button', { name: 'Remove' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('bulk-result').filter({ hasText: 'Remove: 3 done' }).waitFor();
    for (const id of ids) expect((await call(ui.b.url, 'GET', `/api/workflow/${id}`)).status).toBe(404);
  });
});

describe('one execution', () => {
  it('draws the graph with FORK/JOIN, SWITCH, DO_WHILE, a dynamic fork and SUB_WORKFLOW, coloured by status, and follows the sub-workflow', async () => {
    const { parent, child } = await controlFlowWorkflows(ui.b.url);
    const id = await start(ui.b.url, parent, { choice: 'b' });
    const w = await eventually(async () => {
      const x = await workflow(ui.b.url, id);
      return x.tasks.find((t: any) => t.referenceTaskName === 'sub' && t.subWorkflowId) ? x : undefined;
    }, 60_000);
    const subId = w.tasks.find((t: any) => t.referenceTaskName === 'sub').subWorkflowId;

    await open(`/executions/${id}`);
    const expected: Record<string, string> = {
      fork: 'COMPLETED',
      left: 'COMPLETED',
      right: 'COMPLETED',
      join: 'COMPLETED',
      choose: 'COMPLETED',
      case_b: 'COMPLETED',
      case_a: 'NOT_RUN',
      case_default: 'NOT_RUN',
      loop: 'COMPLETED',
      in_loop: 'COMPLETED',
      dynamic: 'COMPLETED',
      dyn_one: 'COMPLETED',
      dyn_two: 'COMPLETED',
      dynamic_join: 'COMPLETED',
      sub: 'IN_PROGRESS',
      after_sub: 'NOT_RUN',
    };
    for (const [ref, status] of Object.entries(expected)) await waitAttr(node(ref), 'data-status', status);
    await waitText(node('loop'), '×3');
    await screenshot(ui.page, 'execution');

    // The sub-workflow's task panel, then its link to the child execution.
    // By keyboard: a tall graph may hold the node outside the visible pane, where a click cannot reach.
    await ui.page.locator('.react-flow__node[data-id="sub"]').focus();
    await ui.page.keyboard.press('Enter');
    await ui.page.getByTestId('task-panel').waitFor();
    expect(new URL(ui.page.url()).searchParams.get('task')).toBe(w.tasks.find((t: any) => t.referenceTaskName === 'sub').taskId);
    await ui.page.getByTestId('subworkflow-link').click();
    await ui.page.waitForURL(`**/executions/${subId}`);
    await waitAttr(node('child_work'), 'data-status', 'SCHEDULED');
    await waitText(ui.page.getByRole('heading', { level: 1 }), child);
  });

  it('shows the timeline and a task panel with input, output, logs, worker and poll count', async () => {
    const name = uniq('ui_panel');
    const type = uniq('ui_panel_task');
    await register(ui.b.url, {
      name,
      tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE', inputParameters: { greeting: '${workflow.input.greeting}' } }],
    });
    const id = await start(ui.b.url, name, { greeting: 'hello' });
    const polled = await eventually(async () => {
      const r = await call<any[]>(ui.b.url, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100&workerid=worker-7`);
      return r.status === 200 && r.body.length ? r.body[0] : undefined;
    });
    await ok(ui.b.url, 'POST', `/api/tasks/${polled.taskId}/log`, 'working on it');
    await ok(ui.b.url, 'POST', '/api/tasks', {
      workflowInstanceId: id,
      taskId: polled.taskId,
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'boom',
      outputData: { partial: 1 },
    });
    await waitForStatus(ui.b.url, id, 'FAILED');

    await open(`/executions/${id}?task=${polled.taskId}`);
    const panel = ui.page.getByTestId('task-panel');
    await waitText(panel.getByTestId('task-input'), '"greeting": "hello"');
    await waitText(panel.getByTestId('task-output'), '"partial": 1');
    await waitText(panel, 'boom');
    await waitText(panel, 'worker-7');
    await waitExactText(panel.getByTestId('poll-count'), '1');
    await waitText(panel.getByTestId('task-logs'), 'working on it');
    await waitText(ui.page.getByTestId('timeline'), 'work');
    await screenshot(ui.page, 'task-panel');

    // The workflow's input in its tab, the tab kept in the URL.
    await ui.page.getByRole('tab', { name: 'Input and output' }).click();
    await waitText(ui.page.getByTestId('workflow-input'), '"greeting": "hello"');
    expect(new URL(ui.page.url()).searchParams.get('tab')).toBe('io');
    expect(new URL(ui.page.url()).searchParams.get('task')).toBe(polled.taskId);
  });
});
