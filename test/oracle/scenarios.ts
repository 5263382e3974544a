import { lastTask, type OracleClient } from './client';
import { IdMasker, normaliseWorkflow, scrub } from './normalise';

/**
 * The differential scenarios: each drives one server through OracleClient and returns its
 * observations (normalised execution documents, status codes, normalised bodies). The suite runs
 * every scenario against Conductor and against Baton with the same names and compares the results.
 */
export interface Ctx {
  c: OracleClient;
  /** Prefix of every name this scenario registers (the same on both servers). */
  ns: string;
  /** Base URL of the suite's own HTTP endpoint for HTTP tasks (see oracle.test.ts). */
  http: string;
  /** Normalises a workflow (ids numbered per scenario and server, so references stay comparable). */
  norm(wf: unknown): unknown;
  /** Masks ids and times of any other body. */
  mask(v: unknown): unknown;
}

export interface Scenario {
  name: string;
  run(ctx: Ctx): Promise<Record<string, unknown>>;
}

export const makeCtx = (c: OracleClient, ns: string, http: string): Ctx => {
  const ids = new IdMasker();
  return { c, ns, http, norm: (wf) => normaliseWorkflow(wf, ids), mask: (v) => scrub(v, ids) };
};

// --- definition builders -------------------------------------------------------------------

const taskDef = (name: string, extra: object = {}) => ({
  name,
  retryCount: 0,
  retryLogic: 'FIXED',
  retryDelaySeconds: 0,
  timeoutSeconds: 120,
  responseTimeoutSeconds: 60,
  timeoutPolicy: 'TIME_OUT_WF',
  ownerEmail: 'oracle@example.com',
  ...extra,
});
const simple = (ref: string, name: string, inputParameters: object = {}, extra: object = {}) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters,
  ...extra,
});
const sys = (type: string, ref: string, inputParameters: object = {}, extra: object = {}) => ({
  name: ref,
  taskReferenceName: ref,
  type,
  inputParameters,
  ...extra,
});
const wfDef = (name: string, tasks: object[], extra: object = {}) => ({
  name,
  version: 1,
  schemaVersion: 2,
  tasks,
  outputParameters: {},
  timeoutSeconds: 0,
  timeoutPolicy: 'ALERT_ONLY',
  ownerEmail: 'oracle@example.com',
  ...extra,
});

/** Registers the task definitions named (plain SIMPLE defaults plus `extra` per name) and one workflow. */
async function define(ctx: Ctx, tasks: Record<string, object>, def: object): Promise<void> {
  const defs = Object.entries(tasks).map(([n, extra]) => taskDef(n, extra));
  if (defs.length) await ctx.c.taskDefs(defs);
  await ctx.c.workflowDef(def);
}

/** A one-workflow scenario: define, start with `input`, wait for a terminal status, observe the document. */
async function runToEnd(ctx: Ctx, tasks: Record<string, object>, def: object, input: object = {}): Promise<Record<string, unknown>> {
  await define(ctx, tasks, def);
  const id = await ctx.c.start((def as { name: string }).name, input);
  return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
}

const status = async (p: Promise<{ status: number }>) => (await p).status;

// --- scenarios -----------------------------------------------------------------------------

