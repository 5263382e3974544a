import { retryWorkflow } from '../../../src/engine/commands/retry';
import { WorkflowDefSchema } from '../../../src/model/definitions';
import { Run, simple, sys, T0, useTestEnv, workflowDef } from './engine-harness';

// Behaviours the differential runs against Conductor found missing (issue 12), each as Conductor has it.

const env = useTestEnv({ scripts: false });

describe("a workflow task's embedded taskDefinition", () => {
  const embedded = { name: 'emb', timeoutSeconds: 10, responseTimeoutSeconds: 3600, retryCount: 1, retryDelaySeconds: 0 };

  it('is not held to the rules of a registered definition (responseTimeoutSeconds above timeoutSeconds, a 0 response timeout)', () => {
    for (const taskDefinition of [embedded, { name: 'emb', responseTimeoutSeconds: 0 }]) {
      const r = WorkflowDefSchema.safeParse({ name: 'wf', tasks: [simple('a', 'emb', {}, { taskDefinition })] });
      expect(r.success).toBe(true);
    }
  });

  it('still binds its field types, as Conductor deserialises it', () => {
    const r = WorkflowDefSchema.safeParse({ name: 'wf', tasks: [simple('a', 'emb', {}, { taskDefinition: { name: 'emb', retryCount: 'three' } })] });
    expect(r.success).toBe(false);
  });

  it('is the definition the task runs with: its retries and its response timeout', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'emb', {}, { taskDefinition: embedded })] }));
    expect(run.task('a').responseTimeoutSeconds).toBe(3600);
    run.fail('a');
    expect(run.summary()).toEqual(['a:emb:FAILED', 'a:emb:SCHEDULED']);
  });
});

describe('JOIN input', () => {
  it("is {joinOn} as declared, as Conductor's JOIN mapper sets it", () => {
    const def = workflowDef({
      tasks: [
        { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[simple('a')], [simple('b')]] },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN', joinOn: ['a', 'b'], inputParameters: { ignored: 1 } },
      ],
    });
    const run = new Run(env, def);
    expect(run.task('j').inputData).toEqual({ joinOn: ['a', 'b'] });
  });

  it('is an empty joinOn when none is declared', () => {
    const def = workflowDef({
      tasks: [
        { name: 'f', taskReferenceName: 'f', type: 'FORK_JOIN', forkTasks: [[simple('a')]] },
        { name: 'j', taskReferenceName: 'j', type: 'JOIN' },
      ],
    });
    expect(new Run(env, def).task('j').inputData).toEqual({ joinOn: [] });
  });
});

describe('${CPEWF_TASK_ID} in a retried task', () => {
  const def = () => workflowDef({ tasks: [simple('a', 'task_a', { me: '${CPEWF_TASK_ID}', x: '${workflow.input.x}' })] });

  it('names the new attempt after an automatic retry', () => {
    env.register({ name: 'task_a', retryCount: 1, retryDelaySeconds: 0 });
    const run = new Run(env, def(), { input: { x: 1 } });
    const first = run.task('a');
    expect(first.inputData).toEqual({ me: first.taskId, x: 1 });
    run.fail('a');
    const second = run.task('a');
    expect(second.taskId).not.toBe(first.taskId);
    expect(second.inputData).toEqual({ me: second.taskId, x: 1 });
  });

  it('names the new attempt after a retry of the workflow', () => {
    env.register({ name: 'task_a', retryCount: 0 });
    const run = new Run(env, def(), { input: { x: 1 } });
    run.fail('a');
    expect(run.wf.status).toBe('FAILED');
    run.turn((t) => retryWorkflow(t));
    const retried = run.task('a');
    expect(retried.status).toBe('SCHEDULED');
    expect(retried.inputData).toEqual({ me: retried.taskId, x: 1 });
  });
});

describe('EVENT and HTTP input, as their mappers build it', () => {
  it('EVENT adds sink and asyncComplete to its input, so they are published and in its output too', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('EVENT', 'ev', { k: 'v' }, { sink: 'sqs:q' })] }));
    const ev = run.task('ev');
    expect(ev.inputData).toEqual({ k: 'v', sink: 'sqs:q', asyncComplete: false });
    expect(run.effects('publish')[0]!.payload).toMatchObject({ k: 'v', sink: 'sqs:q', asyncComplete: false });
    expect(ev.outputData).toMatchObject({ k: 'v', sink: 'sqs:q', asyncComplete: false, event_produced: 'sqs:q' });
  });

  it('an asyncComplete EVENT records what it published, event_produced too, while it waits', () => {
    const run = new Run(env, workflowDef({ tasks: [sys('EVENT', 'ev', { k: 'v' }, { sink: 'conductor', asyncComplete: true })] }));
    expect(run.task('ev')).toMatchObject({
      status: 'IN_PROGRESS',
      inputData: { k: 'v', sink: 'conductor', asyncComplete: true },
      outputData: { k: 'v', workflowInstanceId: 'wf-1', event_produced: 'conductor:wf:ev' },
    });
    run.external('ev', 'COMPLETED', { acked: true });
    expect(run.task('ev').outputData).toMatchObject({ event_produced: 'conductor:wf:ev', acked: true });
  });

  it('HTTP adds asyncComplete to its input', () => {
    const http_request = { uri: 'http://127.0.0.1:1/x', method: 'GET' };
    const run = new Run(env, workflowDef({ tasks: [sys('HTTP', 'h', { http_request }, { asyncComplete: true })] }));
    expect(run.task('h').inputData).toEqual({ http_request, asyncComplete: true });
  });
});

describe('a retried WAIT with a retry delay', () => {
  it('waits SCHEDULED for the delay, then starts', () => {
    env.register({ name: 'w', timeoutSeconds: 2, responseTimeoutSeconds: 1, timeoutPolicy: 'RETRY', retryCount: 1, retryDelaySeconds: 5 });
    const run = new Run(env, workflowDef({ tasks: [sys('WAIT', 'w'), simple('after')] }));
    expect(run.task('w')).toMatchObject({ status: 'IN_PROGRESS', startTime: T0 });
    expect(run.deadline()).toBe(T0 + 2000);
    env.advance(2);
    run.timer();
    expect(run.summary()).toEqual(['w:WAIT:TIMED_OUT', 'w:WAIT:SCHEDULED']);
    expect(run.task('w')).toMatchObject({ startTime: 0, callbackAfterSeconds: 5, retryCount: 1 });
    expect(run.deadline()).toBe(T0 + 7000);
    env.advance(4.999);
    run.timer();
    expect(run.task('w').status).toBe('SCHEDULED');
    env.advance(0.001);
    run.timer();
    expect(run.task('w')).toMatchObject({ status: 'IN_PROGRESS', startTime: T0 + 7000 });
    run.external('w', 'COMPLETED');
    expect(run.summary()).toEqual(['w:WAIT:TIMED_OUT', 'w:WAIT:COMPLETED', 'after:task_after:SCHEDULED']);
  });

  it('a retry of the workflow starts it at once', () => {
    env.register({ name: 'w', timeoutSeconds: 2, responseTimeoutSeconds: 1, timeoutPolicy: 'TIME_OUT_WF', retryCount: 0, retryDelaySeconds: 5 });
    const run = new Run(env, workflowDef({ tasks: [sys('WAIT', 'w')] }));
    env.advance(2);
    run.timer();
    expect(run.wf.status).toBe('TIMED_OUT');
    run.turn((t) => retryWorkflow(t));
    expect(run.task('w').status).toBe('IN_PROGRESS');
  });
});
