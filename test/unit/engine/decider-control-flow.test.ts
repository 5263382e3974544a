import { childChanged } from '../../../src/engine/commands/child-changed';
import { rerunWorkflow } from '../../../src/engine/commands/rerun';
import { retryWorkflow } from '../../../src/engine/commands/retry';
import { applyTaskResult } from '../../../src/engine/commands/task-result';
import { terminateWorkflow } from '../../../src/engine/commands/terminate';
import type { WorkflowStatus } from '../../../src/model/statuses';
import { Run, simple, sys, T0, useTestEnv, workflowDef } from './engine-harness';

// Control flow and system tasks: forks and joins, SWITCH/DECISION, DO_WHILE, TERMINATE, SUB_WORKFLOW, WAIT/HUMAN.

const env = useTestEnv();

describe('FORK_JOIN / JOIN', () => {
  const forkDef = (joinOn: string[], b1Extra: Record<string, unknown> = {}) =>
    workflowDef({
      tasks: [
        sys('FORK_JOIN', 'f', {}, { forkTasks: [[simple('a1'), simple('a2')], [simple('b1', 'task_b1', {}, b1Extra)]] }),
        sys('JOIN', 'j', {}, { joinOn }),
        simple('after', 'task_after', { fromJoin: '${j.output.b1.b}' }),
      ],
    });

  it('start runs the fork: FORK COMPLETED, first task of every branch SCHEDULED, JOIN IN_PROGRESS', () => {
    const run = new Run(env, forkDef(['a2', 'b1']));
    expect(run.summary()).toEqual(['f:FORK:COMPLETED', 'a1:task_a1:SCHEDULED', 'b1:task_b1:SCHEDULED', 'j:JOIN:IN_PROGRESS']);
    expect(run.tasks.map((t) => t.seq)).toEqual([1, 2, 3, 4]);
    expect(run.task('f').inputData.forkedTasks).toEqual(['a1', 'b1']);
    expect(run.task('f').workerId).toBe('test');
    expect(run.effects('enqueue').map((e) => e.queue.taskType)).toEqual(['task_a1', 'task_b1']);
  });

  it('the JOIN completes with the output of its joinOn refs when all are done, then the next task is scheduled', () => {
    const run = new Run(env, forkDef(['a2', 'b1']));
    run.complete('a1', { a: 1 });
    expect(run.task('a2').status).toBe('SCHEDULED');
    run.complete('b1', { b: 2 });
    expect(run.task('j').status).toBe('IN_PROGRESS');
    env.advance(4);
    run.complete('a2', { a: 2 });
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { a: 2 }, b1: { b: 2 } }, endTime: T0 + 4000 });
    expect(run.task('after')).toMatchObject({ status: 'SCHEDULED', inputData: { fromJoin: 2 } });
  });

  it('refs with an empty output are left out of the JOIN output', () => {
    const run = new Run(env, forkDef(['a2', 'b1']));
    run.complete('a1');
    run.complete('a2', { a: 2 });
    run.complete('b1', {});
    expect(run.task('j').outputData).toEqual({ a2: { a: 2 } });
  });

  it('an empty joinOn waits for the last task of every branch', () => {
    const run = new Run(env, forkDef([]));
    run.complete('b1', { b: 1 });
    run.complete('a1', { a: 1 });
    expect(run.task('j').status).toBe('IN_PROGRESS');
    run.complete('a2', { a: 2 });
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { a: 2 }, b1: { b: 1 } } });
  });

  it('a branch task failing for good fails the workflow at once; the rest is CANCELED', () => {
    env.register({ name: 'task_b1', retryCount: 0 });
    const run = new Run(env, forkDef(['a2', 'b1']));
    run.complete('a1');
    run.fail('b1', 'nope');
    expect(run.wf.status).toBe('FAILED');
    expect(run.summary()).toEqual(['f:FORK:COMPLETED', 'a1:task_a1:COMPLETED', 'b1:task_b1:FAILED', 'j:JOIN:CANCELED', 'a2:task_a2:CANCELED']);
    expect(run.wf.reasonForIncompletion).toBe(`Task ${run.task('b1').taskId} failed with status: FAILED and reason: 'nope'`);
  });

  it('an optional failing branch task becomes COMPLETED_WITH_ERRORS and so does the JOIN', () => {
    env.register({ name: 'task_b1', retryCount: 0 });
    const run = new Run(env, forkDef(['a2', 'b1'], { optional: true }));
    run.fail('b1');
    expect(run.task('b1').status).toBe('COMPLETED_WITH_ERRORS');
    run.complete('a1');
    run.complete('a2', { a: 2 });
    expect(run.task('j').status).toBe('COMPLETED_WITH_ERRORS');
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('a branch task retried automatically: the JOIN waits for the retry and takes its output', () => {
    env.register({ name: 'task_b1', retryCount: 1, retryDelaySeconds: 0 });
    const run = new Run(env, forkDef(['a2', 'b1']));
    run.complete('a1');
    run.complete('a2', { a: 2 });
    run.fail('b1');
    expect(run.task('j').status).toBe('IN_PROGRESS');
    run.complete('b1', { b: 'retry' });
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { a: 2 }, b1: { b: 'retry' } } });
  });

  it('retry after a failed branch reschedules the branch task and reopens the canceled JOIN', () => {
    env.register({ name: 'task_b1', retryCount: 0 });
    const run = new Run(env, forkDef(['a2', 'b1']));
    run.complete('a1');
    run.complete('a2', { a: 2 });
    run.fail('b1');
    expect(run.wf.status).toBe('FAILED');
    run.turn((t) => retryWorkflow(t));
    expect(run.task('b1')).toMatchObject({ status: 'SCHEDULED', retryCount: 1 });
    expect(run.task('j').status).toBe('IN_PROGRESS');
    run.complete('b1', { b: 3 });
    expect(run.task('j')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { a: 2 }, b1: { b: 3 } } });
  });
});

