import { releaseClaim } from '../../../src/engine/commands/release';
import { Run, simple, T0, useTestEnv, workflowDef } from './engine-harness';

// An HTTP task whose call is lost (Baton's worker died mid-call) times out like a worker task would,
// and is retried per its definition, instead of staying IN_PROGRESS forever.

const env = useTestEnv();

const http = (extra: Record<string, unknown> = {}) =>
  workflowDef({
    tasks: [
      { name: 'call', taskReferenceName: 'call', type: 'HTTP', inputParameters: { http_request: { uri: 'http://x', method: 'GET' } }, ...extra },
      simple('after'),
    ],
  });

test('without a task definition: 60 s, then TIMED_OUT, which ends the workflow (no retries without a definition)', () => {
  const run = new Run(env, http());
  expect(run.task('call').responseTimeoutSeconds).toBe(60);
  expect(run.deadline()).toBeNull(); // nothing to time out while it waits in its queue
  run.poll('call', 'baton-host');
  expect(run.deadline()).toBe(T0 + 60_000);
  env.advance(59);
  run.timer();
  expect(run.task('call').status).toBe('IN_PROGRESS');
  env.advance(1);
  run.timer();
  expect(run.task('call')).toMatchObject({ status: 'TIMED_OUT', reasonForIncompletion: expect.stringMatching(/^responseTimeout: 60 exceeded/) });
  expect(run.wf.status).toBe('TIMED_OUT');
});

test('with a definition: its responseTimeoutSeconds, and a lost call is retried per its retryCount', () => {
  env.register({ name: 'call', responseTimeoutSeconds: 5, retryCount: 1, retryDelaySeconds: 0 });
  const run = new Run(env, http());
  expect(run.task('call').responseTimeoutSeconds).toBe(5);
  run.poll('call');
  env.advance(5);
  run.timer();
  expect(run.summary()).toEqual(['call:HTTP:TIMED_OUT', 'call:HTTP:SCHEDULED']);
  expect(run.effects('enqueue')).toEqual([expect.objectContaining({ taskId: run.task('call').taskId, queue: { taskType: 'HTTP' } })]);
  run.poll('call');
  run.update('call', { status: 'COMPLETED', outputData: { response: { statusCode: 200 } } });
  expect(run.task('after').status).toBe('SCHEDULED');
});

test("the worker's heartbeat (extendLease) keeps a long call from timing out", () => {
  env.register({ name: 'call', responseTimeoutSeconds: 3, retryCount: 0 });
  const run = new Run(env, http());
  run.poll('call');
  for (let i = 0; i < 5; i++) {
    env.advance(1);
    run.update('call', { status: 'IN_PROGRESS', extendLease: true });
    run.timer();
  }
  expect(run.task('call').status).toBe('IN_PROGRESS');
  expect(run.deadline()).toBe(env.now + 3000);
});

test('asyncComplete: once the call has answered, the task waits for its outside completion without a response timeout', () => {
  const run = new Run(env, http({ asyncComplete: true }));
  run.poll('call');
  run.update('call', { status: 'IN_PROGRESS', outputData: { response: { statusCode: 200 } } });
  expect(run.task('call')).toMatchObject({ status: 'IN_PROGRESS', responseTimeoutSeconds: 0 });
  expect(run.deadline()).toBeNull();
  env.advance(3600);
  run.timer();
  expect(run.task('call').status).toBe('IN_PROGRESS');
});

test('a claim its worker gives back before starting the call (the worker stopping) is SCHEDULED in its queue again, same task', () => {
  const run = new Run(env, http());
  const claimed = run.poll('call', 'baton-host')!;
  env.advance(2);
  expect(run.turn((t) => releaseClaim(t, claimed.taskId))).toBe(true);
  expect(run.summary()).toEqual(['call:HTTP:SCHEDULED']);
  expect(run.task('call')).toMatchObject({ taskId: claimed.taskId, pollCount: 1, retryCount: 0 });
  expect(run.effects('enqueue')).toEqual([expect.objectContaining({ taskId: claimed.taskId, queue: { taskType: 'HTTP' }, visibleAt: env.now })]);
  expect(run.deadline()).toBeNull(); // no response timeout while it waits in its queue
  // Claimed again elsewhere, it runs as any HTTP task.
  run.poll('call', 'other-host');
  run.update('call', { status: 'COMPLETED', outputData: { response: { statusCode: 200 } } });
  expect(run.task('after').status).toBe('SCHEDULED');
});

test('a give-back changes nothing once the task is not a waiting claim: ended, a worker task, or its workflow over', () => {
  const run = new Run(env, http());
  const claimed = run.poll('call')!;
  run.update('call', { status: 'COMPLETED', outputData: {} });
  expect(run.turn((t) => releaseClaim(t, claimed.taskId))).toBe(false);
  expect(run.task('call').status).toBe('COMPLETED');
  const worker = run.poll('after')!;
  expect(run.turn((t) => releaseClaim(t, worker.taskId))).toBe(false);
  expect(run.task('after').status).toBe('IN_PROGRESS');
  expect(run.turn((t) => releaseClaim(t, 'no-such-task'))).toBe(false);
});
