import { nextDeadline, taskDeadlines, workflowDeadline } from '../../../src/engine/deadlines';
import { adhocTaskDef } from '../../../src/engine/state';
import { TaskDefSchema, type TaskDef } from '../../../src/model/definitions';
import type { Task, WorkflowRecord } from '../../../src/model/execution';
import { Run, simple, T0, useTestEnv, workflowDef } from './engine-harness';

// taskDeadlines: the one formula both the timeout checks of the decide loop and the next reminder read.

const def = (d: Record<string, unknown>): TaskDef => TaskDefSchema.parse({ name: 'x', responseTimeoutSeconds: 1, ...d });

/** An open worker task scheduled at T0 with no delay. */
const task = (t: Partial<Task> = {}): Task =>
  ({
    taskId: 't1',
    taskType: 'x',
    taskDefName: 'x',
    status: 'SCHEDULED',
    scheduledTime: T0,
    startTime: 0,
    updateTime: T0,
    startDelayInSeconds: 0,
    callbackAfterSeconds: 0,
    responseTimeoutSeconds: 0,
    ...t,
  }) as Task;

describe('taskDeadlines', () => {
  it('a scheduled worker task: its poll timeout, after its delay and callback', () => {
    expect(taskDeadlines(task({ startDelayInSeconds: 2, callbackAfterSeconds: 3 }), def({ pollTimeoutSeconds: 10, timeoutPolicy: 'RETRY' }))).toEqual([
      { kind: 'pollTimeout', at: T0 + 2_000 + 13_000, timesOutWorkflow: false },
    ]);
  });

  it('a started task: its timeout from its start; with TIME_OUT_WF it times the workflow out', () => {
    const started = task({ status: 'IN_PROGRESS', startTime: T0 + 1000 });
    expect(taskDeadlines(started, def({ timeoutSeconds: 30, timeoutPolicy: 'TIME_OUT_WF' }))).toEqual([
      { kind: 'timeout', at: T0 + 31_000, timesOutWorkflow: true },
    ]);
  });

  it('a queued task a worker holds: its response timeout from its last update, after the timeout, in that order', () => {
    const held = task({ status: 'IN_PROGRESS', startTime: T0, updateTime: T0 + 5000, responseTimeoutSeconds: 10, callbackAfterSeconds: 1 });
    expect(taskDeadlines(held, def({ timeoutSeconds: 60, timeoutPolicy: 'RETRY' }))).toEqual([
      { kind: 'timeout', at: T0 + 60_000, timesOutWorkflow: false },
      { kind: 'responseTimeout', at: T0 + 5000 + 11_000, timesOutWorkflow: false },
    ]);
  });

  it('ALERT_ONLY never times a task out (its response timeout still applies); no limits, no deadlines', () => {
    const held = task({ status: 'IN_PROGRESS', startTime: T0, responseTimeoutSeconds: 10 });
    expect(taskDeadlines(held, def({ timeoutSeconds: 60, pollTimeoutSeconds: 5, timeoutPolicy: 'ALERT_ONLY' })).map((d) => d.kind)).toEqual([
      'responseTimeout',
    ]);
    expect(taskDeadlines(task(), adhocTaskDef('x', true))).toEqual([]);
  });

  it('a system task has no poll or response timeout', () => {
    expect(taskDeadlines(task({ taskType: 'WAIT', status: 'IN_PROGRESS', responseTimeoutSeconds: 10 }), def({ pollTimeoutSeconds: 5 }))).toEqual([]);
  });
});

describe('workflowDeadline', () => {
  const wf = (w: Partial<WorkflowRecord>, d: Record<string, unknown>) =>
    ({
      status: 'RUNNING',
      createTime: T0,
      lastRetriedTime: 0,
      workflowDefinition: { timeoutSeconds: 0, timeoutPolicy: 'TIME_OUT_WF', ...d },
      ...w,
    }) as WorkflowRecord;

  it('counts from the creation, or from the last retry', () => {
    expect(workflowDeadline(wf({}, { timeoutSeconds: 10 }))).toBe(T0 + 10_000);
    expect(workflowDeadline(wf({ lastRetriedTime: T0 + 500 }, { timeoutSeconds: 10 }))).toBe(T0 + 10_500);
  });

  it('none without a timeout, with ALERT_ONLY, or once the workflow is not running', () => {
    expect(workflowDeadline(wf({}, {}))).toBeUndefined();
    expect(workflowDeadline(wf({}, { timeoutSeconds: 10, timeoutPolicy: 'ALERT_ONLY' }))).toBeUndefined();
    expect(workflowDeadline(wf({ status: 'PAUSED' }, { timeoutSeconds: 10 }))).toBeUndefined();
  });
});

describe('the reminder and the timeout checks agree', () => {
  const env = useTestEnv({ scripts: false });

  it('the next reminder is the poll timeout, and at that moment (not a millisecond before) the task times out', () => {
    env.register({ name: 'task_a', pollTimeoutSeconds: 7, timeoutPolicy: 'RETRY', retryCount: 0 });
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'task_a')] }));
    const at = nextDeadline(run.state, env);
    expect(at).toBe(T0 + 7000);
    env.now = at! - 1;
    run.timer();
    expect(run.task('a').status).toBe('SCHEDULED');
    env.now = at!;
    run.timer();
    expect(run.task('a')).toMatchObject({
      status: 'TIMED_OUT',
      reasonForIncompletion: 'Task poll timed out after 7 seconds. Timeout policy configured to RETRY',
    });
  });

  it('the earliest of a response timeout, a task timeout and a WAIT deadline wins', () => {
    env.register({ name: 'task_a', timeoutSeconds: 20, responseTimeoutSeconds: 15, timeoutPolicy: 'RETRY', retryCount: 0 });
    const run = new Run(
      env,
      workflowDef({
        tasks: [
          {
            name: 'f',
            taskReferenceName: 'f',
            type: 'FORK_JOIN',
            inputParameters: {},
            forkTasks: [[simple('a', 'task_a')], [{ name: 'w', taskReferenceName: 'w', type: 'WAIT', inputParameters: { duration: '30 seconds' } }]],
          },
          { name: 'j', taskReferenceName: 'j', type: 'JOIN', inputParameters: {} },
        ],
      }),
    );
    run.poll('a');
    expect(run.deadline()).toBe(T0 + 15_000);
    env.advance(10);
    run.update('a', { status: 'IN_PROGRESS' }); // a worker's IN_PROGRESS: back to its queue, polled again below
    run.poll('a');
    expect(run.deadline()).toBe(T0 + 20_000);
    run.complete('a');
    expect(run.deadline()).toBe(T0 + 30_000);
  });
});