describe('FORK_JOIN_DYNAMIC', () => {
  it('dynamicForkTasksParam + dynamicForkTasksInputParamName: one task per listed WorkflowTask, JOIN on their refs', () => {
    const def = workflowDef({
      tasks: [
        sys(
          'FORK_JOIN_DYNAMIC',
          'df',
          { dynamicTasks: '${workflow.input.tasks}', dynamicTasksInput: '${workflow.input.inputs}' },
          { dynamicForkTasksParam: 'dynamicTasks', dynamicForkTasksInputParamName: 'dynamicTasksInput' },
        ),
        sys('JOIN', 'dj'),
      ],
    });
    const run = new Run(env, def, {
      input: {
        tasks: [
          { name: 'task_x', taskReferenceName: 'x1' },
          { name: 'task_x', taskReferenceName: 'x2', type: 'SIMPLE' },
        ],
        inputs: { x1: { a: 1 }, x2: { a: 2 } },
      },
    });
    expect(run.summary()).toEqual(['df:FORK:COMPLETED', 'x1:task_x:SCHEDULED', 'x2:task_x:SCHEDULED', 'dj:JOIN:IN_PROGRESS']);
    expect(run.task('x1').inputData).toEqual({ a: 1 });
    expect(run.task('x2').inputData).toEqual({ a: 2 });
    expect(run.task('df').inputData.forkedTasks).toEqual(['x1', 'x2']);
    expect(run.task('dj').workflowTask.joinOn).toEqual(['x1', 'x2']);
    run.complete('x2', { r: 2 });
    expect(run.task('dj').status).toBe('IN_PROGRESS');
    run.complete('x1', { r: 1 });
    expect(run.task('dj')).toMatchObject({ status: 'COMPLETED', outputData: { x1: { r: 1 }, x2: { r: 2 } } });
    expect(run.wf).toMatchObject({ status: 'COMPLETED', output: { x1: { r: 1 }, x2: { r: 2 } } });
  });

  it('the simple form forkTaskName + forkTaskInputs: refs _<name>_<i>, scalars wrapped as {input}, each with __index', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN_DYNAMIC', 'df', { forkTaskName: 'task_x', forkTaskInputs: '${workflow.input.list}' }), sys('JOIN', 'dj')],
    });
    const run = new Run(env, def, { input: { list: [{ a: 1 }, 7] } });
    expect(run.summary()).toEqual(['df:FORK:COMPLETED', '_task_x_0:task_x:SCHEDULED', '_task_x_1:task_x:SCHEDULED', 'dj:JOIN:IN_PROGRESS']);
    expect(run.task('_task_x_0').inputData).toEqual({ a: 1, __index: 0 });
    expect(run.task('_task_x_1').inputData).toEqual({ input: 7, __index: 1 });
    run.complete('_task_x_0', { i: 0 });
    run.complete('_task_x_1', { i: 1 });
    expect(run.task('dj').outputData).toEqual({ _task_x_0: { i: 0 }, _task_x_1: { i: 1 } });
  });

  it('the legacy dynamicForkJoinTasksParam form', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN_DYNAMIC', 'df', { spec: '${workflow.input.spec}' }, { dynamicForkJoinTasksParam: 'spec' }), sys('JOIN', 'dj')],
    });
    const run = new Run(env, def, { input: { spec: { dynamicTasks: [{ taskName: 'task_y', referenceName: 'y1', input: { q: 1 } }] } } });
    expect(run.summary()).toEqual(['df:FORK:COMPLETED', 'y1:task_y:SCHEDULED', 'dj:JOIN:IN_PROGRESS']);
    expect(run.task('y1').inputData).toEqual({ q: 1 });
  });

  it('an empty list completes the JOIN at once', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN_DYNAMIC', 'df', { forkTaskName: 'task_x', forkTaskInputs: [] }), sys('JOIN', 'dj'), simple('after')],
    });
    const run = new Run(env, def);
    expect(run.summary()).toEqual(['df:FORK:COMPLETED', 'dj:JOIN:COMPLETED', 'after:task_after:SCHEDULED']);
  });

  it('a dynamic-tasks input that is not a list fails the fork and the workflow', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN_DYNAMIC', 'df', { t: 'oops', i: {} }, { dynamicForkTasksParam: 't', dynamicForkTasksInputParamName: 'i' }), sys('JOIN', 'dj')],
    });
    const run = new Run(env, def);
    expect(run.task('df').status).toBe('FAILED');
    expect(run.wf.status).toBe('FAILED');
  });

  it('a duplicate reference fails the workflow', () => {
    const def = workflowDef({
      tasks: [
        sys('FORK_JOIN_DYNAMIC', 'df', { t: '${workflow.input.t}', i: {} }, { dynamicForkTasksParam: 't', dynamicForkTasksInputParamName: 'i' }),
        sys('JOIN', 'dj'),
      ],
    });
    const run = new Run(env, def, {
      input: {
        t: [
          { name: 'a', taskReferenceName: 'same' },
          { name: 'b', taskReferenceName: 'same' },
        ],
      },
    });
    expect(run.task('df').reasonForIncompletion).toBe('Duplicate task reference name same in dynamic fork');
    expect(run.wf.status).toBe('FAILED');
  });
});

describe('SWITCH and DECISION', () => {
  const switchDef = (sw: Record<string, unknown>, defaultCase: unknown[] = [simple('td')]) =>
    workflowDef({
      tasks: [
        { name: 'sw', taskReferenceName: 'sw', type: 'SWITCH', decisionCases: { a: [simple('ta')], b: [simple('tb'), simple('tb2')] }, defaultCase, ...sw },
        simple('after'),
      ],
    });
  const valueParam = { evaluatorType: 'value-param', expression: 'kind', inputParameters: { kind: '${workflow.input.k}' } };

  it('value-param picks the case by the input value; the branch then climbs out to the task after the switch', () => {
    const run = new Run(env, switchDef(valueParam), { input: { k: 'b' } });
    expect(run.summary()).toEqual(['sw:SWITCH:COMPLETED', 'tb:task_tb:SCHEDULED']);
    expect(run.task('sw').outputData).toEqual({ evaluationResult: ['b'], selectedCase: 'b' });
    run.complete('tb');
    expect(run.task('tb2').status).toBe('SCHEDULED');
    run.complete('tb2');
    expect(run.task('after').status).toBe('SCHEDULED');
    run.complete('after');
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('an unknown value takes the defaultCase', () => {
    const run = new Run(env, switchDef(valueParam), { input: { k: 'zzz' } });
    expect(run.summary()).toEqual(['sw:SWITCH:COMPLETED', 'td:task_td:SCHEDULED']);
    expect(run.task('sw').outputData).toEqual({ evaluationResult: ['zzz'], selectedCase: 'defaultCase' });
  });

  it('a missing value is the case "null"; an empty defaultCase goes straight to the next task', () => {
    const run = new Run(env, switchDef(valueParam, []), { input: {} });
    expect(run.summary()).toEqual(['sw:SWITCH:COMPLETED', 'after:task_after:SCHEDULED']);
    expect(run.task('sw').outputData.evaluationResult).toEqual(['null']);
  });

  const js = { evaluatorType: 'javascript', expression: "$.n > 5 ? 'a' : ($.n >= 0 ? 'b' : 'neg')", inputParameters: { n: '${workflow.input.n}' } };

  it.each([
    [9, 'ta'],
    [1, 'tb'],
    [-1, 'td'],
  ])('javascript evaluator with n=%d schedules %s', async (n, ref) => {
    const run = await Run.started(env, switchDef(js), { input: { n } });
    expect(run.refs()).toEqual(['sw', ref]);
  });

  it('an evaluator error fails the SWITCH and the workflow', async () => {
    const run = await Run.started(env, switchDef({ ...js, expression: '$.n.no.such' }), { input: { n: 1 } });
    expect(run.task('sw').status).toBe('FAILED');
    expect(run.task('sw').reasonForIncompletion).toMatch(/^Error evaluating the expression: /);
    expect(run.wf.status).toBe('FAILED');
  });

  it('DECISION with caseValueParam outputs caseOutput', () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'd',
          taskReferenceName: 'd',
          type: 'DECISION',
          caseValueParam: 'kind',
          inputParameters: { kind: '${workflow.input.k}' },
          decisionCases: { a: [simple('ta')] },
          defaultCase: [simple('td')],
        },
      ],
    });
    const run = new Run(env, def, { input: { k: 'a' } });
    expect(run.summary()).toEqual(['d:DECISION:COMPLETED', 'ta:task_ta:SCHEDULED']);
    expect(run.task('d').outputData).toEqual({ caseOutput: ['a'] });
    const other = new Run(env, def, { input: { k: 'q' } });
    expect(other.refs()).toEqual(['d', 'td']);
  });

  it('DECISION with a caseExpression', async () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'd',
          taskReferenceName: 'd',
          type: 'DECISION',
          caseExpression: "$.n > 5 ? 'big' : 'small'",
          inputParameters: { n: '${workflow.input.n}' },
          decisionCases: { big: [simple('tbig')], small: [simple('tsmall')] },
        },
      ],
    });
    expect((await Run.started(env, def, { input: { n: 10 } })).refs()).toEqual(['d', 'tbig']);
    expect((await Run.started(env, def, { input: { n: 1 } })).refs()).toEqual(['d', 'tsmall']);
  });
});

