import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// Every start an execution makes carries its lineage (root and generation, model/lineage), and a start past
// BATON_MAX_WORKFLOW_GENERATIONS fails its task, so no chain of SUB_WORKFLOW, START_WORKFLOW, failure
// workflows or event-handler starts grows without end.

const env = useTestEnv({ scripts: false });

const forkingItself = workflowDef({
  name: 'twice',
  tasks: [
    {
      name: 'fork',
      taskReferenceName: 'fork',
      type: 'FORK_JOIN',
      forkTasks: [
        [sys('SUB_WORKFLOW', 'a', {}, { subWorkflowParam: { name: 'twice', version: 1 } })],
        [sys('SUB_WORKFLOW', 'b', {}, { subWorkflowParam: { name: 'twice', version: 1 } })],
      ],
    },
    sys('JOIN', 'join', {}, { joinOn: ['a', 'b'] }),
  ],
});
const startingItself = workflowDef({ name: 'again', tasks: [sys('START_WORKFLOW', 'sw', { startWorkflow: { name: 'again' } })] });

describe('lineage of the starts an execution makes', () => {
  it('a root (started through the API) records none; its starts are generation 1 below it', () => {
    const run = new Run(env, forkingItself);
    expect(run.wf.rootWorkflowId).toBeUndefined();
    expect(run.wf.generation).toBeUndefined();
    expect(run.effects('startWorkflow').map((e) => e.lineage)).toEqual([
      { rootWorkflowId: 'wf-1', generation: 1 },
      { rootWorkflowId: 'wf-1', generation: 1 },
    ]);
  });

  it('a descendant records its root and generation and passes generation + 1 on, by SUB_WORKFLOW and START_WORKFLOW alike', () => {
    const sub = new Run(env, forkingItself, {}, { lineage: { rootWorkflowId: 'r', generation: 5 }, parent: { workflowId: 'p', taskId: 'pt', depth: 1 } });
    expect(sub.wf).toMatchObject({ rootWorkflowId: 'r', generation: 5 });
    expect(sub.effects('startWorkflow').map((e) => e.lineage)).toEqual([
      { rootWorkflowId: 'r', generation: 6 },
      { rootWorkflowId: 'r', generation: 6 },
    ]);
    const started = new Run(env, startingItself, {}, { lineage: { rootWorkflowId: 'r', generation: 7 } });
    expect(started.effects('startWorkflow')).toEqual([
      expect.objectContaining({ lineage: { rootWorkflowId: 'r', generation: 8 }, starter: { workflowId: 'wf-1', taskId: started.task('sw').taskId } }),
    ]);
  });

  it('status events and EVENT task publications carry the publisher lineage, for event-handler starts to descend from', () => {
    const def = workflowDef({ workflowStatusListenerEnabled: true, tasks: [sys('EVENT', 'ev', {}, { sink: 'conductor' }), simple('a')] });
    const run = new Run(env, def, {}, { lineage: { rootWorkflowId: 'r', generation: 3 } });
    expect(run.effects('publish').map((e) => e.lineage)).toEqual([{ rootWorkflowId: 'r', generation: 3 }]);
    const changes = run.effects('statusChange');
    expect(changes.length).toBeGreaterThan(0);
    for (const c of changes) expect(c.lineage).toEqual({ rootWorkflowId: 'r', generation: 3 });
  });

  it('a failure workflow descends from the execution that failed', () => {
    env.register({ name: 'task_a', retryCount: 0 });
    const run = new Run(env, workflowDef({ failureWorkflow: 'cleanup', tasks: [simple('a')] }), {}, { lineage: { rootWorkflowId: 'r', generation: 2 } });
    run.fail('a');
    expect(run.effects('startWorkflow')).toEqual([
      expect.objectContaining({ request: expect.objectContaining({ name: 'cleanup' }), lineage: { rootWorkflowId: 'r', generation: 3 } }),
    ]);
  });
});

describe('generations (BATON_MAX_WORKFLOW_GENERATIONS)', () => {
  it('a SUB_WORKFLOW whose child would pass the cap fails with the reason and starts nothing', () => {
    env.maxWorkflowGenerations = 4;
    const ok = new Run(env, forkingItself, {}, { lineage: { rootWorkflowId: 'r', generation: 3 } });
    expect(ok.effects('startWorkflow')).toHaveLength(2);
    const run = new Run(env, forkingItself, {}, { lineage: { rootWorkflowId: 'r', generation: 4 } });
    expect(run.effects('startWorkflow')).toEqual([]);
    const reason = 'Workflow twice not started: it would be generation 5 below root execution r, over the limit of 4 (BATON_MAX_WORKFLOW_GENERATIONS)';
    expect(run.task('a')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: reason });
    expect(run.task('a').subWorkflowId).toBeUndefined();
    expect(run.wf.status).toBe('FAILED');
  });

  it('a START_WORKFLOW that would pass the cap fails with the reason and starts nothing', () => {
    env.maxWorkflowGenerations = 4;
    const run = new Run(env, startingItself, {}, { lineage: { rootWorkflowId: 'r', generation: 4 } });
    expect(run.effects('startWorkflow')).toEqual([]);
    expect(run.task('sw')).toMatchObject({
      status: 'FAILED',
      reasonForIncompletion:
        'Workflow again not started: it would be generation 5 below root execution r, over the limit of 4 (BATON_MAX_WORKFLOW_GENERATIONS)',
    });
    expect(run.wf.status).toBe('FAILED');
  });

  it('a START_WORKFLOW below the cap waits for its start instead of completing before it happened', () => {
    const run = new Run(env, startingItself);
    expect(run.task('sw').status).toBe('IN_PROGRESS');
    expect(run.effects('startWorkflow')).toHaveLength(1);
  });
});
