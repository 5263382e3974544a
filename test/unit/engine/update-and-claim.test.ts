import { applyTaskResultAndClaimNext, type UpdateAndClaim } from '../../../src/engine/commands/update-and-claim';
import { Run, simple, sys, useTestEnv, workflowDef } from './engine-harness';

// update-v2's eager hand-over: the task an update schedules on the same queue goes to the same worker in
// the same turn, with no queue entry; anything else is left to the queue.

const env = useTestEnv({ scripts: false });

/** Polls `ref` as worker `w1`, then completes it through update-v2's command. */
function updateV2(run: Run, ref: string, extra: Record<string, unknown> = {}): UpdateAndClaim {
  if (run.task(ref).status === 'SCHEDULED') run.poll(ref, 'w1');
  const taskId = run.task(ref).taskId;
  return run.turn((t) =>
    applyTaskResultAndClaimNext(t, { workflowInstanceId: run.wf.workflowId, taskId, status: 'COMPLETED', workerId: 'w1', outputData: { ok: 1 }, ...extra }),
  );
}

describe('update-v2 hands the next task of the same queue to the same worker', () => {
  it('claims the task the update scheduled: IN_PROGRESS, polled once, by that worker, and never enqueued', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'same'), simple('b', 'same', { x: '${a.output.ok}' })] }));
    const r = updateV2(run, 'a');
    expect(r).toMatchObject({
      outcome: 'applied',
      taskType: 'same',
      next: { referenceTaskName: 'b', status: 'IN_PROGRESS', pollCount: 1, workerId: 'w1', inputData: { x: 1 } },
    });
    expect(run.task('b').status).toBe('IN_PROGRESS');
    expect(run.task('b').startTime).toBe(env.now);
    expect(run.effects('enqueue')).toEqual([]);
    expect(run.log.changed.has(run.task('b'))).toBe(true);
  });

  it('leaves a task of another type to its queue', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'one'), simple('b', 'two')] }));
    const r = updateV2(run, 'a');
    expect(r).toMatchObject({ outcome: 'applied', taskType: 'one', next: null });
    expect(run.task('b').status).toBe('SCHEDULED');
    expect(run.effects('enqueue').map((e) => e.taskId)).toEqual([run.task('b').taskId]);
  });

  it('leaves a task of the same type in another domain to its queue', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'same'), simple('b', 'same')] }), { taskToDomain: { same: 'east' } });
    run.task('a').domain = 'west'; // as if the first task had gone out before the mapping changed
    expect(updateV2(run, 'a').next).toBeNull();
    expect(run.task('b').status).toBe('SCHEDULED');
  });

  it('leaves a task with a concurrency or rate limit to the queue, which admits it', () => {
    env.register({ name: 'limited', concurrentExecLimit: 2 });
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'limited'), simple('b', 'limited')] }));
    expect(updateV2(run, 'a').next).toBeNull();
    env.register({ name: 'rated', rateLimitPerFrequency: 5, rateLimitFrequencyInSeconds: 1 });
    const rated = new Run(env, workflowDef({ tasks: [simple('a', 'rated'), simple('b', 'rated')] }));
    expect(updateV2(rated, 'a').next).toBeNull();
    expect(rated.effects('enqueue')).toHaveLength(1);
  });

  it('leaves a retry that waits out its delay to the queue', () => {
    env.register({ name: 'retrying', retryCount: 1, retryLogic: 'FIXED', retryDelaySeconds: 5 });
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'retrying')] }));
    expect(updateV2(run, 'a', { status: 'FAILED', reasonForIncompletion: 'again' }).next).toBeNull();
    expect(run.effects('enqueue')).toEqual([expect.objectContaining({ visibleAt: env.now + 5000 })]);
  });

  it('hands over one task of a fork whose branches share the type; the others stay queued', () => {
    const run = new Run(
      env,
      workflowDef({
        tasks: [
          simple('a', 'same'),
          sys('FORK_JOIN', 'f', {}, { forkTasks: [[simple('b1', 'same')], [simple('b2', 'same')]] }),
          sys('JOIN', 'j', {}, { joinOn: ['b1', 'b2'] }),
        ],
      }),
    );
    const r = updateV2(run, 'a');
    expect(r.next?.referenceTaskName).toBe('b1');
    expect(run.effects('enqueue').map((e) => e.taskId)).toEqual([run.task('b2').taskId]);
  });

  it('claims nothing for a failed or ignored update', () => {
    const run = new Run(env, workflowDef({ tasks: [simple('a', 'same'), simple('b', 'same')] }));
    expect(updateV2(run, 'a', { status: 'IN_PROGRESS', callbackAfterSeconds: 10 }).next).toBeNull();
    const done = new Run(env, workflowDef({ tasks: [simple('a', 'same')] }));
    updateV2(done, 'a');
    expect(updateV2(done, 'a')).toMatchObject({ outcome: 'ignored', next: null });
  });
});