describe('DO_WHILE', () => {
  const loopDef = (loopCondition: string, loopOver = [simple('l1', 'task_l1', { x: '${workflow.input.x}' })]) =>
    workflowDef({
      tasks: [
        { name: 'loop', taskReferenceName: 'loop', type: 'DO_WHILE', loopCondition, loopOver, inputParameters: {} },
        simple('after', 'task_after', { last: '${l1.output.v}' }),
      ],
    });

  it('runs iterations with refs ref__N until the condition is false, recording each iteration output', async () => {
    const run = await Run.started(env, loopDef("$.loop['iteration'] < 3"), { input: { x: 'in' } });
    expect(run.summary()).toEqual(['loop:DO_WHILE:IN_PROGRESS', 'l1__1:task_l1:SCHEDULED']);
    expect(run.task('l1__1')).toMatchObject({ iteration: 1, inputData: { x: 'in' } });
    await run.finish('l1__1', { v: 1 });
    expect(run.task('loop').outputData['1']).toEqual({ l1: { v: 1 } });
    expect(run.task('l1__2')).toMatchObject({ status: 'SCHEDULED', iteration: 2 });
    await run.finish('l1__2', { v: 2 });
    await run.finish('l1__3', { v: 3 });
    expect(run.task('loop')).toMatchObject({
      status: 'COMPLETED',
      outputData: { iteration: 3, '1': { l1: { v: 1 } }, '2': { l1: { v: 2 } }, '3': { l1: { v: 3 } } },
    });
    expect(run.refs()).toEqual(['loop', 'l1__1', 'l1__2', 'l1__3', 'after']);
    expect(run.task('after').inputData).toEqual({ last: 3 }); // the base ref means the latest iteration
  });

  it('runs at least one iteration', async () => {
    const run = await Run.started(env, loopDef('false'));
    await run.finish('l1__1', { v: 1 });
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: 1, '1': { l1: { v: 1 } } } });
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('a body of two tasks: the second sees the first of the same iteration, the condition sees the body outputs', async () => {
    const body = [simple('l1', 'task_l1'), simple('l2', 'task_l2', { fromL1: '${l1.output.v}' })];
    const run = await Run.started(env, loopDef('$.l2.done != true', body));
    await run.finish('l1__1', { v: 'first' });
    expect(run.task('l2__1').inputData).toEqual({ fromL1: 'first' });
    await run.finish('l2__1', { done: false });
    await run.finish('l1__2', { v: 'second' });
    expect(run.task('l2__2').inputData).toEqual({ fromL1: 'second' });
    await run.finish('l2__2', { done: true });
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: 2 } });
    expect(run.task('loop').outputData['2']).toEqual({ l1: { v: 'second' }, l2: { done: true } });
  });

  it('a failing body task is retried inside the iteration', async () => {
    env.register({ name: 'task_l1', retryCount: 1, retryDelaySeconds: 0 });
    const run = await Run.started(env, loopDef('false'));
    run.fail('l1__1');
    await run.settle();
    expect(run.task('l1__1')).toMatchObject({ status: 'SCHEDULED', retryCount: 1, iteration: 1 });
    await run.finish('l1__1', { v: 'ok' });
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { '1': { l1: { v: 'ok' } } } });
  });

  it("a loopCondition that throws fails the loop for good, in Conductor's words", async () => {
    const run = await Run.started(env, loopDef('$.nothing.here'));
    await run.finish('l1__1');
    expect(run.task('loop').status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(run.task('loop').reasonForIncompletion).toMatch(
      /^Unable to evaluate condition \$\.nothing\.here, exception JavaScript error during evaluation: TypeError/,
    );
    expect(run.wf.status).toBe('FAILED');
  });

  // Conductor's ScriptEvaluator.toBoolean (src/scripting/truthy.ts): only true and numbers > 0 continue.
  it('a loopCondition that returns a string stops the loop', async () => {
    const run = await Run.started(env, loopDef("$.loop.iteration < 2 ? 'again' : false"));
    await run.finish('l1__1');
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: 1 } });
  });

  it('a loopCondition that returns a positive number continues', async () => {
    const run = await Run.started(env, loopDef('$.loop.iteration < 2 ? 1 : 0'));
    await run.finish('l1__1');
    await run.finish('l1__2');
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: { iteration: 2 } });
  });

  it('a SWITCH inside the body: its branch tasks carry the iteration suffix and count for the iteration', async () => {
    const body = [
      {
        name: 'sw',
        taskReferenceName: 'sw',
        type: 'SWITCH',
        evaluatorType: 'value-param',
        expression: 'k',
        inputParameters: { k: 'a' },
        decisionCases: { a: [simple('ta')] },
      },
      simple('tz'),
    ];
    const run = await Run.started(env, loopDef('$.loop.iteration < 2', body));
    expect(run.summary()).toEqual(['loop:DO_WHILE:IN_PROGRESS', 'sw__1:SWITCH:COMPLETED', 'ta__1:task_ta:SCHEDULED']);
    await run.finish('ta__1');
    await run.finish('tz__1');
    expect(run.refs()).toEqual(['loop', 'sw__1', 'ta__1', 'tz__1', 'sw__2', 'ta__2']);
    await run.finish('ta__2');
    await run.finish('tz__2', { z: 2 });
    expect(run.task('loop').status).toBe('COMPLETED');
    expect(run.task('loop').outputData['2']).toEqual({ sw: { evaluationResult: ['a'], selectedCase: 'a' }, ta: {}, tz: { z: 2 } });
  });

  it('a FORK_JOIN inside the body: the JOIN waits for the refs of its own iteration', async () => {
    const body = [
      { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', inputParameters: {}, forkTasks: [[simple('a')], [simple('b')]] },
      { name: 'j', taskReferenceName: 'j', type: 'JOIN', inputParameters: {}, joinOn: ['a', 'b'] },
    ];
    const run = await Run.started(env, loopDef('$.loop.iteration < 2', body));
    expect(run.summary()).toEqual([
      'loop:DO_WHILE:IN_PROGRESS',
      'f__1:FORK:COMPLETED',
      'a__1:task_a:SCHEDULED',
      'b__1:task_b:SCHEDULED',
      'j__1:JOIN:IN_PROGRESS',
    ]);
    await run.finish('a__1', { x: 1 });
    await run.finish('b__1', { y: 1 });
    expect(run.task('j__1')).toMatchObject({ status: 'COMPLETED', outputData: { a: { x: 1 }, b: { y: 1 } } });
    expect(run.task('j__2').status).toBe('IN_PROGRESS');
    await run.finish('a__2');
    expect(run.task('j__2').status).toBe('IN_PROGRESS');
    await run.finish('b__2');
    expect(run.task('loop')).toMatchObject({ status: 'COMPLETED', outputData: expect.objectContaining({ iteration: 2 }) });
  });

  it('a nested DO_WHILE gets refs ref__outer__inner', async () => {
    const inner = [
      { name: 'inner', taskReferenceName: 'inner', type: 'DO_WHILE', inputParameters: {}, loopCondition: '$.inner.iteration < 2', loopOver: [simple('x')] },
    ];
    const def = workflowDef({
      tasks: [{ name: 'outer', taskReferenceName: 'outer', type: 'DO_WHILE', inputParameters: {}, loopCondition: '$.outer.iteration < 2', loopOver: inner }],
    });
    const run = await Run.started(env, def);
    for (const ref of ['x__1__1', 'x__1__2', 'x__2__1', 'x__2__2']) await run.finish(ref);
    expect(run.refs()).toEqual(['outer', 'inner__1', 'x__1__1', 'x__1__2', 'inner__2', 'x__2__1', 'x__2__2']);
    expect(run.wf.status).toBe('COMPLETED');
  });

  const itemsDef = () =>
    workflowDef({
      tasks: [
        {
          name: 'each',
          taskReferenceName: 'each',
          type: 'DO_WHILE',
          items: '${workflow.input.list}',
          loopCondition: 'true',
          loopOver: [simple('e1', 'task_e1', { item: '${each.output.item}', index: '${each.output.index}' })],
          inputParameters: {},
        },
        simple('after'),
      ],
    });

  it('with items: one iteration per item, the body sees item and index', async () => {
    const run = await Run.started(env, itemsDef(), { input: { list: ['a', 'b'] } });
    expect(run.task('e1__1').inputData).toEqual({ item: 'a', index: 0 });
    await run.finish('e1__1', { r: 'A' });
    expect(run.task('e1__2').inputData).toEqual({ item: 'b', index: 1 });
    await run.finish('e1__2', { r: 'B' });
    expect(run.task('each')).toMatchObject({
      status: 'COMPLETED',
      outputData: expect.objectContaining({ iteration: 2, '1': { e1: { r: 'A' } }, '2': { e1: { r: 'B' } } }),
    });
    expect(run.refs()).toEqual(['each', 'e1__1', 'e1__2', 'after']);
  });

  it('with an empty items list: no iteration, the loop completes and the workflow moves on', async () => {
    const run = await Run.started(env, itemsDef(), { input: { list: [] } });
    expect(run.summary()).toEqual(['each:DO_WHILE:COMPLETED', 'after:task_after:SCHEDULED']);
    expect(run.task('each').outputData).toEqual({ iteration: 0 });
  });
});

