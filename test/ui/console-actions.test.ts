import { call, eventually } from '../support/baton';
import { screenshot, waitAttr, waitCount, waitExactText, waitText } from '../support/browser';
import { consoleSession, ok, register, start, uniq, waitForStatus, waitIndexed, workflow } from './console-fixtures';

// Every action of the console reaches the server and its effect shows; a refusal shows the
// server's message. Also: the HUMAN task inbox, definitions with the server's validation errors,
// the start form, queues, event handlers, and the dark and narrow layouts.

const ui = consoleSession();

const open = (path: string) => ui.page.goto(ui.b.url + path);
const node = (ref: string) => ui.page.locator(`[data-testid=graph] [data-testid=graph-node][data-node="${ref}"]`);
const heading = () => ui.page.getByRole('heading', { level: 1 });
const actions = () => ui.page.getByTestId('actions');

/** Clicks an action of the execution page and confirms it. */
async function act(label: string): Promise<void> {
  await actions().getByRole('button', { name: label, exact: true }).click();
  await ui.page.getByTestId('confirm').click();
}

/** Replaces the text of a CodeMirror editor. */
async function setEditor(testId: string, text: string): Promise<void> {
  await ui.page.locator(`[data-testid=${testId}] .cm-content`).click();
  await ui.page.keyboard.press('ControlOrMeta+a');
  await ui.page.keyboard.press('Delete');
  await ui.page.keyboard.insertText(text);
}

async function twoTaskWorkflow(opts: Record<string, unknown> = {}): Promise<{ name: string; type: string }> {
  const name = uniq('ui_act');
  const type = uniq('ui_act_task');
  await register(ui.b.url, {
    name,
    ...opts,
    tasks: [
      { name: type, taskReferenceName: 'first', type: 'SIMPLE', inputParameters: { x: '${workflow.input.x}' } },
      { name: type, taskReferenceName: 'second', type: 'SIMPLE' },
    ],
  });
  return { name, type };
}

