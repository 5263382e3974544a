import type { Page } from 'playwright-core';
import { call, eventually, startBaton, type TestBaton } from '../support/baton';
import { startBrowser, type TestBrowser } from '../support/browser';

// The console tests' embedded Baton and browser, and the definitions and executions they look at, made through the API.

export interface ConsoleSession {
  b: TestBaton;
  browser: TestBrowser;
  page: Page;
}

/** An embedded Baton and a headless Chromium page, started before the file's tests and closed after them. */
export function consoleSession(): ConsoleSession {
  jest.setTimeout(180_000);
  const ui = {} as ConsoleSession;
  beforeAll(async () => {
    ui.b = await startBaton();
    ui.browser = await startBrowser();
    ui.page = await ui.browser.page();
  });
  afterAll(async () => {
    await ui.browser?.close();
    await ui.b?.stop();
  });
  return ui;
}

export const uniq = (p: string): string => `${p}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6).toString(36)}`;

export async function ok<T = any>(base: string, method: string, path: string, body?: unknown): Promise<T> {
  const r = await call<T>(base, method, path, body);
  if (r.status >= 300) throw new Error(`${method} ${path} answered ${r.status}: ${r.text}`);
  return r.body;
}

export async function register(base: string, def: Record<string, unknown>): Promise<void> {
  await ok(base, 'POST', '/api/metadata/workflowdef', { version: 1, schemaVersion: 2, ownerEmail: 'ui@example.com', ...def });
}

export async function start(base: string, name: string, input: Record<string, unknown> = {}, extra: Record<string, unknown> = {}): Promise<string> {
  return String(await ok(base, 'POST', '/api/workflow', { name, input, ...extra }));
}

export const workflow = (base: string, id: string): Promise<any> => ok(base, 'GET', `/api/workflow/${id}?includeTasks=true`);

export async function waitForStatus(base: string, id: string, status: string): Promise<any> {
  return eventually(async () => {
    const w = await workflow(base, id);
    return w.status === status ? w : undefined;
  }, 30_000);
}

/** Search sees an execution once the index flushes. */
export async function waitIndexed(base: string, query: string, count: number): Promise<void> {
  await eventually(async () => (await ok<any>(base, 'GET', `/api/workflow/search?size=0&query=${encodeURIComponent(query)}`)).totalHits >= count, 30_000);
}

/** A child with one worker task left SCHEDULED, and a parent with a fork, a switch, a loop, a dynamic fork and the child. */
export async function controlFlowWorkflows(base: string): Promise<{ parent: string; child: string; childTask: string }> {
  const child = uniq('ui_child');
  const childTask = uniq('ui_child_task');
  await register(base, { name: child, tasks: [{ name: childTask, taskReferenceName: 'child_work', type: 'SIMPLE' }] });
  const parent = uniq('ui_flow');
  const set = (ref: string, value: unknown) => ({ name: ref, taskReferenceName: ref, type: 'SET_VARIABLE', inputParameters: { [ref]: value } });
  await register(base, {
    name: parent,
    tasks: [
      { name: 'fork', taskReferenceName: 'fork', type: 'FORK_JOIN', forkTasks: [[set('left', 1)], [set('right', 2)]] },
      { name: 'join', taskReferenceName: 'join', type: 'JOIN', joinOn: ['left', 'right'] },
      {
        name: 'choose',
        taskReferenceName: 'choose',
        type: 'SWITCH',
        evaluatorType: 'value-param',
        expression: 'choice',
        inputParameters: { choice: '${workflow.input.choice}' },
        decisionCases: { a: [set('case_a', 'a')], b: [set('case_b', 'b')] },
        defaultCase: [set('case_default', 'd')],
      },
      {
        name: 'loop',
        taskReferenceName: 'loop',
        type: 'DO_WHILE',
        loopCondition: "if ($.loop['iteration'] < 3) { true; } else { false; }",
        inputParameters: {},
        loopOver: [set('in_loop', 'x')],
      },
      {
        name: 'dynamic',
        taskReferenceName: 'dynamic',
        type: 'FORK_JOIN_DYNAMIC',
        dynamicForkTasksParam: 'tasks',
        dynamicForkTasksInputParamName: 'inputs',
        inputParameters: {
          tasks: [
            { name: 'dyn_one', taskReferenceName: 'dyn_one', type: 'SET_VARIABLE' },
            { name: 'dyn_two', taskReferenceName: 'dyn_two', type: 'SET_VARIABLE' },
          ],
          inputs: { dyn_one: { one: 1 }, dyn_two: { two: 2 } },
        },
      },
      { name: 'dynamic_join', taskReferenceName: 'dynamic_join', type: 'JOIN' },
      { name: 'sub', taskReferenceName: 'sub', type: 'SUB_WORKFLOW', subWorkflowParam: { name: child, version: 1 } },
      set('after_sub', true),
    ],
  });
  return { parent, child, childTask };
}
