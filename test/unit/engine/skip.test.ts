import { pauseWorkflow } from '../../../src/engine/commands/pause';
import { childChanged } from '../../../src/engine/commands/child-changed';
import { skipTask } from '../../../src/engine/commands/skip';
import { Run, simple, sys, T0, useTestEnv, workflowDef } from './engine-harness';

// Skipping a task by reference: one not scheduled yet (Conductor's rule) and one the workflow waits on.

const env = useTestEnv({ scripts: false });

const threeSteps = () => workflowDef({ tasks: [simple('t1'), simple('t2'), simple('t3', 'task_t3', { fromSkipped: '${t2.output.s}' })] });

describe('skip a task not yet scheduled', () => {
  it('is listed first (seq 0, as in Conductor), without a response timeout; the decider passes over it', () => {
    const run = new Run(env, threeSteps());
    env.advance(1);
    run.turn((t) => skipTask(t, 't2', { in: 1 }, { s: 'skipped-output' }));
    expect(run.summary()).toEqual(['t2:task_t2:SKIPPED', 't1:task_t1:SCHEDULED']);
    expect(run.task('t2')).toMatchObject({ seq: 0, responseTimeoutSeconds: 0, inputData: { in: 1 }, outputData: { s: 'skipped-output' }, endTime: T0 + 1000 });
    expect(run.task('t1').seq).toBe(1);
    run.complete('t1');
    expect(run.summary()).toEqual(['t2:task_t2:SKIPPED', 't1:task_t1:COMPLETED', 't3:task_t3:SCHEDULED']);
    expect(run.task('t3')).toMatchObject({ seq: 2, inputData: { fromSkipped: 'skipped-output' } });
    run.complete('t3');
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('an ended reference, an unknown one, or a workflow not RUNNING is refused', () => {
    const run = new Run(env, threeSteps());
    run.complete('t1');
    expect(() => run.turn((t) => skipTask(t, 't1'))).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(() => run.turn((t) => skipTask(t, 'zz'))).toThrow(expect.objectContaining({ kind: 'invalid' }));
    run.turn((t) => pauseWorkflow(t));
    expect(() => run.turn((t) => skipTask(t, 't3'))).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(run.task('t2').status).toBe('SCHEDULED');
  });
});

describe('skip a task the workflow waits on', () => {
  it('a SCHEDULED worker task: SKIPPED with the payload, out of its queue, and the workflow goes on', () => {
    const run = new Run(env, threeSteps());
    run.complete('t1');
    env.advance(2);
    run.turn((t) => skipTask(t, 't2', null, { s: 'given' }));
    const t2 = run.task('t2');
    expect(t2).toMatchObject({ status: 'SKIPPED', outputData: { s: 'given' }, endTime: T0 + 2000 });
    expect(run.effects('dequeue')).toEqual([expect.objectContaining({ taskId: t2.taskId, queue: expect.objectContaining({ taskType: 'task_t2' }) })]);
    expect(run.task('t3')).toMatchObject({ status: 'SCHEDULED', inputData: { fromSkipped: 'given' } });
    expect(run.effects('enqueue')).toEqual([expect.objectContaining({ taskId: run.task('t3').taskId })]);
  });

  it('an IN_PROGRESS (polled) task: its late result is refused and it stays SKIPPED', () => {
    const run = new Run(env, threeSteps());
    run.poll('t1');
    run.turn((t) => skipTask(t, 't1', { replaced: true }));
    expect(run.task('t1')).toMatchObject({ status: 'SKIPPED', inputData: { replaced: true }, outputData: {} });
    expect(run.effects('dequeue')).toHaveLength(0); // its poll removed the entry
    expect(run.task('t2').status).toBe('SCHEDULED');
    expect(() => run.update('t1', { status: 'COMPLETED', outputData: { late: true } })).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(() => run.update('t1', { status: 'IN_PROGRESS', extendLease: true })).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(run.task('t1')).toMatchObject({ status: 'SKIPPED', outputData: {} });
  });

  it('the last task: the workflow completes with the skip output', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('only')] }));
    run.turn((t) => skipTask(t, 'only', undefined, { done: 'by skip' }));
    expect(run.wf).toMatchObject({ status: 'COMPLETED', output: { done: 'by skip' } });
  });

  it('WAIT and HUMAN tasks: skipped, their deadline gone, and the workflow goes on', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('WAIT', 'w', { duration: '1 hour' }), sys('HUMAN', 'h'), simple('after')] }));
    expect(run.task('w').status).toBe('IN_PROGRESS');
    run.turn((t) => skipTask(t, 'w'));
    expect(run.task('w').status).toBe('SKIPPED');
    expect(run.task('h').status).toBe('IN_PROGRESS');
    expect(run.deadline()).toBeNull();
    run.turn((t) => skipTask(t, 'h', null, { approved: 'skipped' }));
    expect(run.summary()).toEqual(['w:WAIT:SKIPPED', 'h:HUMAN:SKIPPED', 'after:task_after:SCHEDULED']);
  });

  it('an asyncComplete EVENT task waits no more', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('EVENT', 'e', {}, { sink: 'conductor', asyncComplete: true }), simple('after')] }));
    expect(run.task('e').status).toBe('IN_PROGRESS');
    run.turn((t) => skipTask(t, 'e'));
    expect(run.summary()).toEqual(['e:EVENT:SKIPPED', 'after:task_after:SCHEDULED']);
  });

  it('a SUB_WORKFLOW task: its child is terminated, and the child ending later changes nothing', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'child', version: 1 } }), simple('after')] }));
    const childId = run.task('sub').subWorkflowId!;
    run.turn((t) => skipTask(t, 'sub', null, { r: 'skipped' }));
    expect(run.task('sub')).toMatchObject({ status: 'SKIPPED', outputData: { subWorkflowId: childId, r: 'skipped' } });
    expect(run.effects('terminateWorkflow')).toEqual([
      { kind: 'terminateWorkflow', workflowId: childId, reason: 'Parent task sub of workflow wf-1 was skipped' },
    ]);
    expect(run.task('after').status).toBe('SCHEDULED');
    const ended = { workflowId: childId, output: {}, workflowName: 'child', workflowVersion: 1 };
    run.turn((t) => childChanged(t, run.task('sub').taskId, { ...ended, status: 'TERMINATED', reasonForIncompletion: 'x' }));
    run.turn((t) => childChanged(t, run.task('sub').taskId, { ...ended, status: 'RUNNING' }));
    expect(run.task('sub').status).toBe('SKIPPED');
    expect(run.wf.status).toBe('RUNNING');
  });

  it('the last task of a fork branch: the JOIN counts it as done', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('a')], [simple('b')]] }), sys('JOIN', 'join', {}, { joinOn: ['a', 'b'] }), simple('after')],
    });
    const run = new Run(env, def);
    run.complete('a', { x: 1 });
    run.turn((t) => skipTask(t, 'b', null, { y: 2 }));
    expect(run.task('join')).toMatchObject({ status: 'COMPLETED', outputData: { a: { x: 1 }, b: { y: 2 } } });
    expect(run.task('after').status).toBe('SCHEDULED');
  });

  it('control flow cannot be skipped while it runs', () => {
    const def = workflowDef({
      tasks: [sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('a')], [simple('b')]] }), sys('JOIN', 'join', {}, { joinOn: ['a', 'b'] })],
    });
    const run = new Run(env, def);
    expect(() => run.turn((t) => skipTask(t, 'join'))).toThrow(expect.objectContaining({ kind: 'conflict' }));
    expect(run.task('join').status).toBe('IN_PROGRESS');
  });

  it('a skip output over the task payload limit is refused', () => {
    const run = new Run(env, threeSteps());
    env.taskPayloadMaxBytes = 100;
    expect(() => run.turn((t) => skipTask(t, 't1', null, { big: 'x'.repeat(200) }))).toThrow(expect.objectContaining({ kind: 'invalid' }));
    expect(run.task('t1').status).toBe('SCHEDULED');
  });
});
