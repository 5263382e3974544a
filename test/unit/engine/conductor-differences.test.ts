import { childChanged } from '../../../src/engine/commands/child-changed';
import { terminateWorkflow } from '../../../src/engine/commands/terminate';
import { WorkflowDefSchema } from '../../../src/model/definitions';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// Behaviours where Baton differed from Conductor (issue 12): sub-workflow name expressions, the chain of
// parents a retried leaf reopens, permissive tasks in forks, and TERMINATE's COMPLETED reason.

const env = useTestEnv({ scripts: false });

describe('SUB_WORKFLOW name and version given as expressions', () => {
  const def = (param: Record<string, unknown>) => workflowDef({ tasks: [sys('SUB_WORKFLOW', 'sub', { k: 1 }, { subWorkflowParam: param })] });

  it('are resolved before the child is started', () => {
    const run = new Run(env, def({ name: '${workflow.input.subwf}', version: '${workflow.input.v}' }), { input: { subwf: 'child_x', v: '3' } });
    expect(run.task('sub').status).toBe('IN_PROGRESS');
    expect(run.effects('startWorkflow')).toEqual([
      expect.objectContaining({ request: expect.objectContaining({ name: 'child_x', version: 3, input: { k: 1 } }) }),
    ]);
  });

  it('a version that resolves to nothing means the latest', () => {
    const run = new Run(env, def({ name: '${workflow.input.subwf}', version: '${workflow.input.none}' }), { input: { subwf: 'child_x' } });
    expect(run.effects('startWorkflow')[0]!.request).toMatchObject({ name: 'child_x', version: undefined });
  });

  it('a name that resolves to nothing fails the task with a reason', () => {
    const run = new Run(env, def({ name: '${workflow.input.missing}' }));
    expect(run.task('sub')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: expect.stringContaining('${workflow.input.missing}'),
    });
    expect(run.wf.status).toBe('FAILED');
    expect(run.effects('startWorkflow')).toEqual([]);
  });

  it('a workflow definition may give the version as an expression', () => {
    expect(() =>
      WorkflowDefSchema.parse({
        name: 'p',
        tasks: [{ name: 's', taskReferenceName: 's', type: 'SUB_WORKFLOW', subWorkflowParam: { name: 'c', version: '${workflow.input.v}' } }],
      }),
    ).not.toThrow();
  });
});

describe('a reopened child reopens the whole chain of parents', () => {
  it('the parent of a middle workflow is told when the middle one goes back to RUNNING', () => {
    const def = workflowDef({ tasks: [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'leaf', version: 1 } })] });
    // The middle workflow of a chain root -> middle -> leaf.
    const run = new Run(env, def, {}, { parent: { workflowId: 'root', taskId: 'root-task', depth: 1 } });
    const leaf = { workflowId: run.task('sub').subWorkflowId!, output: {}, workflowName: 'leaf', workflowVersion: 1 };
    run.turn((t) => childChanged(t, run.task('sub').taskId, { ...leaf, status: 'FAILED', reasonForIncompletion: 'leaf broke' }));
    expect(run.wf.status).toBe('FAILED');
    run.turn((t) => childChanged(t, run.task('sub').taskId, { ...leaf, status: 'RUNNING' }));
    expect(run.wf.status).toBe('RUNNING');
    expect(run.task('sub').status).toBe('IN_PROGRESS');
    expect(run.effects('notifyParent')).toEqual([{ kind: 'notifyParent', parentWorkflowId: 'root', parentTaskId: 'root-task', childWorkflowId: 'wf-1' }]);
  });
});