describe('inline system tasks', () => {
  it('SET_VARIABLE merges its input into workflow.variables, readable as ${workflow.variables.x}', () => {
    const def = workflowDef({
      variables: { keep: 'k', counter: 0 },
      tasks: [
        sys('SET_VARIABLE', 'sv', { counter: '${workflow.input.n}', added: { deep: true } }),
        simple('t', 'task_t', { c: '${workflow.variables.counter}', keep: '${workflow.variables.keep}' }),
      ],
    });
    const run = new Run(env, def, { input: { n: 5 } });
    expect(run.task('sv').status).toBe('COMPLETED');
    expect(run.wf.variables).toEqual({ keep: 'k', counter: 5, added: { deep: true } });
    expect(run.task('t').inputData).toEqual({ c: 5, keep: 'k' });
    expect(def.variables).toEqual({ keep: 'k', counter: 0 }); // the definition is not mutated
  });

  it('SET_VARIABLE over 256 KB fails with a terminal error and keeps the old variables', () => {
    const def = workflowDef({ variables: { a: 1 }, tasks: [sys('SET_VARIABLE', 'sv', { big: '${workflow.input.big}' })] });
    const run = new Run(env, def, { input: { big: 'x'.repeat(256 * 1024) } });
    expect(run.task('sv')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: 'The variables payload size is above the limit of 256 KB',
    });
    expect(run.wf.variables).toEqual({ a: 1 });
    expect(run.wf.status).toBe('FAILED');
  });

  it('INLINE javascript: output.result is the value of the expression over $ = input', async () => {
    const def = workflowDef({
      tasks: [sys('INLINE', 'in', { evaluatorType: 'javascript', expression: '({ sum: $.a + $.b, list: [$.a] })', a: '${workflow.input.a}', b: 2 })],
    });
    const run = new Run(env, def, { input: { a: 1 } });
    // The turn asks for the script and waits; nothing is decided until its outcome comes back.
    expect(run.summary()).toEqual(['in:INLINE:IN_PROGRESS']);
    expect(run.log.pendingScripts).toBe(1);
    await run.settle();
    expect(run.task('in')).toMatchObject({ status: 'COMPLETED', outputData: { result: { sum: 3, list: [1] } }, workerId: 'test', startTime: T0, endTime: T0 });
    expect(run.wf).toMatchObject({ status: 'COMPLETED', output: { result: { sum: 3, list: [1] } } });
  });

  it('INLINE value-param returns the named input', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('INLINE', 'in', { evaluatorType: 'value-param', expression: 'v', v: [1, 2] })] }));
    expect(run.task('in').outputData).toEqual({ result: [1, 2] });
  });

  it("INLINE error: FAILED_WITH_TERMINAL_ERROR with output.error in Conductor's words, not retried", async () => {
    const run = await Run.started(
      env,
      workflowDef({ tasks: [sys('INLINE', 'in', { evaluatorType: 'javascript', expression: "(function(){ throw new Error('bad input') })()" })] }),
    );
    expect(run.task('in').status).toBe('FAILED_WITH_TERMINAL_ERROR');
    expect(run.task('in').reasonForIncompletion).toBe('Error evaluating the script `JavaScript error during evaluation: Error: bad input`');
    expect(run.task('in').outputData.error).toBe(run.task('in').reasonForIncompletion);
    expect(run.tasks).toHaveLength(1);
    expect(run.wf.status).toBe('FAILED');
  });

  it('LAMBDA runs scriptExpression as a function body', async () => {
    const def = workflowDef({
      tasks: [sys('LAMBDA', 'lam', { scriptExpression: 'if ($.n > 1) { return { big: true }; } return { big: false };', n: '${workflow.input.n}' })],
    });
    expect((await Run.started(env, def, { input: { n: 2 } })).task('lam').outputData).toEqual({ result: { big: true } });
    expect((await Run.started(env, def, { input: { n: 0 } })).task('lam').outputData).toEqual({ result: { big: false } });
  });

  it('JSON_JQ_TRANSFORM: result is the first output, resultList all of them', async () => {
    const def = workflowDef({
      tasks: [
        sys('JSON_JQ_TRANSFORM', 'jq1', { queryExpression: '{ total: (.a + .b) }', a: 1, b: '${workflow.input.b}' }),
        sys('JSON_JQ_TRANSFORM', 'jq2', { queryExpression: '.list[] | . * 10', list: [1, 2, 3] }),
      ],
    });
    const run = await Run.started(env, def, { input: { b: 4 } });
    expect(run.task('jq1').outputData).toEqual({ result: { total: 5 }, resultList: [{ total: 5 }] });
    expect(run.task('jq2').outputData).toEqual({ result: 10, resultList: [10, 20, 30] });
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('JSON_JQ_TRANSFORM with a broken query fails with output.error', async () => {
    const run = await Run.started(env, workflowDef({ tasks: [sys('JSON_JQ_TRANSFORM', 'jq', { queryExpression: '.a | | .b' })] }));
    expect(run.task('jq').status).toBe('FAILED');
    expect(run.task('jq').outputData.error).toEqual(expect.any(String));
  });

  it('NOOP completes at once', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('NOOP', 'n'), simple('t')] }));
    expect(run.summary()).toEqual(['n:NOOP:COMPLETED', 't:task_t:SCHEDULED']);
    expect(run.effects('enqueue').map((e) => e.taskId)).toEqual([run.task('t').taskId]);
  });
});

