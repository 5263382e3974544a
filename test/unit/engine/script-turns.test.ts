import type { ScriptEngine } from '../../../src/scripting/script-engine';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// Scripts leave the decider as requests; the turn evaluates them in the script workers and feeds the
// outcomes back (Run.settle does what the actor does). DO_WHILE stops at its iteration cap.

let evaluations = 0;
/** The real engine, counting what it is asked to evaluate. */
const counting = (scripts: ScriptEngine): ScriptEngine => ({
  timeoutMs: scripts.timeoutMs,
  evalExpression: (e, i) => (evaluations++, scripts.evalExpression(e, i)),
  evalFunctionBody: (b, i) => (evaluations++, scripts.evalFunctionBody(b, i)),
  jq: (q, i) => (evaluations++, scripts.jq(q, i)),
  dispose: () => scripts.dispose(),
});
// The default time limit here: the script workers run at nice 19, so on a busy CI machine a tight one
// would fail ordinary scripts that waited for a core.
const env = useTestEnv({ wrapScripts: counting });
beforeEach(() => {
  evaluations = 0;
});

const loop = (loopCondition: string, loopOver: unknown[], extra: Record<string, unknown> = {}) =>
  workflowDef({ tasks: [{ name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE', loopCondition, loopOver, inputParameters: {}, ...extra }] });

describe('DO_WHILE iteration cap', () => {
  it('a condition that never turns false stops at the cap: the loop and the workflow fail with the reason', async () => {
    env.doWhileMaxIterations = 3;
    const run = await Run.started(env, loop('true', [simple('l1')]));
    for (const ref of ['l1__1', 'l1__2']) await run.finish(ref);
    expect(run.task('loop')).toMatchObject({ status: 'IN_PROGRESS', iteration: 3 });
    await run.finish('l1__3');
    const reason = 'DO_WHILE loop reached the limit of 3 iterations (BATON_DO_WHILE_MAX_ITERATIONS) and its loopCondition still holds';
    expect(run.task('loop')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', iteration: 3, reasonForIncompletion: reason });
    expect(run.refs()).toEqual(['loop', 'l1__1', 'l1__2', 'l1__3']);
    expect(run.wf).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `Task ${run.task('loop').taskId} failed with status: FAILED and reason: '${reason}'`,
    });
  });

  it('a condition that turns false at the cap completes the loop', async () => {
    env.doWhileMaxIterations = 2;
    const run = await Run.started(env, loop('$.loop.iteration < 2', [simple('l1')]));
    await run.finish('l1__1');
    await run.finish('l1__2');
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', iteration: 2 });
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('an endless loop of INLINE tasks runs to the cap within the start turn and fails, never left RUNNING', async () => {
    env.doWhileMaxIterations = 150;
    const run = await Run.started(env, loop('true', [sys('INLINE', 'step', { expression: '$.n + 1', n: '${loop.output.iteration}' })]));
    expect(run.task('loop')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', iteration: 150 });
    expect(run.task('step__150').outputData).toEqual({ result: 151 });
    expect(run.wf.status).toBe('FAILED');
    expect(run.log.pendingScripts).toBe(0);
  });

  it('an items list longer than the cap fails the loop at the cap', async () => {
    env.doWhileMaxIterations = 2;
    const run = await Run.started(env, loop('true', [sys('NOOP', 'n')], { items: '${workflow.input.list}' }), { input: { list: ['a', 'b', 'c'] } });
    expect(run.task('loop')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'DO_WHILE loop reached the limit of 2 iterations (BATON_DO_WHILE_MAX_ITERATIONS) and its items list has 3 entries',
    });
  });

  it('a loop of tasks that finish at once, longer than one decision may run, goes on in the next turn', async () => {
    const list = Array.from({ length: 700 }, (_, i) => i);
    const run = new Run(env, loop('true', [sys('NOOP', 'a'), sys('NOOP', 'b')], { items: '${workflow.input.list}' }), { input: { list } });
    // The decide loop stopped at its round limit; the actor sets its reminder at once when it sees this.
    expect(run.log.unfinished).toBe(true);
    expect(run.task('loop').status).toBe('IN_PROGRESS');
    let turns = 0;
    while (run.log.unfinished && turns++ < 10) run.timer();
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', iteration: 700 });
    expect(run.wf.status).toBe('COMPLETED');
  });
});

describe('scripts asked for by a turn', () => {
  it('an INLINE waits IN_PROGRESS for its script; nothing after it is decided until the outcome comes back', async () => {
    const run = new Run(
      env,
      workflowDef({ tasks: [sys('INLINE', 'in', { expression: '$.x * 2', x: 21 }), simple('next', 'task_next', { v: '${in.output.result}' })] }),
    );
    expect(run.summary()).toEqual(['in:INLINE:IN_PROGRESS']);
    expect(run.effects('enqueue')).toEqual([]);
    await run.settle();
    expect(run.summary()).toEqual(['in:INLINE:COMPLETED', 'next:task_next:SCHEDULED']);
    expect(run.task('next').inputData).toEqual({ v: 42 });
    // The effects of the whole turn are in its one log.
    expect(run.effects('enqueue').map((e) => e.taskId)).toEqual([run.task('next').taskId]);
  });

  it('fork branches ask together; their outcomes are applied in order and the JOIN completes in the same turn', async () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN',
          inputParameters: {},
          forkTasks: [[sys('INLINE', 'a', { expression: "'A'" })], [sys('JSON_JQ_TRANSFORM', 'b', { queryExpression: '"B"' })]],
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', inputParameters: {}, joinOn: ['a', 'b'] },
      ],
    });
    const run = new Run(env, def);
    expect(run.log.pendingScripts).toBe(2);
    await run.settle();
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a: { result: 'A' }, b: { result: 'B', resultList: ['B'] } } });
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('a script whose task was canceled in the same turn is not evaluated', async () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'f',
          taskReferenceName: 'f',
          type: 'FORK_JOIN',
          inputParameters: {},
          forkTasks: [[sys('INLINE', 'spin', { expression: 'while (true) {}' })], [sys('TERMINATE', 'stop', { terminationStatus: 'TERMINATED' })]],
        },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', inputParameters: {}, joinOn: ['spin', 'stop'] },
      ],
    });
    const run = await Run.started(env, def);
    expect(evaluations).toBe(0);
    expect(run.task('spin').status).toBe('CANCELED');
    expect(run.wf.status).toBe('TERMINATED');
    expect(run.log.pendingScripts).toBe(0);
  });

  it('a javascript SWITCH waits for its case; value-param needs no script', async () => {
    const sw = (evaluatorType: string, expression: string) =>
      workflowDef({
        tasks: [
          { name: 'sw', taskReferenceName: 'sw', type: 'SWITCH', evaluatorType, expression, inputParameters: { k: 'b' }, decisionCases: { b: [simple('tb')] } },
        ],
      });
    const js = new Run(env, sw('javascript', '$.k'));
    expect(js.summary()).toEqual(['sw:SWITCH:IN_PROGRESS']);
    await js.settle();
    expect(js.summary()).toEqual(['sw:SWITCH:COMPLETED', 'tb:task_tb:SCHEDULED']);
    const valueParam = new Run(env, sw('value-param', 'k'));
    expect(valueParam.summary()).toEqual(['sw:SWITCH:COMPLETED', 'tb:task_tb:SCHEDULED']);
    expect(valueParam.log.pendingScripts).toBe(0);
  });
});