async function pollOne(type: string): Promise<any> {
  return eventually(async () => {
    const r = await call<any[]>(ui.b.url, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100&workerid=ui-test`);
    return r.status === 200 && r.body.length ? r.body[0] : undefined;
  });
}

describe('execution actions', () => {
  it('skips the task the execution waits on from its task panel', async () => {
    const { name, type } = await twoTaskWorkflow();
    const id = await start(ui.b.url, name, { x: 1 });
    await open(`/executions/${id}`);
    await waitAttr(node('first'), 'data-status', 'SCHEDULED');
    const first = (await workflow(ui.b.url, id)).tasks.find((x: any) => x.referenceTaskName === 'first');
    await open(`/executions/${id}?task=${first.taskId}`);
    await ui.page.getByTestId('task-panel').getByRole('button', { name: 'Skip task' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('confirm-dialog').waitFor({ state: 'hidden' });
    await waitAttr(node('first'), 'data-status', 'SKIPPED');
    await waitAttr(node('second'), 'data-status', 'SCHEDULED');
    const t = await pollOne(type);
    expect(t.referenceTaskName).toBe('second');
  });

  it('pause, resume, reset callbacks, terminate with a reason, retry, skip a task, restart, rerun with new input and remove reach the server', async () => {
    const { name, type } = await twoTaskWorkflow();
    const id = await start(ui.b.url, name, { x: 1 });
    await open(`/executions/${id}`);
    await waitAttr(node('first'), 'data-status', 'SCHEDULED');

    await act('Pause');
    await waitText(heading(), 'PAUSED');
    expect((await workflow(ui.b.url, id)).status).toBe('PAUSED');
    await act('Resume');
    await waitText(heading(), 'RUNNING');
    expect((await workflow(ui.b.url, id)).status).toBe('RUNNING');

    // A worker's callback delay, then reset from the console.
    const t = await pollOne(type);
    await ok(ui.b.url, 'POST', '/api/tasks', { workflowInstanceId: id, taskId: t.taskId, status: 'IN_PROGRESS', callbackAfterSeconds: 3600 });
    // While the callback delay runs, no poll gets the task.
    expect((await call<any[]>(ui.b.url, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100`)).body).toHaveLength(0);
    await act('Reset callbacks');
    await eventually(async () => (await call<any[]>(ui.b.url, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=100`)).body.length === 1);

    const reason = 'stopped from the console';
    await actions().getByRole('button', { name: 'Terminate', exact: true }).click();
    await ui.page.getByTestId('terminate-reason').fill(reason);
    await ui.page.getByTestId('confirm').click();
    await waitText(heading(), 'TERMINATED');
    const terminated = await workflow(ui.b.url, id);
    expect(terminated.status).toBe('TERMINATED');
    expect(terminated.reasonForIncompletion).toContain(reason);
    await waitText(ui.page.getByTestId('workflow-reason'), reason);

    await act('Retry');
    await waitText(heading(), 'RUNNING');
    await waitAttr(node('first'), 'data-status', 'SCHEDULED');
    expect((await workflow(ui.b.url, id)).status).toBe('RUNNING');

    // Skip the second task before it is scheduled, from its node.
    await node('second').click();
    await ui.page.getByTestId('node-panel').getByRole('button', { name: 'Skip task' }).click();
    await ui.page.getByTestId('confirm').click();
    await ui.page.getByTestId('confirm-dialog').waitFor({ state: 'hidden' });
    const again = await pollOne(type);
    await ok(ui.b.url, 'POST', '/api/tasks', { workflowInstanceId: id, taskId: again.taskId, status: 'COMPLETED', outputData: {} });
    await waitText(heading(), 'COMPLETED');
    await waitAttr(node('second'), 'data-status', 'SKIPPED');

    await act('Restart');
    await waitText(heading(), 'RUNNING');
    await eventually(async () => {
      const w = await workflow(ui.b.url, id);
      return w.status === 'RUNNING' && w.tasks.length === 1 && w.tasks[0].referenceTaskName === 'first';
    });

    // Rerun from the first task with a new input.
    await ok(ui.b.url, 'DELETE', `/api/workflow/${id}?reason=rerun`);
    await waitText(heading(), 'TERMINATED');
    const first = (await workflow(ui.b.url, id)).tasks.find((x: any) => x.referenceTaskName === 'first');
    await open(`/executions/${id}?task=${first.taskId}`);
    await ui.page.getByTestId('task-panel').getByRole('button', { name: 'Rerun from here…' }).click();
    await setEditor('rerun-input', '{"x": 42}');
    await ui.page.getByTestId('confirm').click();
    await waitText(heading(), 'RUNNING');
    await eventually(async () => {
      const w = await workflow(ui.b.url, id);
      const f = w.tasks.find((x: any) => x.referenceTaskName === 'first' && x.status === 'SCHEDULED');
      return w.status === 'RUNNING' && f?.inputData.x === 42;
    });
    await screenshot(ui.page, 'execution-actions');

    await act('Remove');
    await ui.page.getByText(`Execution ${id} was removed`).waitFor();
    expect((await call(ui.b.url, 'GET', `/api/workflow/${id}`)).status).toBe(404);
  });

  it('shows the server refusal when an action is not allowed', async () => {
    const { name, type } = await twoTaskWorkflow({ restartable: false });
    const id = await start(ui.b.url, name);
    for (let i = 0; i < 2; i++) {
      const t = await pollOne(type);
      await ok(ui.b.url, 'POST', '/api/tasks', { workflowInstanceId: id, taskId: t.taskId, status: 'COMPLETED', outputData: {} });
    }
    await waitForStatus(ui.b.url, id, 'COMPLETED');
    await open(`/executions/${id}`);
    await waitText(heading(), 'COMPLETED');
    await actions().getByRole('button', { name: 'Restart', exact: true }).click();
    await ui.page.getByTestId('confirm').click();
    const dialog = ui.page.getByTestId('confirm-dialog');
    await waitText(dialog.getByTestId('error'), 'restart');
    await screenshot(ui.page, 'action-refused');
    expect((await workflow(ui.b.url, id)).status).toBe('COMPLETED');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });
});

describe('human tasks', () => {
  it('completes a pending HUMAN task from the inbox, and its workflow moves on', async () => {
    const name = uniq('ui_human');
    await register(ui.b.url, {
      name,
      tasks: [
        { name: 'approve', taskReferenceName: 'approval', type: 'HUMAN', inputParameters: { amount: '${workflow.input.amount}' } },
        { name: 'record', taskReferenceName: 'record', type: 'SET_VARIABLE', inputParameters: { approved: '${approval.output.approved}' } },
      ],
      outputParameters: { approved: '${approval.output.approved}', note: '${approval.output.note}' },
    });
    const id = await start(ui.b.url, name, { amount: 1200 });
    await eventually(
      async () =>
        (
          await ok<any>(
            ui.b.url,
            'GET',
            `/api/tasks/search?size=0&query=${encodeURIComponent(`workflowType = '${name}' AND taskType = 'HUMAN' AND status = 'IN_PROGRESS'`)}`,
          )
        ).totalHits === 1,
      30_000,
    );

    await open(`/human?workflow=${name}`);
    await waitCount(ui.page.getByTestId('inbox-row'), 1);
    await ui.page.getByTestId('inbox-row').getByRole('button').click();
    await waitText(ui.page.getByTestId('human-input'), '"amount": 1200');
    await setEditor('human-output', '{"approved": true, "note": "looks fine"}');
    await screenshot(ui.page, 'human-inbox');
    await ui.page.getByTestId('human-task').getByRole('button', { name: 'Complete' }).click();

    const w = await waitForStatus(ui.b.url, id, 'COMPLETED');
    expect(w.output).toEqual({ approved: true, note: 'looks fine' });
    expect(w.variables.approved).toBe(true);
    await waitCount(ui.page.getByTestId('inbox-row'), 0);
  });
});

describe('definitions', () => {
  it('shows the server validation message for a bad definition, saves a good one with a diagram preview, and starts it from the form', async () => {
    await open('/definitions/workflow/new');
    await ui.page.locator('[data-testid=definition-editor] .cm-content').waitFor();
    const name = uniq('ui_def');
    await setEditor('definition-editor', JSON.stringify({ name, version: 1, tasks: [] }, null, 2));
    await ui.page.getByTestId('save').click();
    await waitText(ui.page.getByTestId('error'), 'WorkflowTask list cannot be empty');
    // Inline too: the message marks the property its path names.
    await waitExactText(ui.page.locator('[data-testid=definition-editor] .cm-lintRange-error'), '"tasks"');
    await screenshot(ui.page, 'definition-error');
    expect((await call(ui.b.url, 'GET', `/api/metadata/workflowdef/${name}`)).status).toBe(404);

    const def = {
      name,
      version: 1,
      ownerEmail: 'ui@example.com',
      inputParameters: ['who'],
      tasks: [
        { name: 'greet', taskReferenceName: 'greet', type: 'SET_VARIABLE', inputParameters: { greeting: '${workflow.input.who}' } },
        {
          name: 'branch',
          taskReferenceName: 'branch',
          type: 'SWITCH',
          evaluatorType: 'value-param',
          expression: 'v',
          inputParameters: { v: 'x' },
          decisionCases: { x: [{ name: 'wait', taskReferenceName: 'wait', type: 'WAIT' }] },
        },
      ],
    };
    await setEditor('definition-editor', JSON.stringify(def, null, 2));
    await waitCount(ui.page.locator('[data-testid=preview] [data-testid=graph-node]'), 5);
    await ui.page.getByTestId('save').click();
    await ui.page.getByTestId('saved').waitFor();
    expect((await ok<any>(ui.b.url, 'GET', `/api/metadata/workflowdef/${name}`)).tasks).toHaveLength(2);
    await ui.page.waitForURL(new RegExp(`/definitions/workflow/${name}\\?version=1&saved$`));
    await screenshot(ui.page, 'definition-editor');

    await open('/definitions');
    await ui.page.getByTestId('workflow-defs').getByRole('link', { name, exact: true }).waitFor();
    await screenshot(ui.page, 'definitions');

    await open(`/start?name=${name}&version=1`);
    await setEditor('start-input', '{"who": "console"}');
    await ui.page.locator('input[name=correlationId]').fill('from-the-form');
    await ui.page.locator('input[name=priority]').fill('7');
    await screenshot(ui.page, 'start-workflow');
    await ui.page.getByRole('button', { name: 'Start', exact: true }).click();
    await ui.page.waitForURL('**/executions/*');
    const id = new URL(ui.page.url()).pathname.split('/').pop()!;
    const w = await workflow(ui.b.url, id);
    expect(w).toMatchObject({ workflowName: name, correlationId: 'from-the-form', priority: 7, input: { who: 'console' } });
    await waitAttr(node('wait'), 'data-status', 'IN_PROGRESS');
  });

  it('saves a task definition and shows the server refusal of a bad one', async () => {
    await open('/definitions/task/new');
    await ui.page.locator('[data-testid=definition-editor] .cm-content').waitFor();
    const name = uniq('ui_taskdef');
    await setEditor('definition-editor', JSON.stringify({ name, retryCount: -1 }));
    await ui.page.getByTestId('save').click();
    await ui.page.getByTestId('error').waitFor();
    await setEditor('definition-editor', JSON.stringify({ name, retryCount: 2, timeoutSeconds: 60, responseTimeoutSeconds: 30, ownerEmail: 'ui@example.com' }));
    await ui.page.getByTestId('save').click();
    await ui.page.getByTestId('saved').waitFor();
    expect((await ok<any>(ui.b.url, 'GET', `/api/metadata/taskdef/${name}`)).retryCount).toBe(2);
  });
});

describe('queues and event handlers', () => {
  it('lists pending counts and the last poll per worker, and requeues', async () => {
    const name = uniq('ui_queue');
    const type = uniq('ui_queue_task');
    await register(ui.b.url, { name, tasks: [{ name: type, taskReferenceName: 'work', type: 'SIMPLE' }] });
    await start(ui.b.url, name);
    await start(ui.b.url, name);
    await call(ui.b.url, 'GET', `/api/tasks/poll/batch/${uniq('nothing')}?count=1&timeout=1&workerid=idle-worker`);
    await ok(ui.b.url, 'GET', `/api/tasks/poll/batch/${type}?count=1&timeout=1000&workerid=queue-worker`);
    await waitIndexed(ui.b.url, `workflowType = '${name}'`, 2);
    await open('/queues');
    const row = ui.page.locator(`[data-testid=queue-row][data-type="${type}"]`);
    await waitText(row.getByTestId('pending'), '1');
    await waitText(row, 'queue-worker');
    await screenshot(ui.page, 'queues');
    await row.getByRole('button', { name: 'Requeue' }).click();
    await ui.page.getByTestId('confirm').click();
    await waitText(ui.page.getByTestId('requeued'), `${type}: 1 task(s) requeued`);
  });

  it('creates an event handler, edits it and turns it on', async () => {
    const name = uniq('ui_handler');
    await open('/events/new');
    await ui.page.locator('[data-testid=definition-editor] .cm-content').waitFor();
    const handler = {
      name,
      event: 'conductor:some_flow:some_task',
      actions: [{ action: 'complete_task', complete_task: { workflowId: '${workflowId}', taskRefName: 'wait_ref' } }],
      active: false,
    };
    await setEditor('definition-editor', JSON.stringify(handler));
    await ui.page.getByTestId('save').click();
    await ui.page.waitForURL('**/events');
    const row = ui.page.locator(`[data-testid=handler-row][data-name="${name}"]`);
    await row.waitFor();
    await row.getByTestId('handler-active').click();
    await waitAttr(row.getByTestId('handler-active'), 'data-active', 'true');
    await eventually(async () => (await ok<any[]>(ui.b.url, 'GET', '/api/event')).find((h) => h.name === name)?.active === true);
    await screenshot(ui.page, 'event-handlers');

    await row.getByRole('link', { name }).click();
    await setEditor('definition-editor', JSON.stringify({ ...handler, active: true, condition: '$.ok == true' }));
    await ui.page.getByTestId('save').click();
    await ui.page.waitForURL('**/events');
    expect((await ok<any[]>(ui.b.url, 'GET', '/api/event')).find((h) => h.name === name)?.condition).toBe('$.ok == true');

    // The server's refusal, as worded: an action needs its parameters.
    await open('/events/new');
    await ui.page.locator('[data-testid=definition-editor] .cm-content').waitFor();
    await setEditor('definition-editor', JSON.stringify({ ...handler, name: uniq('ui_bad_handler'), actions: [{ action: 'start_workflow' }] }));
    await ui.page.getByTestId('save').click();
    await waitText(ui.page.getByTestId('error'), "needs its 'start_workflow' object");
  });
});

describe('layouts', () => {
  it('reads in the dark colour scheme and on a narrow window', async () => {
    const name = uniq('ui_layout');
    await register(ui.b.url, { name, tasks: [{ name: 'w', taskReferenceName: 'w', type: 'WAIT' }] });
    const id = await start(ui.b.url, name, {}, { correlationId: 'dark' });
    await waitIndexed(ui.b.url, `workflowType = '${name}'`, 1);
    const dark = await ui.browser.page({ dark: true });
    await dark.goto(`${ui.b.url}/executions`);
    await dark.locator('[data-testid=execution-row]').first().waitFor();
    expect(await dark.evaluate('document.documentElement.dataset.theme')).toBe('dark');
    await screenshot(dark, 'executions-dark');
    await dark.goto(`${ui.b.url}/executions/${id}`);
    await dark.locator('[data-testid=graph-node][data-node=w]').waitFor();
    // Keyboard: a focused node opens its task with Enter.
    await dark.locator('.react-flow__node[data-id=w]').focus();
    await dark.keyboard.press('Enter');
    await waitText(dark.getByTestId('task-panel'), 'WAIT');
    await screenshot(dark, 'execution-dark');

    const narrow = await ui.browser.page({ width: 420, height: 800 });
    await narrow.goto(`${ui.b.url}/executions/${id}`);
    await narrow.locator('[data-testid=graph-node][data-node=w]').waitFor();
    // Nothing wider than the window but the tables, which scroll in their own box.
    expect(await narrow.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(420);
    await screenshot(narrow, 'execution-narrow');

    // Keyboard: "/" focuses the free-text search.
    await narrow.goto(`${ui.b.url}/executions`);
    await narrow.locator('[data-testid=filters]').waitFor();
    await narrow.keyboard.press('/');
    expect(await narrow.evaluate('document.activeElement && document.activeElement.name')).toBe('text');
  });
});