describe('TERMINATE', () => {
  it('COMPLETED: workflow output is workflowOutput (outputParameters ignored), later tasks never scheduled', () => {
    const def = workflowDef({
      outputParameters: { ignored: 'yes' },
      tasks: [sys('TERMINATE', 'term', { terminationStatus: 'COMPLETED', workflowOutput: { r: '${workflow.input.x}' } }), simple('never')],
    });
    const run = new Run(env, def, { input: { x: 1 } });
    expect(run.task('term')).toMatchObject({ status: 'COMPLETED', outputData: { r: 1 } });
    expect(run.wf).toMatchObject({ status: 'COMPLETED', output: { r: 1 }, endTime: T0 });
    expect(run.wf.reasonForIncompletion).toBe(`Workflow is COMPLETED by TERMINATE task: ${run.task('term').taskId}`);
    expect(run.has('never')).toBe(false);
  });

  it('a non-map workflowOutput becomes {output: value}', () => {
    const def = workflowDef({ tasks: [sys('TERMINATE', 'term', { terminationStatus: 'COMPLETED', workflowOutput: 'plain' })] });
    expect(new Run(env, def).wf.output).toEqual({ output: 'plain' });
  });

  it('FAILED with a reason: workflow FAILED, the failure workflow starts', () => {
    const def = workflowDef({
      failureWorkflow: 'cleanup',
      tasks: [sys('TERMINATE', 'term', { terminationStatus: 'FAILED', terminationReason: 'bad order' })],
    });
    const run = new Run(env, def);
    expect(run.wf).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'bad order' });
    expect(run.effects('startWorkflow').map((e) => e.request.name)).toEqual(['cleanup']);
  });

  it('TERMINATED without a reason uses the default reason text', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('TERMINATE', 'term', { terminationStatus: 'TERMINATED' })] }));
    expect(run.wf).toMatchObject({ status: 'TERMINATED', reasonForIncompletion: `Workflow is TERMINATED by TERMINATE task: ${run.task('term').taskId}` });
  });

  it('an invalid status resolved at run time fails the task and the workflow', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('TERMINATE', 'term', { terminationStatus: '${workflow.input.s}' })] }), { input: { s: 'BOGUS' } });
    expect(run.task('term').status).toBe('FAILED');
    expect(run.wf.status).toBe('FAILED');
  });

  // As Conductor's Terminate task: the workflow ends and the remaining tasks are CANCELED, whatever the termination status.
  // BUG, fixed (tasks/fork-join.ts + end-workflow.ts): (1) starting a FORK kept scheduling the later
  // branches and the JOIN after a TERMINATE in an earlier branch had already ended the workflow, so they were
  // created SCHEDULED/IN_PROGRESS (and enqueued) in a terminal workflow; (2) for COMPLETED, cancelPending was not
  // run at all, so tasks scheduled before the TERMINATE stayed SCHEDULED and queued.
  test.each([
    ['FAILED', 'first'],
    ['FAILED', 'second'],
    ['COMPLETED', 'first'],
    ['COMPLETED', 'second'],
  ])('TERMINATE %s in the %s fork branch leaves no task pending and nothing queued', (terminationStatus, where) => {
    const branches = [[simple('w1')], [sys('TERMINATE', 'term', { terminationStatus })]];
    if (where === 'first') branches.reverse();
    const def = workflowDef({ tasks: [sys('FORK_JOIN', 'f', {}, { forkTasks: branches }), sys('JOIN', 'j', {}, { joinOn: ['w1', 'term'] })] });
    const run = new Run(env, def);
    expect(run.wf.status).toBe(terminationStatus);
    expect(run.summary().filter((s) => /:(SCHEDULED|IN_PROGRESS)$/.test(s))).toEqual([]);
    const dequeued = new Set(run.effects('dequeue').map((e) => e.taskId));
    expect(run.effects('enqueue').filter((e) => !dequeued.has(e.taskId))).toEqual([]);
  });
});

