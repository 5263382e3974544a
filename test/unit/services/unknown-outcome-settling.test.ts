import { WorkflowDefSchema } from '../../../src/model/definitions';
import { BatonError } from '../../../src/model/errors';
import { Errors } from '../../../src/model/named-errors';
import type { Task } from '../../../src/model/execution';
import type { TaskResult } from '../../../src/model/requests';
import { HostStopping, OutcomeUnknown, type ActorHost } from '../../../src/runtime/ports';
import type { MetadataService } from '../../../src/services/metadata-service';
import { TaskService } from '../../../src/services/task-service';
import { settleUnknownOutcome, storedUpdateOutcome, type SettlePolicy } from '../../../src/services/unknown-outcome';
import { WorkflowService } from '../../../src/services/workflow-service';
import type { ExecutionStore } from '../../../src/store/ports';

// A rolling update: the pod hosting an actor stops while a start or an update it was sent is in flight, and
// the caller gets daprd's "context canceled". The client must hear the outcome, or a retryable error only
// when nothing can have happened; an ambiguous outcome reaches it only when nothing could settle it.

const policy: SettlePolicy = { resends: 2, delayMs: 0 };
const lost = (method: string) => new OutcomeUnknown({ type: 'WorkflowActor', id: 'wf', method }, 'context canceled');

describe('settleUnknownOutcome', () => {
  const never = async () => {
    throw new Error('not called');
  };

  test('a call answered is not re-sent', async () => {
    const resend = jest.fn(never);
    expect(await settleUnknownOutcome({ call: async () => 'a', resend, lookup: never }, policy)).toBe('a');
    expect(resend).not.toHaveBeenCalled();
  });

  test('a definite error is the answer, not re-sent', async () => {
    const resend = jest.fn(never);
    await expect(
      settleUnknownOutcome({ call: async () => Promise.reject(Errors.WORKFLOW_NOT_FOUND('wf')), resend, lookup: never }, policy),
    ).rejects.toMatchObject({
      status: 404,
    });
    expect(resend).not.toHaveBeenCalled();
  });

  test('an unknown outcome: the answer of the re-send', async () => {
    let calls = 0;
    const out = await settleUnknownOutcome(
      {
        call: async () => Promise.reject(lost('start')),
        resend: async () => (++calls === 1 ? Promise.reject(new HostStopping()) : 'settled'),
        lookup: never,
      },
      policy,
    );
    expect(out).toBe('settled');
    expect(calls).toBe(2);
  });

  test("a re-send's definite refusal is the answer", async () => {
    await expect(
      settleUnknownOutcome(
        { call: async () => Promise.reject(lost('update')), resend: async () => Promise.reject(Errors.TASK_NOT_FOUND('t')), lookup: never },
        policy,
      ),
    ).rejects.toMatchObject({ status: 404 });
  });

  test('every re-send inconclusive: the store answers when it shows the effect', async () => {
    const resend = jest.fn(async () => Promise.reject(lost('start')));
    expect(await settleUnknownOutcome({ call: async () => Promise.reject(lost('start')), resend, lookup: async () => 'found' }, policy)).toBe('found');
    expect(resend).toHaveBeenCalledTimes(2);
  });

  test('nothing settles it: the unknown outcome (not retryable), never a retryable error', async () => {
    const first = lost('start');
    const err = await settleUnknownOutcome(
      { call: async () => Promise.reject(first), resend: async () => Promise.reject(new HostStopping()), lookup: async () => undefined },
      policy,
    ).catch((e: unknown) => e);
    expect(err).toBe(first);
    expect((err as BatonError).retryable).toBe(false);
  });

  test("the store's own unknown commit, revived across the sidecar by its code, is settled too", async () => {
    const revived = new BatonError(500, 'could not confirm', undefined, 'OUTCOME_UNKNOWN');
    expect(await settleUnknownOutcome({ call: async () => Promise.reject(revived), resend: async () => 'ok', lookup: never }, policy)).toBe('ok');
  });
});

/**
 * Executions kept the way the actor and the store keep them: a start's commit is an insert-if-absent, a second
 * start of an existing id answers its id. `plan` says what happens to each start sent, in order.
 */