describe("a script's own error and its time limit are told apart (limit 800 ms)", () => {
  // Long enough for an ordinary script under load, short enough to spin into it several times.
  const limitedEnv = useTestEnv({ scripts: { timeoutMs: 800 } });
  it('INLINE: the time limit is FAILED (retryable) in Conductor words; its own error is FAILED_WITH_TERMINAL_ERROR', async () => {
    const spin = await Run.started(limitedEnv, workflowDef({ tasks: [sys('INLINE', 'in', { expression: 'while (true) {}' })] }));
    expect(spin.task('in')).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: 'Script not evaluated within 800 ms, interrupted.',
      outputData: { error: 'Script not evaluated within 800 ms, interrupted.' },
    });
    const broken = await Run.started(limitedEnv, workflowDef({ tasks: [sys('INLINE', 'in', { expression: 'undefinedName + 1' })] }));
    expect(broken.task('in')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: "Error evaluating the script `JavaScript error during evaluation: ReferenceError: 'undefinedName' is not defined`",
    });
  });

  it('an INLINE stopped at the time limit is retried when its definition allows it', async () => {
    limitedEnv.register({ name: 'in', retryCount: 1, retryDelaySeconds: 0 });
    const run = await Run.started(limitedEnv, workflowDef({ tasks: [sys('INLINE', 'in', { expression: 'while (true) {}' })] }));
    expect(run.summary()).toEqual(['in:INLINE:FAILED', 'in:INLINE:FAILED']);
    expect(run.wf.status).toBe('FAILED');
  });

  it('LAMBDA, JSON_JQ_TRANSFORM, SWITCH and the DO_WHILE condition each say which it was', async () => {
    const lambda = await Run.started(limitedEnv, workflowDef({ tasks: [sys('LAMBDA', 'l', { scriptExpression: 'while (true) {}' })] }));
    expect(lambda.task('l')).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'Script not evaluated within 800 ms, interrupted.' });
    const jq = await Run.started(limitedEnv, workflowDef({ tasks: [sys('JSON_JQ_TRANSFORM', 'q', { queryExpression: '[range(1e9)]' })] }));
    expect(jq.task('q')).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'jq query exceeded the time limit of 800 ms and was stopped' });
    const badJq = await Run.started(limitedEnv, workflowDef({ tasks: [sys('JSON_JQ_TRANSFORM', 'q', { queryExpression: '.a | | .b' })] }));
    expect(badJq.task('q').reasonForIncompletion).toMatch(/^jq query does not compile: /);
    const sw = await Run.started(
      limitedEnv,
      workflowDef({
        tasks: [
          {
            name: 'sw',
            taskReferenceName: 'sw',
            type: 'SWITCH',
            evaluatorType: 'javascript',
            expression: 'while (true) {}',
            inputParameters: {},
            decisionCases: { a: [simple('ta')] },
          },
        ],
      }),
    );
    expect(sw.task('sw')).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: 'Error evaluating the expression: Script not evaluated within 800 ms, interrupted.',
    });
    const cond = await Run.started(limitedEnv, loop('while (true) {}', [sys('NOOP', 'n')]));
    expect(cond.task('loop')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'Unable to evaluate condition while (true) {}, exception Script not evaluated within 800 ms, interrupted.',
    });
  });
});