describe('EVENT and START_WORKFLOW', () => {
  it('EVENT with sink conductor publishes input + workflow metadata to conductor:<wf>:<ref> and completes', () => {
    const def = workflowDef({ tasks: [sys('EVENT', 'ev', { orderId: '${workflow.input.id}' }, { sink: 'conductor' })] });
    const run = new Run(env, def, { input: { id: 'o1' }, correlationId: 'c1' });
    // The mapper adds sink and asyncComplete to the input, which the payload carries.
    const payload = {
      orderId: 'o1',
      sink: 'conductor',
      asyncComplete: false,
      workflowInstanceId: 'wf-1',
      workflowType: 'wf',
      workflowVersion: 1,
      correlationId: 'c1',
    };
    expect(run.effects('publish')).toEqual([
      { kind: 'publish', eventId: run.task('ev').taskId, sink: 'conductor:wf:ev', payload, lineage: { rootWorkflowId: 'wf-1', generation: 0 } },
    ]);
    expect(run.task('ev')).toMatchObject({ status: 'COMPLETED', outputData: { ...payload, event_produced: 'conductor:wf:ev' } });
  });

  it.each([
    ['conductor:orders', 'conductor:wf:orders'],
    ['sqs:my-queue', 'sqs:my-queue'],
  ])('sink %s publishes to %s', (sink, expected) => {
    const run = new Run(env, workflowDef({ tasks: [sys('EVENT', 'ev', {}, { sink })] }));
    expect(run.effects('publish')[0]!.sink).toBe(expected);
  });

  it('EVENT with asyncComplete stays IN_PROGRESS until completed from outside', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('EVENT', 'ev', {}, { sink: 'sqs:q', asyncComplete: true })] }));
    expect(run.task('ev').status).toBe('IN_PROGRESS');
    expect(run.effects('publish')).toHaveLength(1);
    run.external('ev', 'COMPLETED', { acked: true });
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('START_WORKFLOW emits a start with a deterministic id and no parent link, waits for it, and completes with the id', () => {
    const def = workflowDef({
      tasks: [sys('START_WORKFLOW', 'sw', { startWorkflow: { name: 'other', version: 2, input: { a: '${workflow.input.x}' } } })],
    });
    const run = new Run(env, def, { input: { x: 1 }, correlationId: 'c1', taskToDomain: { '*': 'd' } });
    const id = `derived(start:wf-1:${run.task('sw').taskId})`;
    expect(run.effects('startWorkflow')).toEqual([
      {
        kind: 'startWorkflow',
        workflowId: id,
        starter: { workflowId: 'wf-1', taskId: run.task('sw').taskId },
        lineage: { rootWorkflowId: 'wf-1', generation: 1 },
        request: { name: 'other', version: 2, input: { a: 1 }, correlationId: 'c1', taskToDomain: { '*': 'd' }, priority: undefined },
      },
    ]);
    expect(run.task('sw').status).toBe('IN_PROGRESS');
    // The effect runner reports the start as the task's result.
    run.turn((t) => applyTaskResult(t, { workflowInstanceId: 'wf-1', taskId: run.task('sw').taskId, status: 'COMPLETED', outputData: { workflowId: id } }));
    expect(run.task('sw')).toMatchObject({ status: 'COMPLETED', outputData: { workflowId: id } });
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('START_WORKFLOW without a request fails', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('START_WORKFLOW', 'sw', {})] }));
    expect(run.task('sw').status).toBe('FAILED');
    expect(run.effects('startWorkflow')).toEqual([]);
  });
});