function startWorld(plan: Array<'answered' | 'lost-after-commit' | 'lost-before-turn' | 'lost-turn-commits-late' | 'stopping'>) {
  const executions = new Map<string, { fresh: boolean }>();
  const sent: Array<{ id: string; fresh: boolean }> = [];
  const late: Array<() => void> = [];
  const commit = (id: string, fresh: boolean) => {
    if (!executions.has(id)) executions.set(id, { fresh }); // insert-if-absent: a second writer loses (stale) and makes nothing
  };
  const host = {
    invoke: async (type: string, id: string, method: string, arg: { fresh: boolean }) => {
      sent.push({ id, fresh: arg.fresh });
      const step = plan.shift() ?? 'answered';
      if (step === 'stopping') throw new HostStopping();
      if (step === 'lost-before-turn') throw new OutcomeUnknown({ type, id, method }, 'context canceled');
      if (step === 'lost-turn-commits-late') {
        late.push(() => commit(id, arg.fresh));
        throw new OutcomeUnknown({ type, id, method }, 'context canceled');
      }
      commit(id, arg.fresh);
      if (step === 'lost-after-commit') throw new OutcomeUnknown({ type, id, method }, 'context canceled');
      return id;
    },
  } as unknown as ActorHost;
  const store = {
    load: async (id: string) => (executions.has(id) ? { workflow: { workflowId: id, status: 'RUNNING' }, tasks: [], rev: 1, outbox: [] } : undefined),
  } as unknown as ExecutionStore;
  const metadata = { limits: { maxBytes: 1 << 20, maxCount: 100 } } as unknown as MetadataService;
  const service = new WorkflowService(host, store, metadata, undefined, undefined, undefined, 200, undefined, undefined, policy);
  return { service, executions, sent, late };
}

const def = WorkflowDefSchema.parse({ name: 'pay', version: 1, tasks: [{ name: 'h', taskReferenceName: 'h', type: 'HUMAN' }] });
const startRequest = { name: 'pay', workflowDef: def, input: {} };

describe('a start whose answer was lost', () => {
  test('its turn had committed: 200 with the id, one execution', async () => {
    const { service, executions, sent } = startWorld(['lost-after-commit']);
    const id = await service.start(startRequest);
    expect([...executions.keys()]).toEqual([id]);
    // The re-send carries the same id and loads the execution instead of assuming a new one.
    expect(sent).toEqual([
      { id, fresh: true },
      { id, fresh: false },
    ]);
  });

  test('its turn never ran: the re-send with the same id starts it, 200 with the id', async () => {
    const { service, executions, sent } = startWorld(['lost-before-turn']);
    const id = await service.start(startRequest);
    expect([...executions.keys()]).toEqual([id]);
    expect(new Set(sent.map((s) => s.id))).toEqual(new Set([id]));
  });

  test('its turn commits after the re-send: still one execution, with the id answered', async () => {
    const { service, executions, late } = startWorld(['lost-turn-commits-late']);
    const id = await service.start(startRequest);
    late.forEach((run) => run());
    expect([...executions.keys()]).toEqual([id]);
  });

  test('the actor is moving (its host stopping) when re-sent: re-sent again until answered', async () => {
    const { service, executions } = startWorld(['lost-before-turn', 'stopping']);
    const id = await service.start(startRequest);
    expect([...executions.keys()]).toEqual([id]);
  });

  test('no re-send answered but the execution is stored: 200 with the id', async () => {
    const { service, executions } = startWorld(['lost-after-commit', 'stopping', 'stopping']);
    const id = await service.start(startRequest);
    expect([...executions.keys()]).toEqual([id]);
  });

  test('nothing settles it and no execution is stored: the unknown outcome (500, not retryable), never a 503', async () => {
    const { service, executions } = startWorld(['lost-before-turn', 'stopping', 'stopping']);
    const err = await service.start(startRequest).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutcomeUnknown);
    expect(err).toMatchObject({ status: 500, retryable: false });
    expect(executions.size).toBe(0);
  });
});