export const SCENARIOS: Scenario[] = [
  // Task types
  {
    name: 'simple task polled and completed with output',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(
        ctx,
        { [t]: {} },
        wfDef(ctx.ns, [simple('a', t, { x: '${workflow.input.x}', fixed: 'k' })], { outputParameters: { got: '${a.output.y}', all: '${a.output}' } }),
      );
      const id = await ctx.c.start(ctx.ns, { x: 41 }, { correlationId: 'corr-1', priority: 3 });
      const polled = await ctx.c.poll(t);
      await ctx.c.update(polled, 'COMPLETED', { y: 42 });
      return {
        polled: ctx.mask({ inputData: polled.inputData, status: polled.status, pollCount: polled.pollCount, referenceTaskName: polled.referenceTaskName }),
        wf: ctx.norm(await ctx.c.waitWorkflow(id)),
      };
    },
  },
  {
    name: 'simple task failed with a terminal error',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: { retryCount: 2 } }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED_WITH_TERMINAL_ERROR', { why: 'bad' }, { reasonForIncompletion: 'no retry please' });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'worker reports IN_PROGRESS with callbackAfterSeconds 0, then completes',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'IN_PROGRESS', { step: 1 }, { callbackAfterSeconds: 0 });
      const mid = await ctx.c.workflow(id);
      await ctx.c.work(t, 'COMPLETED', { step: 2 });
      return { mid: ctx.norm(mid), wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'INLINE graaljs computes from input',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys('INLINE', 'js', {
              evaluatorType: 'graaljs',
              expression: '(function(){ return { sum: $.a + $.b, list: [$.a, $.b], text: "v" + $.a }; })()',
              a: '${workflow.input.a}',
              b: 2,
            }),
          ],
          { outputParameters: { r: '${js.output.result}' } },
        ),
        { a: 40 },
      ),
  },
  {
    name: 'INLINE script that throws fails the workflow',
    run: (ctx) =>
      runToEnd(ctx, {}, wfDef(ctx.ns, [sys('INLINE', 'js', { evaluatorType: 'graaljs', expression: '(function(){ throw new Error("boom"); })()' })])),
  },
  {
    name: 'JSON_JQ_TRANSFORM reshapes input',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [sys('JSON_JQ_TRANSFORM', 'jq', { queryExpression: '{ names: [.items[].name], total: ([.items[].n] | add) }', items: '${workflow.input.items}' })],
          { outputParameters: { r: '${jq.output.result}' } },
        ),
        {
          items: [
            { name: 'a', n: 1 },
            { name: 'b', n: 2 },
          ],
        },
      ),
  },
  {
    name: 'JSON_JQ_TRANSFORM with a failing query',
    run: (ctx) => runToEnd(ctx, {}, wfDef(ctx.ns, [sys('JSON_JQ_TRANSFORM', 'jq', { queryExpression: '.a | error("nope")', a: 1 })])),
  },
  {
    name: 'SET_VARIABLE then read back in output',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(ctx.ns, [sys('SET_VARIABLE', 'sv', { counter: 3, label: '${workflow.input.label}' }), sys('SET_VARIABLE', 'sv2', { counter: 4 })], {
          outputParameters: { c: '${workflow.variables.counter}', l: '${workflow.variables.label}' },
        }),
        { label: 'x' },
      ),
  },
  {
    name: 'SWITCH value-param picks a case',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys(
              'SWITCH',
              'sw',
              { kind: '${workflow.input.kind}' },
              {
                evaluatorType: 'value-param',
                expression: 'kind',
                decisionCases: { b: [sys('SET_VARIABLE', 'in_b', { picked: 'b' })], c: [sys('SET_VARIABLE', 'in_c', { picked: 'c' })] },
                defaultCase: [sys('SET_VARIABLE', 'in_default', { picked: 'default' })],
              },
            ),
            sys('SET_VARIABLE', 'after', { done: true }),
          ],
          { outputParameters: { picked: '${workflow.variables.picked}' } },
        ),
        { kind: 'b' },
      ),
  },
  {
    name: 'SWITCH javascript falls to the default case',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys(
              'SWITCH',
              'sw',
              { n: '${workflow.input.n}' },
              {
                evaluatorType: 'graaljs',
                expression: '$.n > 10 ? "big" : "small"',
                decisionCases: { big: [sys('SET_VARIABLE', 'in_big', { picked: 'big' })] },
                defaultCase: [sys('SET_VARIABLE', 'in_default', { picked: 'default' })],
              },
            ),
          ],
          { outputParameters: { picked: '${workflow.variables.picked}' } },
        ),
        { n: 3 },
      ),
  },
  {
    name: 'DECISION (deprecated) with caseValueParam',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys(
              'DECISION',
              'dec',
              { k: '${workflow.input.k}' },
              { caseValueParam: 'k', decisionCases: { one: [sys('SET_VARIABLE', 'in_one', { picked: 'one' })] }, defaultCase: [] },
            ),
          ],
          { outputParameters: { picked: '${workflow.variables.picked}' } },
        ),
        { k: 'one' },
      ),
  },
  {
    name: 'FORK_JOIN of two worker branches and a JOIN',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(
        ctx,
        { [t]: {} },
        wfDef(
          ctx.ns,
          [
            sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('left', t, { side: 'l' })], [simple('right', t, { side: 'r' })]] }),
            sys('JOIN', 'join', {}, { joinOn: ['left', 'right'] }),
          ],
          { outputParameters: { j: '${join.output}' } },
        ),
      );
      const id = await ctx.c.start(ctx.ns);
      for (let i = 0; i < 2; i++) {
        const task = await ctx.c.poll(t);
        await ctx.c.update(task, 'COMPLETED', { side: task.inputData.side });
      }
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'FORK_JOIN_DYNAMIC over a list of inputs',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys(
              'FORK_JOIN_DYNAMIC',
              'dyn',
              {
                dynamicTasks: [
                  { name: 'sv_a', taskReferenceName: 'sv_a', type: 'SET_VARIABLE' },
                  { name: 'sv_b', taskReferenceName: 'sv_b', type: 'SET_VARIABLE' },
                ],
                dynamicTasksInput: { sv_a: { a: 1 }, sv_b: { b: 2 } },
              },
              { dynamicForkTasksParam: 'dynamicTasks', dynamicForkTasksInputParamName: 'dynamicTasksInput' },
            ),
            sys('JOIN', 'dyn_join'),
          ],
          { outputParameters: { j: '${dyn_join.output}' } },
        ),
      ),
  },
  {
    name: 'DO_WHILE loops three times',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [
            sys(
              'DO_WHILE',
              'loop',
              { max: 3 },
              {
                loopCondition: '$.loop["iteration"] < $.max',
                loopOver: [
                  sys('INLINE', 'body', { evaluatorType: 'graaljs', expression: '(function(){ return $.i * 10; })()', i: '${loop.output.iteration}' }),
                ],
              },
            ),
          ],
          { outputParameters: { l: '${loop.output}' } },
        ),
      ),
  },
  {
    name: 'SUB_WORKFLOW runs a child to completion',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const child = `${ctx.ns}_child`;
      await define(ctx, { [t]: {} }, wfDef(child, [simple('c1', t, { v: '${workflow.input.v}' })], { outputParameters: { childOut: '${c1.output.r}' } }));
      await ctx.c.workflowDef(
        wfDef(ctx.ns, [sys('SUB_WORKFLOW', 'sub', { v: '${workflow.input.v}' }, { subWorkflowParam: { name: child, version: 1 } })], {
          outputParameters: { fromChild: '${sub.output.childOut}' },
        }),
      );
      const id = await ctx.c.start(ctx.ns, { v: 5 });
      const task = await ctx.c.poll(t);
      await ctx.c.update(task, 'COMPLETED', { r: task.inputData.v * 2 });
      const wf = await ctx.c.waitWorkflow(id);
      const childWf = await ctx.c.workflow(lastTask(wf, 'sub').subWorkflowId);
      return { wf: ctx.norm(wf), child: ctx.norm(childWf) };
    },
  },
  {
    name: 'SUB_WORKFLOW whose child fails fails the parent',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const child = `${ctx.ns}_child`;
      await define(ctx, { [t]: {} }, wfDef(child, [simple('c1', t)]));
      await ctx.c.workflowDef(wfDef(ctx.ns, [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: child, version: 1 } })]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'child task failed' });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'TERMINATE with COMPLETED and output',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(ctx.ns, [sys('TERMINATE', 'stop', { terminationStatus: 'COMPLETED', workflowOutput: { early: true } }), sys('SET_VARIABLE', 'never', { x: 1 })]),
      ),
  },
  {
    name: 'TERMINATE with FAILED and a reason',
    run: (ctx) => runToEnd(ctx, {}, wfDef(ctx.ns, [sys('TERMINATE', 'stop', { terminationStatus: 'FAILED', terminationReason: 'stopped on purpose' })])),
  },
  {
    name: 'WAIT completed by reference name',
    async run(ctx) {
      await define(ctx, {}, wfDef(ctx.ns, [sys('WAIT', 'w'), sys('SET_VARIABLE', 'after', { ok: true })], { outputParameters: { w: '${w.output}' } }));
      const id = await ctx.c.start(ctx.ns);
      const waiting = await ctx.c.waitTask(id, 'w', 'IN_PROGRESS');
      await ctx.c.ok('POST', `/api/tasks/${id}/w/COMPLETED?workerid=oracle`, { signal: 'go' });
      return { waiting: ctx.norm(waiting), wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'WAIT with a duration of one second',
    run: (ctx) => runToEnd(ctx, {}, wfDef(ctx.ns, [sys('WAIT', 'w', { duration: '1 seconds' })])),
  },
  {
    name: 'HUMAN task completed through the task update API',
    async run(ctx) {
      await define(ctx, {}, wfDef(ctx.ns, [sys('HUMAN', 'h', { question: 'ok?' })], { outputParameters: { answer: '${h.output.answer}' } }));
      const id = await ctx.c.start(ctx.ns);
      const wf = await ctx.c.waitTask(id, 'h', 'IN_PROGRESS');
      const h = lastTask(wf, 'h');
      await ctx.c.update(h, 'COMPLETED', { answer: 'yes' });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'HTTP task GETs JSON from a local endpoint',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(
          ctx.ns,
          [sys('HTTP', 'http', { http_request: { uri: `${ctx.http}/json?x=1`, method: 'GET', accept: 'application/json', contentType: 'application/json' } })],
          { outputParameters: { body: '${http.output.response.body}', code: '${http.output.response.statusCode}' } },
        ),
      ),
  },
  {
    name: 'HTTP task answered 500 fails',
    run: (ctx) =>
      runToEnd(
        ctx,
        {},
        wfDef(ctx.ns, [
          sys('HTTP', 'http', {
            http_request: { uri: `${ctx.http}/fail`, method: 'POST', body: { a: 1 }, accept: 'application/json', contentType: 'application/json' },
          }),
        ]),
      ),
  },
  {
    name: 'DYNAMIC task resolves its type from input',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(
        ctx,
        { [t]: {} },
        wfDef(ctx.ns, [sys('DYNAMIC', 'dyn', { taskToRun: '${workflow.input.which}', v: 1 }, { dynamicTaskNameParam: 'taskToRun' })]),
      );
      const id = await ctx.c.start(ctx.ns, { which: t });
      await ctx.c.work(t, 'COMPLETED', { ran: true });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'START_WORKFLOW starts another workflow and completes',
    async run(ctx) {
      const other = `${ctx.ns}_other`;
      await define(ctx, {}, wfDef(other, [sys('SET_VARIABLE', 'o', { fromInput: '${workflow.input.p}' })]));
      await ctx.c.workflowDef(wfDef(ctx.ns, [sys('START_WORKFLOW', 'sw', { startWorkflow: { name: other, version: 1, input: { p: 'hello' } } })]));
      const id = await ctx.c.start(ctx.ns);
      const wf = await ctx.c.waitWorkflow(id);
      const started = await ctx.c.waitWorkflow(lastTask(wf, 'sw').outputData.workflowId);
      return { wf: ctx.norm(wf), started: ctx.norm(started) };
    },
  },
  {
    name: 'EVENT task publishes to the conductor queue',
    run: (ctx) => runToEnd(ctx, {}, wfDef(ctx.ns, [sys('EVENT', 'ev', { payload: '${workflow.input.p}' }, { sink: 'conductor' })]), { p: 7 }),
  },
  // Event handlers
  {
    name: 'event handler starts a workflow on an EVENT task message',
    async run(ctx) {
      const target = `${ctx.ns}_target`;
      await define(ctx, {}, wfDef(target, [sys('SET_VARIABLE', 'got', { p: '${workflow.input.p}' })], { outputParameters: { p: '${workflow.input.p}' } }));
      await ctx.c.workflowDef(wfDef(ctx.ns, [sys('EVENT', 'ev', { p: '${workflow.input.p}' }, { sink: 'conductor' })]));
      await ctx.c.ok('POST', '/api/event', {
        name: `${ctx.ns}_h`,
        event: `conductor:${ctx.ns}:ev`,
        active: true,
        actions: [{ action: 'start_workflow', start_workflow: { name: target, version: 1, input: { p: '${p}' }, correlationId: 'from-event' } }],
      });
      const id = await ctx.c.start(ctx.ns, { p: 'payload-1' });
      const wf = await ctx.c.waitWorkflow(id);
      // Conductor's event processor picks up a new handler's queue on its own schedule (a minute or more here).
      const found = await eventuallyValue(async () => {
        const r = await ctx.c.ok('GET', `/api/workflow/${target}/correlated/from-event?includeClosed=true&includeTasks=true`);
        return Array.isArray(r) && r.length && r[0].status === 'COMPLETED' ? r : undefined;
      }, 240_000);
      const handlers = await ctx.c.ok('GET', `/api/event/${encodeURIComponent(`conductor:${ctx.ns}:ev`)}?activeOnly=true`);
      return { wf: ctx.norm(wf), started: found.map((w: unknown) => ctx.norm(w)), handlers: ctx.mask(handlers) };
    },
  },
  {
    name: 'event handler completes a waiting task',
    async run(ctx) {
      const waiter = `${ctx.ns}_waiter`;
      await define(ctx, {}, wfDef(waiter, [sys('WAIT', 'hold')], { outputParameters: { o: '${hold.output}' } }));
      await ctx.c.workflowDef(wfDef(ctx.ns, [sys('EVENT', 'ev', { target: '${workflow.input.target}' }, { sink: 'conductor' })]));
      await ctx.c.ok('POST', '/api/event', {
        name: `${ctx.ns}_h`,
        event: `conductor:${ctx.ns}:ev`,
        active: true,
        actions: [{ action: 'complete_task', complete_task: { workflowId: '${target}', taskRefName: 'hold', output: { via: 'event' } } }],
      });
      const waitId = await ctx.c.start(waiter);
      await ctx.c.waitTask(waitId, 'hold', 'IN_PROGRESS');
      await ctx.c.start(ctx.ns, { target: waitId });
      return { waiter: ctx.norm(await ctx.c.waitWorkflow(waitId, undefined, 240_000)) };
    },
  },
  {
    name: 'event handler management: add, update, list, delete',
    async run(ctx) {
      const h = {
        name: `${ctx.ns}_h`,
        event: `conductor:${ctx.ns}:x`,
        active: false,
        actions: [{ action: 'complete_task', complete_task: { workflowId: '${w}', taskRefName: 'r' } }],
      };
      const add = await status(ctx.c.req('POST', '/api/event', h));
      const dup = await status(ctx.c.req('POST', '/api/event', h));
      const upd = await status(ctx.c.req('PUT', '/api/event', { ...h, active: true }));
      const byEvent = await ctx.c.ok('GET', `/api/event/${encodeURIComponent(h.event)}?activeOnly=false`);
      const all = ((await ctx.c.ok('GET', '/api/event')) as any[]).filter((e) => e.name === h.name);
      const del = await status(ctx.c.req('DELETE', `/api/event/${h.name}`));
      const delAgain = await status(ctx.c.req('DELETE', `/api/event/${h.name}`));
      const updMissing = await status(ctx.c.req('PUT', '/api/event', { ...h, name: `${ctx.ns}_none` }));
      return { add, dup, upd, byEvent: ctx.mask(byEvent), all: ctx.mask(all), del, delAgain, updMissing };
    },
  },
  // Retries and timeouts
  {
    name: 'FIXED retry: fails twice, third attempt completes',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: { retryCount: 2 } }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'first' });
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'second' });
      await ctx.c.work(t, 'COMPLETED', { third: true });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'retries exhausted fail the workflow',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: { retryCount: 1 } }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'one' });
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'two' });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'response timeout times the task out and retries it',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: { retryCount: 1, responseTimeoutSeconds: 1, timeoutSeconds: 60 } }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.poll(t);
      // Not answered: the second attempt comes after the response timeout.
      await ctx.c.work(t, 'COMPLETED', { second: true });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'task timeoutSeconds with TIME_OUT_WF times the workflow out',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(
        ctx,
        { [t]: { retryCount: 0, timeoutSeconds: 2, responseTimeoutSeconds: 1, timeoutPolicy: 'TIME_OUT_WF' } },
        wfDef(ctx.ns, [simple('a', t)]),
      );
      const id = await ctx.c.start(ctx.ns);
      // Never polled: whether timeoutSeconds runs for a SCHEDULED task is the question.
      return { wf: ctx.norm(await ctx.c.settle(id)) };
    },
  },
  {
    name: 'workflow timeoutSeconds with TIME_OUT_WF',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)], { timeoutSeconds: 2, timeoutPolicy: 'TIME_OUT_WF' }));
      const id = await ctx.c.start(ctx.ns);
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'optional task failure lets the workflow complete',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t, {}, { optional: true }), sys('SET_VARIABLE', 'after', { went: 'on' })]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'optional one failed' });
      return { wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  // Failure workflows
  {
    name: 'failureWorkflow runs when the workflow fails',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const onFail = `${ctx.ns}_onfail`;
      await define(
        ctx,
        { [t]: {} },
        wfDef(onFail, [sys('SET_VARIABLE', 'note', { reason: '${workflow.input.reason}' })], {
          outputParameters: { r: '${workflow.input.reason}', failedId: '${workflow.input.workflowId}' },
        }),
      );
      await ctx.c.workflowDef(wfDef(ctx.ns, [simple('a', t)], { failureWorkflow: onFail }));
      const id = await ctx.c.start(ctx.ns, { k: 1 });
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'worker gave up' });
      const failureId = await eventuallyValue(async () => (await ctx.c.workflow(id)).output?.['conductor.failure_workflow']);
      const failure = await ctx.c.waitWorkflow(failureId);
      return { wf: ctx.norm(await ctx.c.workflow(id)), failure: ctx.norm(failure) };
    },
  },
  {
    name: 'terminate with triggerFailureWorkflow',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const onFail = `${ctx.ns}_onfail`;
      await define(ctx, { [t]: {} }, wfDef(onFail, [sys('SET_VARIABLE', 'note', { reason: '${workflow.input.reason}' })]));
      await ctx.c.workflowDef(wfDef(ctx.ns, [simple('a', t)], { failureWorkflow: onFail }));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.ok('DELETE', `/api/workflow/${id}?reason=${encodeURIComponent('operator stop')}&triggerFailureWorkflow=true`);
      // Whether a failure workflow starts at all is the question: look for one for a while.
      const failureId = await eventuallyValue(async () => (await ctx.c.workflow(id)).output?.['conductor.failure_workflow'], 15_000).catch(() => undefined);
      return { wf: ctx.norm(await ctx.c.workflow(id)), failure: failureId ? ctx.norm(await ctx.c.waitWorkflow(failureId)) : 'none started' };
    },
  },
  // Management operations
  {
    name: 'pause and resume a running workflow',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t), simple('b', t)]));
      const id = await ctx.c.start(ctx.ns);
      const pause = await status(ctx.c.req('PUT', `/api/workflow/${id}/pause`));
      await ctx.c.work(t, 'COMPLETED');
      // Paused: the completed task does not schedule the next one.
      const paused = await ctx.c.waitWorkflow(id, (w) => lastTask(w, 'a')?.status === 'COMPLETED');
      const resume = await status(ctx.c.req('PUT', `/api/workflow/${id}/resume`));
      await ctx.c.work(t, 'COMPLETED');
      const resumeDone = await status(ctx.c.req('PUT', `/api/workflow/${id}/resume`));
      return { pause, paused: ctx.norm(paused), resume, wf: ctx.norm(await ctx.c.waitWorkflow(id)), resumeDone };
    },
  },
  {
    name: 'terminate with a reason, then terminate again',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.poll(t);
      const first = await status(ctx.c.req('DELETE', `/api/workflow/${id}?reason=${encodeURIComponent('no longer needed')}`));
      const second = await status(ctx.c.req('DELETE', `/api/workflow/${id}?reason=again`));
      return { first, second, wf: ctx.norm(await ctx.c.workflow(id)) };
    },
  },
  {
    name: 'restart a completed workflow',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)], { outputParameters: { o: '${a.output.n}' } }));
      const id = await ctx.c.start(ctx.ns, { q: 1 });
      await ctx.c.work(t, 'COMPLETED', { n: 1 });
      await ctx.c.waitWorkflow(id);
      const restart = await status(ctx.c.req('POST', `/api/workflow/${id}/restart`));
      await ctx.c.work(t, 'COMPLETED', { n: 2 });
      return { restart, wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'retry a failed workflow from the failed task',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t), simple('b', t)]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'COMPLETED', { a: 1 });
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'b failed' });
      const failed = await ctx.c.waitWorkflow(id);
      const retry = await status(ctx.c.req('POST', `/api/workflow/${id}/retry`));
      await ctx.c.work(t, 'COMPLETED', { b: 2 });
      const retryDone = await status(ctx.c.req('POST', `/api/workflow/${id}/retry`));
      return { failed: ctx.norm(failed), retry, wf: ctx.norm(await ctx.c.waitWorkflow(id)), retryDone };
    },
  },
  {
    name: 'rerun from a task with new task input',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t, { v: '${workflow.input.v}' }), simple('b', t)]));
      const id = await ctx.c.start(ctx.ns, { v: 1 });
      await ctx.c.work(t, 'COMPLETED', { a: 1 });
      await ctx.c.work(t, 'COMPLETED', { b: 1 });
      const done = await ctx.c.waitWorkflow(id);
      const rerun = await ctx.c.req('POST', `/api/workflow/${id}/rerun`, { reRunFromTaskId: lastTask(done, 'b').taskId, taskInput: { fresh: true } });
      await ctx.c.work(t, 'COMPLETED', { b: 2 });
      return { rerun: { status: rerun.status, sameId: String(rerun.body).trim() === id }, wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'skip a task not yet scheduled',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t), simple('b', t), simple('c', t)]));
      const id = await ctx.c.start(ctx.ns);
      const skip = await status(ctx.c.req('PUT', `/api/workflow/${id}/skiptask/b`, { taskInput: { si: 1 }, taskOutput: { so: 2 } }));
      await ctx.c.work(t, 'COMPLETED');
      await ctx.c.work(t, 'COMPLETED');
      return { skip, wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'remove a workflow, then it is gone',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const id = await ctx.c.start(ctx.ns);
      const removeRunning = await status(ctx.c.req('DELETE', `/api/workflow/${id}/remove`));
      const getAfter = await status(ctx.c.req('GET', `/api/workflow/${id}`));
      const removeAgain = await status(ctx.c.req('DELETE', `/api/workflow/${id}/remove`));
      return { removeRunning, getAfter, removeAgain };
    },
  },
  {
    name: 'bulk pause, resume and terminate',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const ids = [await ctx.c.start(ctx.ns), await ctx.c.start(ctx.ns)];
      const bulk = async (method: string, op: string, body: unknown) => {
        const r = await ctx.c.req(method, `/api/workflow/bulk/${op}`, body);
        return {
          status: r.status,
          ok: [...(r.body?.bulkSuccessfulResults ?? [])].map((x: string) => ids.indexOf(x)).sort(),
          failed: Object.keys(r.body?.bulkErrorResults ?? {})
            .map((x) => (ids.includes(x) ? ids.indexOf(x) : x))
            .sort(),
        };
      };
      const pause = await bulk('PUT', 'pause', ids);
      const statuses = await Promise.all(ids.map(async (id) => (await ctx.c.workflow(id)).status));
      const resume = await bulk('PUT', 'resume', ids);
      const terminate = await bulk('POST', 'terminate?reason=bulk', [...ids, 'no-such-workflow']);
      const after = await Promise.all(ids.map(async (id) => ctx.norm(await ctx.c.workflow(id))));
      return { pause, statuses, resume, terminate, after };
    },
  },
  {
    name: 'task update by reference name and the task logs',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t), simple('b', t)]));
      const id = await ctx.c.start(ctx.ns);
      const polled = await ctx.c.poll(t);
      // Conductor's clients post the line as a bare string body.
      const logPost = await status(ctx.c.req('POST', `/api/tasks/${polled.taskId}/log`, undefined, { raw: 'a log line', contentType: 'application/json' }));
      const logBody = await ctx.c.ok('GET', `/api/tasks/${polled.taskId}/log`);
      const logs = Array.isArray(logBody) ? logBody.map((l: any) => l.log) : logBody;
      const byRef = await status(ctx.c.req('POST', `/api/tasks/${id}/a/COMPLETED?workerid=oracle`, { viaRef: 1 }));
      const unknownRef = await status(ctx.c.req('POST', `/api/tasks/${id}/zzz/COMPLETED`, {}));
      const task = await ctx.c.ok('GET', `/api/tasks/${polled.taskId}`);
      await ctx.c.work(t, 'COMPLETED');
      return {
        logPost,
        logs,
        byRef,
        unknownRef,
        task: ctx.mask({ status: task.status, outputData: task.outputData, workerId: task.workerId }),
        wf: ctx.norm(await ctx.c.waitWorkflow(id)),
      };
    },
  },
  {
    name: 'task queue sizes and poll data',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const ids = [await ctx.c.start(ctx.ns), await ctx.c.start(ctx.ns), await ctx.c.start(ctx.ns)];
      const sizes = await eventuallyValue(async () => {
        const r = await ctx.c.ok('GET', `/api/tasks/queue/sizes?taskType=${t}`);
        return r[t] === 3 ? r : undefined;
      });
      await ctx.c.work(t, 'COMPLETED');
      const polldata = ((await ctx.c.ok('GET', `/api/tasks/queue/polldata?taskType=${t}`)) as any[]).map((p) => ({
        queueName: p.queueName,
        workerId: p.workerId,
        domain: p.domain,
        polled: p.lastPollTime > 0,
      }));
      const after = await ctx.c.ok('GET', `/api/tasks/queue/sizes?taskType=${t}`);
      for (const id of ids) await ctx.c.req('DELETE', `/api/workflow/${id}?reason=done`);
      return { sizes, after, polldata };
    },
  },
  {
    name: 'correlated and running workflows by name',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const a = await ctx.c.start(ctx.ns, {}, { correlationId: 'c-1' });
      const b = await ctx.c.start(ctx.ns, {}, { correlationId: 'c-1' });
      await ctx.c.ok('DELETE', `/api/workflow/${b}?reason=stop`);
      const open = ((await ctx.c.ok('GET', `/api/workflow/${ctx.ns}/correlated/c-1?includeClosed=false&includeTasks=false`)) as any[])
        .map((w) => [a, b].indexOf(w.workflowId))
        .sort();
      const all = ((await ctx.c.ok('GET', `/api/workflow/${ctx.ns}/correlated/c-1?includeClosed=true&includeTasks=false`)) as any[])
        .map((w) => [a, b].indexOf(w.workflowId))
        .sort();
      const running = ((await ctx.c.ok('GET', `/api/workflow/running/${ctx.ns}?version=1`)) as string[]).map((id) => [a, b].indexOf(id)).sort();
      await ctx.c.ok('DELETE', `/api/workflow/${a}?reason=stop`);
      return { open, all, running };
    },
  },
  {
    name: 'workflow status summary and tasks of a workflow',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t), simple('b', t)], { outputParameters: { o: '${a.output.v}' } }));
      const id = await ctx.c.start(ctx.ns, {}, { correlationId: 'sum' });
      await ctx.c.work(t, 'COMPLETED', { v: 1 });
      await ctx.c.work(t, 'COMPLETED', { v: 2 });
      await ctx.c.waitWorkflow(id);
      const summary = await ctx.c.ok('GET', `/api/workflow/${id}/status?includeOutput=true&includeVariables=true`);
      const withoutTasks = await ctx.c.ok('GET', `/api/workflow/${id}?includeTasks=false`);
      return { summary: ctx.mask(summary), withoutTasks: ctx.norm(withoutTasks) };
    },
  },
  {
    name: 'task definition CRUD and errors',
    async run(ctx) {
      const name = `${ctx.ns}_td`;
      const create = await status(ctx.c.req('POST', '/api/metadata/taskdefs', [taskDef(name, { description: 'one', inputKeys: ['a'], retryCount: 2 })]));
      const got = await ctx.c.ok('GET', `/api/metadata/taskdefs/${name}`);
      const update = await status(ctx.c.req('PUT', '/api/metadata/taskdefs', taskDef(name, { description: 'two', retryCount: 3 })));
      const got2 = await ctx.c.ok('GET', `/api/metadata/taskdefs/${name}`);
      const missing = await status(ctx.c.req('GET', `/api/metadata/taskdefs/${name}_none`));
      const del = await status(ctx.c.req('DELETE', `/api/metadata/taskdefs/${name}`));
      const delAgain = await status(ctx.c.req('DELETE', `/api/metadata/taskdefs/${name}`));
      const invalid = await status(ctx.c.req('POST', '/api/metadata/taskdefs', [{ retryCount: 1 }]));
      const pickDef = (d: any) => ({
        name: d.name,
        description: d.description,
        retryCount: d.retryCount,
        inputKeys: d.inputKeys,
        timeoutSeconds: d.timeoutSeconds,
        responseTimeoutSeconds: d.responseTimeoutSeconds,
        retryLogic: d.retryLogic,
        timeoutPolicy: d.timeoutPolicy,
      });
      return { create, got: ctx.mask(pickDef(got)), update, got2: ctx.mask(pickDef(got2)), missing, del, delAgain, invalid };
    },
  },
  {
    name: 'workflow definition versions, update and delete',
    async run(ctx) {
      const def = wfDef(ctx.ns, [sys('SET_VARIABLE', 'v', { a: 1 })], { description: 'v1' });
      const create = await status(ctx.c.req('POST', '/api/metadata/workflow', def));
      const dup = await status(ctx.c.req('POST', '/api/metadata/workflow', def));
      const v2 = await status(ctx.c.req('PUT', '/api/metadata/workflow', [{ ...def, version: 2, description: 'v2' }]));
      const latest = await ctx.c.ok('GET', `/api/metadata/workflow/${ctx.ns}`);
      const first = await ctx.c.ok('GET', `/api/metadata/workflow/${ctx.ns}?version=1`);
      const missingVersion = await status(ctx.c.req('GET', `/api/metadata/workflow/${ctx.ns}?version=9`));
      const del = await status(ctx.c.req('DELETE', `/api/metadata/workflow/${ctx.ns}/1`));
      const delAgain = await status(ctx.c.req('DELETE', `/api/metadata/workflow/${ctx.ns}/1`));
      const afterDel = await ctx.c.ok('GET', `/api/metadata/workflow/${ctx.ns}`);
      const invalid = await status(ctx.c.req('POST', '/api/metadata/workflow', { name: `${ctx.ns}_bad`, version: 1, tasks: [] }));
      const startMissing = await status(ctx.c.req('POST', '/api/workflow', { name: `${ctx.ns}_none`, input: {} }));
      const pick = (d: any) => ({ name: d.name, version: d.version, description: d.description });
      return { create, dup, v2, latest: pick(latest), first: pick(first), missingVersion, del, delAgain, afterDel: pick(afterDel), invalid, startMissing };
    },
  },
  {
    name: 'unknown workflow and task ids',
    async run(ctx) {
      const none = '00000000-0000-0000-0000-000000000000';
      return {
        get: await status(ctx.c.req('GET', `/api/workflow/${none}`)),
        pause: await status(ctx.c.req('PUT', `/api/workflow/${none}/pause`)),
        terminate: await status(ctx.c.req('DELETE', `/api/workflow/${none}`)),
        retry: await status(ctx.c.req('POST', `/api/workflow/${none}/retry`)),
        task: await status(ctx.c.req('GET', `/api/tasks/${none}`)),
        update: await status(ctx.c.req('POST', '/api/tasks', { workflowInstanceId: none, taskId: none, status: 'COMPLETED' })),
      };
    },
  },
  // Search
  {
    name: 'search workflows by type and status, and tasks by type',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      await define(ctx, { [t]: {} }, wfDef(ctx.ns, [simple('a', t)]));
      const done = await ctx.c.start(ctx.ns, { k: 'one' }, { correlationId: 's-1' });
      await ctx.c.work(t, 'COMPLETED', { r: 1 });
      await ctx.c.waitWorkflow(done);
      const running = await ctx.c.start(ctx.ns, { k: 'two' }, { correlationId: 's-2' });
      const ids = [done, running];
      const statusOf = async (id: string): Promise<string> => (await ctx.c.ok('GET', `/api/workflow/${id}?includeTasks=false`)).status;
      // The index follows the store (in Baton after the turn, through the outbox): compared once it shows `expected` as the store does.
      const search = async (query: string, expected: string[]) =>
        eventuallyValue(async () => {
          const r = await ctx.c.ok('GET', `/api/workflow/search?start=0&size=10&freeText=*&query=${encodeURIComponent(query)}`);
          const want = await Promise.all(expected.map(async (id) => ({ id, status: await statusOf(id) })));
          const caughtUp = want.every((w) => r.results.some((s: any) => s.workflowId === w.id && s.status === w.status));
          return caughtUp
            ? {
                totalHits: r.totalHits,
                results: r.results
                  .map((s: any) => ({
                    who: ids.indexOf(s.workflowId),
                    status: s.status,
                    workflowType: s.workflowType,
                    correlationId: s.correlationId,
                    version: s.version,
                  }))
                  .sort((x: any, y: any) => x.who - y.who),
              }
            : undefined;
        });
      const byType = await search(`workflowType IN (${ctx.ns})`, ids);
      const completed = await search(`workflowType IN (${ctx.ns}) AND status IN (COMPLETED)`, [done]);
      const tasks = await eventuallyValue(async () => {
        // Conductor indexes a task when it is updated, not when scheduled: only finished ones are compared.
        const r = await ctx.c.ok(
          'GET',
          `/api/tasks/search?start=0&size=10&freeText=*&query=${encodeURIComponent(`taskType IN (${t}) AND status IN (COMPLETED)`)}`,
        );
        return r.totalHits >= 1 ? { totalHits: r.totalHits, statuses: r.results.map((s: any) => s.status).sort() } : undefined;
      });
      await ctx.c.ok('DELETE', `/api/workflow/${running}?reason=done`);
      return { byType, completed, tasks };
    },
  },
  // Issue 12's differences: sub-workflow names from expressions, chains reopened by a retried leaf,
  // permissive tasks in forks, children of a workflow ended by TERMINATE.
  {
    name: 'SUB_WORKFLOW with its name from workflow input',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const child = `${ctx.ns}_child`;
      await define(ctx, { [t]: {} }, wfDef(child, [simple('c1', t)], { outputParameters: { childOut: '${c1.output.r}' } }));
      await ctx.c.workflowDef(
        wfDef(ctx.ns, [sys('SUB_WORKFLOW', 'sub', { v: 1 }, { subWorkflowParam: { name: '${workflow.input.subwf}', version: 1 } })], {
          outputParameters: { fromChild: '${sub.output.childOut}' },
        }),
      );
      const id = await ctx.c.start(ctx.ns, { subwf: child });
      await ctx.c.work(t, 'COMPLETED', { r: 7 });
      const wf = await ctx.c.waitWorkflow(id);
      return { wf: ctx.norm(wf), child: ctx.norm(await ctx.c.workflow(lastTask(wf, 'sub').subWorkflowId)) };
    },
  },
  {
    name: 'SUB_WORKFLOW chain: retrying the failed leaf reopens every ancestor',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const leaf = `${ctx.ns}_leaf`;
      const middle = `${ctx.ns}_middle`;
      await define(ctx, { [t]: {} }, wfDef(leaf, [simple('l', t)]));
      await ctx.c.workflowDef(wfDef(middle, [sys('SUB_WORKFLOW', 'm', {}, { subWorkflowParam: { name: leaf, version: 1 } })]));
      await ctx.c.workflowDef(wfDef(ctx.ns, [sys('SUB_WORKFLOW', 'r', {}, { subWorkflowParam: { name: middle, version: 1 } })]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(t, 'FAILED', {}, { reasonForIncompletion: 'leaf broke' });
      const failed = await ctx.c.waitWorkflow(id);
      const middleId = lastTask(failed, 'r').subWorkflowId;
      const leafId = lastTask(await ctx.c.waitWorkflow(middleId), 'm').subWorkflowId;
      const retry = await status(ctx.c.req('POST', `/api/workflow/${leafId}/retry`));
      const rootAfterRetry = (await ctx.c.waitWorkflow(id, (wf) => wf.status === 'RUNNING')).status;
      await ctx.c.work(t, 'COMPLETED', { fixed: true });
      const wf = await ctx.c.waitWorkflow(id, (w) => w.status === 'COMPLETED');
      return { retry, rootAfterRetry, wf: ctx.norm(wf), middle: (await ctx.c.waitWorkflow(middleId)).status, leaf: (await ctx.c.waitWorkflow(leafId)).status };
    },
  },
  {
    name: 'FORK_JOIN with a failed permissive task fails at the JOIN once the other branch is done',
    async run(ctx) {
      const tp = `${ctx.ns}_p`;
      const tq = `${ctx.ns}_q`;
      const fork = sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('p', tp, {}, { permissive: true })], [simple('q', tq)]] });
      await define(ctx, { [tp]: {}, [tq]: {} }, wfDef(ctx.ns, [fork, sys('JOIN', 'join', {}, { joinOn: ['p', 'q'] }), sys('SET_VARIABLE', 'after', { x: 1 })]));
      const id = await ctx.c.start(ctx.ns);
      await ctx.c.work(tp, 'FAILED', {}, { reasonForIncompletion: 'soft failure' });
      const mid = await ctx.c.workflow(id);
      await ctx.c.work(tq, 'COMPLETED', { q: 1 });
      return { midStatus: mid.status, wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
  {
    name: 'FORK_JOIN: a SUB_WORKFLOW child is terminated when a WAIT completed leads to TERMINATE with COMPLETED',
    async run(ctx) {
      const t = `${ctx.ns}_t`;
      const child = `${ctx.ns}_child`;
      await define(ctx, { [t]: {} }, wfDef(child, [simple('c1', t)]));
      const fork = sys(
        'FORK_JOIN',
        'fork',
        {},
        {
          forkTasks: [
            [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: child, version: 1 } })],
            [sys('WAIT', 'w'), sys('TERMINATE', 'stop', { terminationStatus: 'COMPLETED' })],
          ],
        },
      );
      await ctx.c.workflowDef(wfDef(ctx.ns, [fork, sys('JOIN', 'join', {}, { joinOn: ['sub', 'stop'] })]));
      const id = await ctx.c.start(ctx.ns);
      const running = await ctx.c.waitWorkflow(id, (wf) => !!lastTask(wf, 'sub')?.subWorkflowId && lastTask(wf, 'w')?.status === 'IN_PROGRESS');
      const childId = lastTask(running, 'sub').subWorkflowId;
      await ctx.c.waitTask(childId, 'c1', 'SCHEDULED');
      await ctx.c.ok('POST', `/api/tasks/${id}/w/COMPLETED?workerid=oracle`, {});
      const childNow = await ctx.c.waitWorkflow(childId);
      return { child: { status: childNow.status, reason: ctx.mask(childNow.reasonForIncompletion) }, wf: ctx.norm(await ctx.c.waitWorkflow(id)) };
    },
  },
];

/** Polls `fn` until it returns a defined, truthy value (generous limit: indexing and event queues lag). */
export async function eventuallyValue<T>(fn: () => Promise<T | undefined>, limitMs = 90_000): Promise<T> {
  const until = Date.now() + limitMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > until) throw new Error(`condition not met within ${limitMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