describe('SUB_WORKFLOW', () => {
  const subDef = (extra: Record<string, unknown> = {}) =>
    workflowDef({
      tasks: [
        sys('SUB_WORKFLOW', 'sub', { a: '${workflow.input.x}' }, { subWorkflowParam: { name: 'child', version: 2 }, ...extra }),
        simple('after', 'task_after', { r: '${sub.output.r}' }),
      ],
    });
  const child = (run: Run, status: WorkflowStatus, output: Record<string, unknown> = {}, reason?: string) => ({
    workflowId: run.task('sub').subWorkflowId!,
    status,
    output,
    reasonForIncompletion: reason,
    workflowName: 'child',
    workflowVersion: 2,
  });

  it('starts the child with a deterministic id and a parent link; the task waits IN_PROGRESS', () => {
    const run = new Run(env, subDef(), { input: { x: 1 }, correlationId: 'c1', priority: 3 });
    const sub = run.task('sub');
    const childId = `derived(subworkflow:wf-1:${sub.taskId}:0)`;
    expect(sub).toMatchObject({ status: 'IN_PROGRESS', subWorkflowId: childId, outputData: { subWorkflowId: childId }, inputData: { a: 1 } });
    expect(run.effects('startWorkflow')).toEqual([
      {
        kind: 'startWorkflow',
        workflowId: childId,
        parent: { workflowId: 'wf-1', taskId: sub.taskId, depth: 1 },
        lineage: { rootWorkflowId: 'wf-1', generation: 1 },
        request: { name: 'child', version: 2, input: { a: 1 }, correlationId: 'c1', taskToDomain: {}, priority: 3, workflowDef: undefined },
      },
    ]);
    expect(run.effects('enqueue')).toEqual([]);
  });

  it('child COMPLETED completes the task, merges the child output and schedules the next task', () => {
    const run = new Run(env, subDef(), { input: { x: 1 } });
    env.advance(8);
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'COMPLETED', { r: 'done' })));
    expect(run.task('sub')).toMatchObject({ status: 'COMPLETED', outputData: { subWorkflowId: run.task('sub').subWorkflowId, r: 'done' }, endTime: T0 + 8000 });
    expect(run.task('after').inputData).toEqual({ r: 'done' });
  });

  it('child FAILED fails the task with the child reason and then the workflow', () => {
    const run = new Run(env, subDef());
    const c = child(run, 'FAILED', {}, 'child broke');
    run.turn((t) => childChanged(t, run.task('sub').taskId, c));
    expect(run.task('sub')).toMatchObject({ status: 'FAILED', reasonForIncompletion: `Sub workflow child.2/${c.workflowId} failure reason: child broke` });
    expect(run.wf.status).toBe('FAILED');
    expect(run.has('after')).toBe(false);
  });

  it('child RUNNING or a different child id changes nothing', () => {
    const run = new Run(env, subDef());
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'RUNNING')));
    run.turn((t) => childChanged(t, run.task('sub').taskId, { ...child(run, 'COMPLETED'), workflowId: 'someone-else' }));
    expect(run.task('sub').status).toBe('IN_PROGRESS');
    expect(run.log.changed.size).toBe(0);
  });

  it('child TERMINATED cancels the task, which terminates the parent', () => {
    const run = new Run(env, subDef());
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'TERMINATED', {}, 'by user')));
    expect(run.task('sub').status).toBe('CANCELED');
    expect(run.wf.status).toBe('TERMINATED');
  });

  // As in Conductor's DeciderService.retry: the reason names the *workflow* status derived from the task (CANCELED ⇒ TERMINATED).
  // BUG (decider.ts handleFailure): the reason says "failed with status: CANCELED".
  test('a CANCELED task ends the workflow with the reason naming the workflow status TERMINATED', () => {
    const run = new Run(env, subDef());
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'TERMINATED', {}, 'by user')));
    expect(run.wf.reasonForIncompletion).toMatch(new RegExp(`^Task ${run.task('sub').taskId} failed with status: TERMINATED and reason: 'Sub workflow`));
  });

  it('a terminal child that runs again (retried) revives the parent task and the parent workflow', () => {
    const run = new Run(env, subDef());
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'FAILED', {}, 'x')));
    expect(run.wf.status).toBe('FAILED');
    env.advance(3);
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'RUNNING')));
    expect(run.task('sub')).toMatchObject({ status: 'IN_PROGRESS', endTime: 0 });
    expect(run.wf).toMatchObject({ status: 'RUNNING', endTime: 0, lastRetriedTime: T0 + 3000 });
    run.turn((t) => childChanged(t, run.task('sub').taskId, child(run, 'COMPLETED', { r: 'ok' })));
    expect(run.task('after').inputData).toEqual({ r: 'ok' });
  });

  it('rerun from the SUB_WORKFLOW task launches a new child', () => {
    const run = new Run(env, subDef(), { input: { x: 1 } });
    const sub = run.task('sub');
    const firstChild = sub.subWorkflowId;
    run.turn((t) => childChanged(t, sub.taskId, child(run, 'COMPLETED', { r: 1 })));
    run.complete('after');
    expect(run.wf.status).toBe('COMPLETED');
    env.advance(5);
    run.turn((t) => rerunWorkflow(t, { reRunFromTaskId: sub.taskId }));
    const secondChild = `derived(subworkflow:wf-1:${sub.taskId}:0:${T0 + 5000})`;
    expect(run.task('sub')).toMatchObject({ status: 'IN_PROGRESS', subWorkflowId: secondChild });
    expect(secondChild).not.toBe(firstChild);
    expect(run.effects('startWorkflow')).toEqual([
      expect.objectContaining({ workflowId: secondChild, parent: { workflowId: 'wf-1', taskId: sub.taskId, depth: 1 } }),
    ]);
    expect(run.has('after')).toBe(false);
  });

  it('terminating the parent terminates the running child', () => {
    const run = new Run(env, subDef());
    run.turn((t) => terminateWorkflow(t, 'stop'));
    expect(run.task('sub').status).toBe('CANCELED');
    expect(run.effects('terminateWorkflow')).toEqual([
      { kind: 'terminateWorkflow', workflowId: run.task('sub').subWorkflowId, reason: 'Parent workflow has been terminated with reason: stop' },
    ]);
  });

  it('subWorkflowParam.taskToDomain overrides the inherited map', () => {
    const run = new Run(env, subDef({ subWorkflowParam: { name: 'child', taskToDomain: { '*': 'kid' } } }), { taskToDomain: { '*': 'parent' } });
    expect(run.effects('startWorkflow')[0]!.request).toMatchObject({ taskToDomain: { '*': 'kid' }, version: undefined });
  });
});

describe('WAIT and HUMAN', () => {
  const waitDef = (inputParameters: Record<string, unknown>) => workflowDef({ tasks: [sys('WAIT', 'w', inputParameters), simple('after')] });

  it('WAIT with a duration is IN_PROGRESS until the deadline, which nextDeadline reports; a decision then completes it', () => {
    const run = new Run(env, waitDef({ duration: '5s' }));
    expect(run.task('w')).toMatchObject({ status: 'IN_PROGRESS', waitTimeout: T0 + 5000, startTime: T0 });
    expect(run.deadline()).toBe(T0 + 5000);
    env.advance(4.999);
    run.timer();
    expect(run.task('w').status).toBe('IN_PROGRESS');
    env.advance(0.001);
    run.timer();
    expect(run.task('w')).toMatchObject({ status: 'COMPLETED', endTime: T0 + 5000 });
    expect(run.task('after').status).toBe('SCHEDULED');
    expect(run.deadline()).toBeNull();
  });

  // In Conductor a WAIT of 5 s is IN_PROGRESS at once, with callbackAfterSeconds 5.
  // BUG, fixed (tasks/wait.ts): callbackAfterSeconds stayed 0; only waitTimeout was set.
  test('WAIT with duration 5s reports callbackAfterSeconds 5', () => {
    const run = new Run(env, waitDef({ duration: '5s' }));
    expect(run.task('w').callbackAfterSeconds).toBe(5);
  });

  it('WAIT until a date waits for that instant', () => {
    const run = new Run(env, waitDef({ until: '2030-01-01 00:00 UTC' }));
    expect(run.task('w').waitTimeout).toBe(Date.UTC(2030, 0, 1));
    expect(run.deadline()).toBe(Date.UTC(2030, 0, 1));
  });

  it('WAIT until a past date completes in the same turn', () => {
    const run = new Run(env, waitDef({ until: '2020-01-01 00:00' }));
    expect(run.summary()).toEqual(['w:WAIT:COMPLETED', 'after:task_after:SCHEDULED']);
  });

  it('WAIT with an unreadable duration fails with a terminal error', () => {
    const run = new Run(env, waitDef({ duration: 'soon' }));
    expect(run.task('w')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: "Invalid duration 'soon'" });
    expect(run.wf.status).toBe('FAILED');
  });

  it('WAIT without inputs waits for an external completion and has no deadline', () => {
    const run = new Run(env, waitDef({}));
    expect(run.deadline()).toBeNull();
    env.advance(86_400);
    run.timer();
    expect(run.task('w').status).toBe('IN_PROGRESS');
    run.external('w', 'COMPLETED', { signal: 1 });
    expect(run.task('w')).toMatchObject({ status: 'COMPLETED', outputData: { signal: 1 } });
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('HUMAN stays IN_PROGRESS, also after an IN_PROGRESS update, until completed from outside with its output merged', () => {
    const def = workflowDef({ tasks: [sys('HUMAN', 'h'), simple('after', 'task_after', { ok: '${h.output.approved}' })] });
    const run = new Run(env, def);
    expect(run.task('h').status).toBe('IN_PROGRESS');
    expect(run.effects('enqueue')).toEqual([]);
    expect(run.deadline()).toBeNull();
    env.advance(3600);
    run.timer();
    run.update('h', { status: 'IN_PROGRESS', outputData: { note: 'looking' } });
    expect(run.task('h')).toMatchObject({ status: 'IN_PROGRESS', outputData: { note: 'looking' } });
    const updated = run.external('h', 'COMPLETED', { approved: true });
    expect(updated).toBe(run.task('h'));
    expect(run.task('h')).toMatchObject({ status: 'COMPLETED', outputData: { note: 'looking', approved: true } });
    expect(run.task('after').inputData).toEqual({ ok: true });
  });

  it('applyExternalUpdate of an unknown or finished reference returns undefined', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('HUMAN', 'h')] }));
    expect(run.external('nope', 'COMPLETED')).toBeUndefined();
    run.external('h', 'COMPLETED');
    expect(run.external('h', 'FAILED')).toBeUndefined();
    expect(run.task('h').status).toBe('COMPLETED');
  });
});

