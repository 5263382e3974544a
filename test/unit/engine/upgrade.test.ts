import { pauseWorkflow } from '../../../src/engine/commands/pause';
import { terminateWorkflow } from '../../../src/engine/commands/terminate';
import { upgradeWorkflow, type UpgradeArgs } from '../../../src/engine/commands/upgrade';
import { Run, simple, sys, T0, useTestEnv, workflowDef } from './engine-harness';

// Upgrading a running execution to another version of its definition (Orkes' upgrade): the mapping of its
// tasks onto the new version, the tasks added SKIPPED before the current position, and every refusal.

const env = useTestEnv({ scripts: false });

const v1 = () => workflowDef({ version: 1, tasks: [simple('a'), simple('b'), simple('c')] });
const version = (v: number, tasks: unknown[]) => workflowDef({ version: v, tasks });

function upgrade(run: Run, args: Partial<UpgradeArgs> & Pick<UpgradeArgs, 'def'>): void {
  run.turn((t) => upgradeWorkflow(t, args));
}

/** Refused with this error code and kind, the execution exactly as it was. */
function expectRefused(run: Run, args: Partial<UpgradeArgs> & Pick<UpgradeArgs, 'def'>, code: string, kind: string): void {
  const before = JSON.stringify(run.state);
  expect(() => upgrade(run, args)).toThrow(expect.objectContaining({ code, kind }));
  expect(JSON.stringify(run.state)).toBe(before);
}