describe('permissive tasks', () => {
  const forkDef = () =>
    workflowDef({
      tasks: [
        sys(
          'FORK_JOIN',
          'fork',
          {},
          {
            forkTasks: [
              [simple('p', 'task_p', {}, { permissive: true }), simple('p2')],
              [simple('b1'), simple('b2')],
            ],
          },
        ),
        sys('JOIN', 'join', {}, { joinOn: ['p2', 'b2'] }),
        simple('after'),
      ],
    });

  it('a failed permissive task in a fork lets its branch and the siblings go on; one the JOIN does not wait on fails the workflow at its end', () => {
    env.register({ name: 'task_p', retryCount: 0 });
    const run = new Run(env, forkDef());
    run.fail('p', 'permissive boom');
    expect(run.wf.status).toBe('RUNNING');
    expect(run.task('p').status).toBe('FAILED');
    expect(run.task('b1').status).toBe('SCHEDULED');
    expect(run.task('p2').status).toBe('SCHEDULED');
    run.complete('p2');
    run.complete('b1');
    expect(run.task('join').status).toBe('IN_PROGRESS');
    run.complete('b2', { done: true });
    // As Conductor's Join: only the tasks of joinOn count there.
    expect(run.task('join').status).toBe('COMPLETED');
    run.complete('after');
    expect(run.wf).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `Task ${run.task('p').taskId} failed with status: FAILED and reason: 'permissive boom'`,
    });
  });

  it('a failed permissive task the JOIN waits on fails the JOIN with its reason once the other branches are done', () => {
    env.register({ name: 'task_p', retryCount: 0 });
    const def = workflowDef({
      tasks: [
        sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('p', 'task_p', {}, { permissive: true })], [simple('b')]] }),
        sys('JOIN', 'join', {}, { joinOn: ['p', 'b'] }),
        simple('after'),
      ],
    });
    const run = new Run(env, def);
    run.fail('p', 'permissive boom');
    expect(run.wf.status).toBe('RUNNING');
    expect(run.task('b').status).toBe('SCHEDULED');
    run.complete('b');
    expect(run.task('join')).toMatchObject({ status: 'FAILED', reasonForIncompletion: 'permissive boom' });
    expect(run.wf).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion: `Task ${run.task('join').taskId} failed with status: FAILED and reason: 'permissive boom'`,
    });
  });

  it('a permissive task with retries left is retried first', () => {
    env.register({ name: 'task_p', retryCount: 1, retryDelaySeconds: 0 });
    const def = workflowDef({
      tasks: [
        sys('FORK_JOIN', 'fork', {}, { forkTasks: [[simple('p', 'task_p', {}, { permissive: true })], [simple('b')]] }),
        sys('JOIN', 'join', {}, { joinOn: ['p', 'b'] }),
      ],
    });
    const run = new Run(env, def);
    run.complete('b');
    run.fail('p');
    expect(run.task('join').status).toBe('IN_PROGRESS');
    run.complete('p');
    expect(run.task('join').status).toBe('COMPLETED');
    expect(run.wf.status).toBe('COMPLETED');
  });

  it('outside a fork, the workflow runs to its end and then fails with the permissive failure', () => {
    env.register({ name: 'task_p', retryCount: 0 });
    const run = new Run(env, workflowDef({ tasks: [simple('p', 'task_p', {}, { permissive: true }), simple('next')] }));
    run.fail('p', 'soft');
    expect(run.task('next').status).toBe('SCHEDULED');
    run.complete('next');
    expect(run.wf).toMatchObject({ status: 'FAILED', reasonForIncompletion: `Task ${run.task('p').taskId} failed with status: FAILED and reason: 'soft'` });
  });
});

describe('TERMINATE with terminationStatus COMPLETED', () => {
  it("sets Conductor's reason, and a running child is terminated with the parent's reason", () => {
    const def = workflowDef({
      tasks: [
        sys(
          'FORK_JOIN',
          'fork',
          {},
          {
            forkTasks: [
              [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'child', version: 1 } })],
              [sys('TERMINATE', 'stop', { terminationStatus: 'COMPLETED' })],
            ],
          },
        ),
        sys('JOIN', 'join', {}, { joinOn: ['sub', 'stop'] }),
      ],
    });
    const run = new Run(env, def);
    const reason = `Workflow is COMPLETED by TERMINATE task: ${run.task('stop').taskId}`;
    expect(run.wf).toMatchObject({ status: 'COMPLETED', reasonForIncompletion: reason });
    expect(run.task('sub').status).toBe('CANCELED');
    expect(run.effects('terminateWorkflow')).toEqual([
      { kind: 'terminateWorkflow', workflowId: run.task('sub').subWorkflowId, reason: `Parent workflow has been terminated with reason: ${reason}` },
    ]);
  });

  it('a parent terminated without a reason gives its status instead', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('SUB_WORKFLOW', 'sub', {}, { subWorkflowParam: { name: 'child', version: 1 } })] }));
    run.turn((t) => terminateWorkflow(t, undefined));
    expect(run.effects('terminateWorkflow')).toEqual([expect.objectContaining({ reason: 'Parent workflow has been terminated with status TERMINATED' })]);
  });
});