/** One IN_PROGRESS task kept as the actor keeps it: a result for an ended task is ignored. */
function updateWorld(plan: Array<'answered' | 'lost-after-commit' | 'lost-before-turn' | 'stopping'>) {
  const task = { taskId: 't1', workflowInstanceId: 'wf', taskType: 'work', status: 'IN_PROGRESS' } as Task;
  let applied = 0;
  const apply = (r: TaskResult) => {
    if (task.status !== 'IN_PROGRESS') return 'ignored' as const;
    task.status = r.status;
    applied++;
    return 'applied' as const;
  };
  const host = {
    invoke: async (type: string, id: string, method: string, r: TaskResult) => {
      const step = plan.shift() ?? 'answered';
      if (step === 'stopping') throw new HostStopping();
      if (step === 'lost-before-turn') throw new OutcomeUnknown({ type, id, method }, 'context canceled');
      const outcome = apply(r);
      if (step === 'lost-after-commit') throw new OutcomeUnknown({ type, id, method }, 'context canceled');
      return method === 'updateAndLocate' ? { outcome, taskType: task.taskType, next: null } : outcome;
    },
  } as unknown as ActorHost;
  const store = { getTask: async (id: string) => (id === task.taskId ? { ...task } : undefined) } as unknown as ExecutionStore;
  const tasks = new TaskService({ host, store, settle: policy } as unknown as ConstructorParameters<typeof TaskService>[0]);
  return { tasks, task, applied: () => applied };
}

const completed: TaskResult = { workflowInstanceId: 'wf', taskId: 't1', status: 'COMPLETED', outputData: { ok: true } } as TaskResult;

describe('an update whose answer was lost', () => {
  test('it had been applied: answered as applied, applied once', async () => {
    const w = updateWorld(['lost-after-commit']);
    expect(await w.tasks.update(completed)).toBe('applied');
    expect(w.applied()).toBe(1);
    expect(w.task.status).toBe('COMPLETED');
  });

  test('it never ran: the re-send applies it', async () => {
    const w = updateWorld(['lost-before-turn', 'stopping']);
    expect(await w.tasks.update(completed)).toBe('applied');
    expect(w.applied()).toBe(1);
  });

  test('no re-send answered, the task stored with this result: applied (the stored status settles it)', async () => {
    const w = updateWorld(['lost-after-commit', 'stopping', 'stopping']);
    expect(await w.tasks.update(completed)).toBe('applied');
  });

  test('no re-send answered, the task still IN_PROGRESS: the unknown outcome, not retryable', async () => {
    const w = updateWorld(['lost-before-turn', 'stopping', 'stopping']);
    await expect(w.tasks.update(completed)).rejects.toMatchObject({ status: 500, retryable: false, code: 'OUTCOME_UNKNOWN' });
  });

  test('update-v2 (update and poll the next): settled the same way', async () => {
    const w = updateWorld(['lost-after-commit']);
    const tasks = w.tasks as unknown as { poll: () => Promise<Task[]> };
    tasks.poll = async () => [];
    expect(await w.tasks.updateAndPollNext(completed)).toEqual({ outcome: 'applied', next: undefined });
    expect(w.applied()).toBe(1);
  });
});

describe('storedUpdateOutcome', () => {
  test.each([
    ['the task ended with this result', { status: 'COMPLETED' }, { status: 'COMPLETED' }, 'applied'],
    ['the task ended otherwise (timed out): a repeat would be ignored', { status: 'COMPLETED' }, { status: 'TIMED_OUT' }, 'ignored'],
    ['the task still runs: the lost result may still apply', { status: 'COMPLETED' }, { status: 'IN_PROGRESS' }, undefined],
    ['an IN_PROGRESS result leaves no mark to read', { status: 'IN_PROGRESS' }, { status: 'IN_PROGRESS' }, undefined],
    ['a lease extension leaves no mark to read', { status: 'IN_PROGRESS', extendLease: true }, { status: 'COMPLETED' }, undefined],
    ['no such task stored', { status: 'FAILED' }, undefined, undefined],
  ] as const)('%s', (_what, result, task, expected) => {
    expect(storedUpdateOutcome(result, task)).toBe(expected);
  });
});