describe('upgrade: the mapping', () => {
  it('tasks the new version adds before the running one are SKIPPED with the given outputs; later ones run', () => {
    const run = new Run(env, v1());
    run.complete('a', { fromA: 1 });
    run.poll('b');
    env.advance(5);
    const v2 = version(2, [simple('x'), simple('a'), simple('y'), simple('b'), simple('z', 'task_z', { fromY: '${y.output.given}' }), simple('c')]);
    upgrade(run, { def: v2, taskOutput: { y: { given: 'by upgrade' } } });
    expect(run.wf).toMatchObject({ workflowVersion: 2, workflowDefinition: v2, status: 'RUNNING' });
    expect(run.summary()).toEqual(['a:task_a:COMPLETED', 'b:task_b:IN_PROGRESS', 'x:task_x:SKIPPED', 'y:task_y:SKIPPED']);
    expect(run.task('x')).toMatchObject({ outputData: {}, inputData: {}, endTime: T0 + 5000, responseTimeoutSeconds: 0 });
    expect(run.task('y').outputData).toEqual({ given: 'by upgrade' });
    // Nothing new is queued by the upgrade itself.
    expect(run.effects('enqueue')).toEqual([]);
    run.update('b', { status: 'COMPLETED' });
    expect(run.task('z')).toMatchObject({ status: 'SCHEDULED', inputData: { fromY: 'by upgrade' } });
    run.complete('z');
    run.complete('c');
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('workflowInput replaces the input; later tasks read it', () => {
    const run = new Run(env, v1(), { input: { who: 'old' } });
    const v2 = version(2, [simple('a'), simple('b', 'task_b', { who: '${workflow.input.who}' }), simple('c')]);
    upgrade(run, { def: v2, workflowInput: { who: 'new' } });
    expect(run.wf.input).toEqual({ who: 'new' });
    run.complete('a');
    expect(run.task('b').inputData).toEqual({ who: 'new' });
  });

  it('an open task takes the new version node: its successor is the new version one', () => {
    const run = new Run(env, v1());
    const v2 = version(2, [simple('a', 'task_a', {}, { description: 'v2' }), simple('c')]);
    // b never ran, so it may go; a is open and follows v2.
    upgrade(run, { def: v2 });
    expect(run.task('a').workflowTask.description).toBe('v2');
    run.complete('a');
    expect(run.summary()).toEqual(['a:task_a:COMPLETED', 'c:task_c:SCHEDULED']);
  });

  it('a task removed after having ended stays as history', () => {
    const run = new Run(env, v1());
    run.complete('a');
    upgrade(run, { def: version(2, [simple('b'), simple('c')]) });
    run.complete('b');
    run.complete('c');
    expect(run.summary()).toEqual(['a:task_a:COMPLETED', 'b:task_b:COMPLETED', 'c:task_c:COMPLETED']);
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('a paused execution upgrades and stays paused', () => {
    const run = new Run(env, v1());
    run.complete('a');
    run.turn((t) => pauseWorkflow(t));
    upgrade(run, { def: version(2, [simple('x'), simple('a'), simple('b'), simple('c')]) });
    expect(run.wf).toMatchObject({ status: 'PAUSED', workflowVersion: 2 });
    expect(run.task('x').status).toBe('SKIPPED');
  });

  it('fork branches: tasks added before the running one, after a finished branch end, and a whole new branch are SKIPPED; the JOIN completes', () => {
    const fork = (branches: unknown[][], joinOn: string[]) => [
      sys('FORK_JOIN', 'fork', {}, { forkTasks: branches }),
      sys('JOIN', 'join', {}, { joinOn }),
      simple('after'),
    ];
    const run = new Run(env, version(1, fork([[simple('a1')], [simple('b1')]], ['a1', 'b1'])));
    run.complete('a1', { a: 1 });
    const v2 = version(2, fork([[simple('a1'), simple('a2')], [simple('b0'), simple('b1')], [simple('c1')]], ['a2', 'b1', 'c1']));
    upgrade(run, { def: v2, taskOutput: { a2: { a: 2 }, c1: { c: 1 } } });
    expect(run.summary()).toEqual([
      'fork:FORK:COMPLETED',
      'a1:task_a1:COMPLETED',
      'b1:task_b1:SCHEDULED',
      'join:JOIN:IN_PROGRESS',
      'a2:task_a2:SKIPPED',
      'b0:task_b0:SKIPPED',
      'c1:task_c1:SKIPPED',
    ]);
    run.complete('b1', { b: 1 });
    expect(run.task('join')).toMatchObject({ status: 'COMPLETED', outputData: { a2: { a: 2 }, b1: { b: 1 }, c1: { c: 1 } } });
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('a skipped reference named like an Object member gets an empty output, not the prototype value', () => {
    const run = new Run(env, v1());
    run.complete('a');
    upgrade(run, { def: version(2, [simple('constructor'), simple('toString'), simple('a'), simple('b'), simple('c')]), taskOutput: {} });
    expect(run.task('constructor').outputData).toEqual({});
    expect(run.task('toString').outputData).toEqual({});
  });

  it('a task added inside a loop that has ended is not added: its iterations are over', () => {
    const loop = (body: unknown[]) => [
      sys('DO_WHILE', 'loop', {}, { items: '${workflow.input.items}', loopCondition: 'true', loopOver: body }),
      simple('after'),
    ];
    const run = new Run(env, version(1, loop([simple('l1')])), { input: { items: [1] } });
    run.complete('l1__1');
    expect(run.task('loop').status).toBe('COMPLETED');
    upgrade(run, { def: version(2, loop([simple('l0'), simple('l1')])) });
    expect(run.has('l0')).toBe(false);
    expect(run.has('l0__1')).toBe(false);
    run.complete('after');
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('to the same version: nothing is added, the execution goes on', () => {
    const run = new Run(env, v1());
    run.complete('a');
    upgrade(run, { def: v1() });
    run.complete('b');
    run.complete('c');
    expect(run.wf.status).toBe('COMPLETED');
  });
});

describe('upgrade: refusals change nothing', () => {
  it('an ended execution', () => {
    const run = new Run(env, v1());
    run.turn((t) => terminateWorkflow(t, 'stop'));
    expectRefused(run, { def: version(2, [simple('a')]) }, 'WORKFLOW_NOT_RUNNING', 'conflict');
  });

  it('another workflow name', () => {
    const run = new Run(env, v1());
    expectRefused(run, { def: workflowDef({ name: 'other', version: 2, tasks: [simple('a')] }) }, 'UPGRADE_OTHER_WORKFLOW', 'invalid');
  });

  it('a task scheduled now that the new version lacks', () => {
    const run = new Run(env, v1());
    run.complete('a');
    expectRefused(run, { def: version(2, [simple('a'), simple('c')]) }, 'UPGRADE_TASK_REMOVED', 'conflict');
  });

  it('a task in progress whose type (or task name) the new version changes', () => {
    const run = new Run(env, v1());
    run.poll('a');
    expectRefused(run, { def: version(2, [sys('WAIT', 'a'), simple('b'), simple('c')]) }, 'UPGRADE_TASK_TYPE_CHANGED', 'conflict');
    expectRefused(run, { def: version(2, [simple('a', 'other_worker'), simple('b'), simple('c')]) }, 'UPGRADE_TASK_TYPE_CHANGED', 'conflict');
  });

  it('an output for a task the upgrade does not add', () => {
    const run = new Run(env, v1());
    run.complete('a');
    const v2 = version(2, [simple('x'), simple('a'), simple('b'), simple('c')]);
    expectRefused(run, { def: v2, taskOutput: { c: { no: 1 } } }, 'UPGRADE_UNKNOWN_TASK_OUTPUT', 'invalid');
    expectRefused(run, { def: v2, taskOutput: { nowhere: {} } }, 'UPGRADE_UNKNOWN_TASK_OUTPUT', 'invalid');
  });

  it('an output over the task payload limit', () => {
    const run = new Run(env, v1());
    run.complete('a');
    env.taskPayloadMaxBytes = 100;
    const v2 = version(2, [simple('x'), simple('a'), simple('b'), simple('c')]);
    expectRefused(run, { def: v2, taskOutput: { x: { big: 'x'.repeat(200) } } }, 'TASK_PAYLOAD_TOO_LARGE', 'invalid');
  });

  it('a task added before the position inside a running loop', () => {
    const loop = (body: unknown[]) => [
      sys('DO_WHILE', 'loop', {}, { items: '${workflow.input.items}', loopCondition: 'true', loopOver: body }),
      simple('after'),
    ];
    const run = new Run(env, version(1, loop([simple('l1'), simple('l2')])), { input: { items: [1, 2] } });
    run.complete('l1__1');
    expect(run.task('l2__1').status).toBe('SCHEDULED');
    expectRefused(run, { def: version(2, loop([simple('l0'), simple('l1'), simple('l2')])) }, 'UPGRADE_INSIDE_LOOP', 'conflict');
  });
});