describe('DYNAMIC and user-defined task types', () => {
  const dynDef = () =>
    workflowDef({ tasks: [sys('DYNAMIC', 'dyn', { taskToExecute: '${workflow.input.n}', p: 1 }, { dynamicTaskNameParam: 'taskToExecute' })] });

  it('DYNAMIC runs the task named by its input, with that TaskDef', () => {
    env.register({ name: 'task_real', retryCount: 0, responseTimeoutSeconds: 30 });
    const run = new Run(env, dynDef(), { input: { n: 'task_real' } });
    expect(run.task('dyn')).toMatchObject({
      taskType: 'task_real',
      taskDefName: 'task_real',
      status: 'SCHEDULED',
      responseTimeoutSeconds: 30,
      inputData: { taskToExecute: 'task_real', p: 1 },
    });
    expect(run.effects('enqueue')[0]!.queue).toEqual({ taskType: 'task_real' });
  });

  // In Conductor the name a DYNAMIC task resolves to must have a registered TaskDef (DynamicTaskMapper).
  // BUG (decider.ts scheduleTask DYNAMIC): an empty name makes a FAILED task, which handleFailure then "retries"
  // with the ad-hoc worker def (3 retries, 60 s): a SCHEDULED task of type DYNAMIC is queued and the workflow stays
  // RUNNING; an unregistered name is scheduled like SIMPLE. Conductor fails the workflow in both cases.
  test('DYNAMIC without a task name fails the workflow and queues nothing', () => {
    const run = new Run(env, dynDef(), { input: {} });
    expect(run.wf.status).toBe('FAILED');
    expect(run.effects('enqueue')).toEqual([]);
  });

  test('DYNAMIC naming an unregistered task fails the workflow', () => {
    const run = new Run(env, dynDef(), { input: { n: 'nobody' } });
    expect(run.wf.status).toBe('FAILED');
  });

  // In Conductor a USER_DEFINED type needs a TaskDef named after it, else the workflow fails ("Invalid task specified…").
  // BUG (decider.ts makeTask): a custom type without a TaskDef is scheduled with the ad-hoc definition.
  test('a user-defined type without a registered TaskDef fails the workflow', () => {
    const run = new Run(env, workflowDef({ tasks: [{ name: 'my_custom', taskReferenceName: 'u', type: 'MY_TYPE', inputParameters: {} }] }));
    expect(run.wf.status).toBe('FAILED');
    expect(run.wf.reasonForIncompletion).toMatch(/^Invalid task specified/);
  });

  it('a user-defined type with its TaskDef is queued under the type string', () => {
    env.register({ name: 'my_custom', retryCount: 0 });
    const run = new Run(env, workflowDef({ tasks: [{ name: 'my_custom', taskReferenceName: 'u', type: 'MY_TYPE', inputParameters: {} }] }));
    expect(run.task('u')).toMatchObject({ taskType: 'MY_TYPE', taskDefName: 'my_custom', status: 'SCHEDULED' });
    expect(run.effects('enqueue')[0]!.queue).toEqual({ taskType: 'MY_TYPE' });
  });
});

describe('HTTP (a queued system task)', () => {
  const httpDef = (extra: Record<string, unknown> = {}) =>
    workflowDef({ tasks: [sys('HTTP', 'call', { http_request: { uri: 'http://x/${workflow.input.id}', method: 'GET' } }, extra), simple('after')] });

  it('is enqueued on the HTTP queue without a domain, with a response timeout (http-response-timeout.test.ts), and completes through a task result', () => {
    const run = new Run(env, httpDef(), { input: { id: 7 }, taskToDomain: { '*': 'd1' } });
    expect(run.task('call')).toMatchObject({
      taskType: 'HTTP',
      status: 'SCHEDULED',
      responseTimeoutSeconds: 60,
      inputData: { http_request: { uri: 'http://x/7', method: 'GET' } },
    });
    expect(run.task('call').domain).toBeUndefined();
    expect(run.effects('enqueue')).toEqual([expect.objectContaining({ taskId: run.task('call').taskId, queue: { taskType: 'HTTP' } })]);
    run.poll('call', 'test');
    run.update('call', { status: 'COMPLETED', outputData: { response: { statusCode: 200 } } });
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  // In Conductor only a worker task's IN_PROGRESS goes back to SCHEDULED (a system task's stays IN_PROGRESS),
  // and an asyncComplete HTTP task stays IN_PROGRESS until it is completed externally.
  // BUG (decider.ts applyTaskResult, `|| QUEUED_SYSTEM_TYPES.has(t.taskType)`): the HTTP task is set back to
  // SCHEDULED and re-enqueued, so the HTTP worker (src/services/http-task-worker.ts reports IN_PROGRESS for
  // asyncComplete) polls it again and repeats the call.
  test('asyncComplete: the HTTP worker reporting IN_PROGRESS leaves the task IN_PROGRESS and not re-queued', () => {
    const run = new Run(env, httpDef({ asyncComplete: true }));
    run.poll('call', 'test');
    run.update('call', { status: 'IN_PROGRESS', outputData: { response: { statusCode: 200 } } });
    expect(run.task('call').status).toBe('IN_PROGRESS');
    expect(run.effects('enqueue')).toEqual([]);
  });
});

describe('EXCLUSIVE_JOIN', () => {
  it('completes with the output of the branch task that ran', () => {
    const def = workflowDef({
      tasks: [
        {
          name: 'sw',
          taskReferenceName: 'sw',
          type: 'SWITCH',
          evaluatorType: 'value-param',
          expression: 'k',
          inputParameters: { k: '${workflow.input.k}' },
          decisionCases: { a: [simple('ta')], b: [simple('tb')] },
        },
        sys('EXCLUSIVE_JOIN', 'xj', {}, { joinOn: ['ta', 'tb'] }),
      ],
    });
    const run = new Run(env, def, { input: { k: 'b' } });
    run.complete('tb', { r: 'from b' });
    expect(run.task('xj')).toMatchObject({ status: 'COMPLETED', outputData: { r: 'from b' } });
    expect(run.wf.status).toBe('COMPLETED');
  });
});
