import pino from 'pino';
import { WorkflowActor } from '../../../src/actors/workflow-actor';
import { WorkflowCalls, type WorkflowActorClient } from '../../../src/actors/protocol/workflow-protocol';
import type { EngineEnv, ExecutionState } from '../../../src/engine/state';
import { TaskDefSchema, WorkflowDefSchema, type TaskDef } from '../../../src/model/definitions';
import type { Effect } from '../../../src/model/effects';
import type { Task } from '../../../src/model/execution';
import { ActorDeactivated, type ActorHost } from '../../../src/runtime/ports';
import { currentTurn, inTurn } from '../../../src/runtime/turn-context';
import { FakeActorContext } from './fake-actor-context';
import { faultyStore } from './faulty-store';
import { sqliteEngineWorld } from '../../support/sqlite-engine-world';
import { smallEngineEnv } from '../../support/small-engine-env';

// The WorkflowActor alone: a fake context (reminders recorded), a real SQLite store behind a
// fault-injecting wrapper, and a clock the test moves. Commit, fencing, outbox and reminders are
// checked here directly, not through HTTP.

const T0 = 1_700_000_000_000;
const SWEEP_MS = 60_000;
const def = WorkflowDefSchema.parse({
  name: 'two_steps',
  version: 1,
  tasks: [
    { name: 'work', taskReferenceName: 'first', type: 'SIMPLE' },
    { name: 'work', taskReferenceName: 'second', type: 'SIMPLE' },
  ],
});
const taskDefs = new Map<string, TaskDef>([['work', TaskDefSchema.parse({ name: 'work' })]]);

const world = sqliteEngineWorld('baton-actor-');

/** One execution's actor and what it did to the world. */
class Harness {
  now = T0;
  readonly store = faultyStore(world.stores.executions);
  /** Queue-facing effects run after each commit, and the outbox effects run in the background. */
  readonly immediate: Effect[] = [];
  readonly deferred: Effect[] = [];
  deferredFailures = 0;
  /** Outbox effects of these kinds always fail (the actor they call is unreachable). */
  readonly unreachable = new Set<Effect['kind']>();
  readonly indexed: string[] = [];
  /** Calls this actor received while some turn's context was current (a host on Dapr refuses them). */
  readonly callsInTurn: string[] = [];
  private seq = 0;
  private turns: Promise<unknown> = Promise.resolve();
  readonly ctx: FakeActorContext;
  readonly actor: WorkflowActor;
  readonly client: WorkflowActorClient;

  constructor(readonly workflowId = `wf-${Math.random().toString(36).slice(2)}`) {
    this.ctx = new FakeActorContext('WorkflowActor', workflowId);
    this.actor = this.activation();
    this.client = WorkflowCalls.client(this.host(this.actor), workflowId);
  }

  /** Another activation of the same execution (as after a move to another replica). */
  activation(): WorkflowActor {
    return new WorkflowActor(this.ctx, {
      store: this.store,
      env: () => this.env(),
      scripts: world.scripts,
      runEffects: async (_id, effects) => void this.immediate.push(...effects),
      runDeferred: async (_id, effects) => {
        if (effects.some((e) => this.unreachable.has(e.kind))) throw new Error('parent unreachable');
        if (this.deferredFailures > 0) {
          this.deferredFailures--;
          throw new Error('broker unavailable');
        }
        this.deferred.push(...effects);
      },
      index: (state: ExecutionState) => void this.indexed.push(state.workflow.status),
      removeFromIndex: async () => undefined,
      actorOf: () => this.client,
      log: pino({ level: 'silent' }),
      sweepIntervalMs: SWEEP_MS,
      now: () => this.now,
    });
  }

  /** Calls into one actor one turn at a time, as a host does. */
  host(actor: WorkflowActor): ActorHost {
    return {
      invoke: <T>(_type: string, _id: string, method: string, arg?: unknown) => {
        if (currentTurn()) this.callsInTurn.push(method);
        const turn = this.turns.then(() => actor.invoke(method, arg));
        this.turns = turn.catch(() => undefined);
        return turn as Promise<T>;
      },
      register: () => undefined,
      start: async () => undefined,
      stop: async () => undefined,
    };
  }

  env(): EngineEnv {
    return smallEngineEnv({ now: this.now, newId: () => `${this.workflowId}-t${++this.seq}`, taskDef: (name) => taskDefs.get(name) });
  }

  start(): Promise<string> {
    return this.client.start({ workflowId: this.workflowId, fresh: true, def, request: { name: def.name, version: 1, input: { n: 1 } } });
  }

  async stored() {
    const s = await world.stores.executions.load(this.workflowId);
    if (!s) throw new Error(`${this.workflowId} is not stored`);
    return s;
  }

  async task(ref: string): Promise<Task> {
    const t = (await this.stored()).tasks.find((x) => x.referenceTaskName === ref);
    if (!t) throw new Error(`no task ${ref}`);
    return t;
  }

  complete(t: Task) {
    return this.client.update({ workflowInstanceId: this.workflowId, taskId: t.taskId, status: 'COMPLETED', outputData: { done: t.referenceTaskName } });
  }
}

/** Polls until `check` holds (background work: the outbox drain). */
async function eventually(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const enqueued = (effects: Effect[]): string[] => effects.flatMap((e) => (e.kind === 'enqueue' ? [e.taskId] : []));

describe('WorkflowActor: commit', () => {
  test('a start with a fresh id reads nothing, commits rev 1, then pushes the first task and arms the sweep reminder', async () => {
    const h = new Harness();
    expect(await h.start()).toBe(h.workflowId);
    expect(h.store.loads).toBe(0);
    const s = await h.stored();
    expect(s.rev).toBe(1);
    expect(s.workflow.status).toBe('RUNNING');
    expect(s.tasks.map((t) => [t.referenceTaskName, t.status])).toEqual([['first', 'SCHEDULED']]);
    expect(enqueued(h.immediate)).toEqual([s.tasks[0]!.taskId]);
    expect(h.indexed).toEqual(['RUNNING']);
    expect(h.ctx.reminders.get('deadline')).toBe(T0 + SWEEP_MS);
  });

  test('a second start of the same id changes nothing', async () => {
    const h = new Harness();
    await h.start();
    const commits = h.store.commits;
    expect(await h.start()).toBe(h.workflowId);
    expect(h.store.commits).toBe(commits);
  });

  test('each update is one commit; the last one ends the execution, runs the outbox, clears it and lets the actor go', async () => {
    const h = new Harness();
    await h.start();
    expect(await h.complete(await h.task('first'))).toBe('applied');
    expect((await h.stored()).rev).toBe(2);
    expect(await h.complete(await h.task('second'))).toBe('applied');
    const s = await h.stored();
    expect(s.workflow.status).toBe('COMPLETED');
    expect(s.workflow.output).toEqual({ done: 'second' });
    // The index effect of an ended execution goes through the outbox, then a turn of its own clears it.
    await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
    expect(h.deferred.map((e) => e.kind)).toEqual(['index']);
    expect(h.ctx.deactivations).toBe(1);
    // No outbox reminder was armed, so none is deleted (a sidecar call saved per execution).
    expect(h.ctx.reminders.has('outbox')).toBe(false);
  });
});

describe('WorkflowActor: claims', () => {
  test('a claim repeated with its id (its answer lost) answers the task it claimed; another claim of that task gets null, and nothing is written twice', async () => {
    const h = new Harness();
    await h.start();
    const first = await h.task('first');
    const claimed = await h.client.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c1' });
    expect(claimed).toMatchObject({ taskId: first.taskId, status: 'IN_PROGRESS', workerId: 'w', pollCount: 1 });
    const commits = h.store.commits;
    expect(await h.client.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c1' })).toMatchObject({ taskId: first.taskId, pollCount: 1 });
    expect(await h.client.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c2' })).toBeNull();
    expect(await h.client.claim({ taskId: first.taskId, workerId: 'w' })).toBeNull();
    expect(h.store.commits).toBe(commits);
    // Once the task is no longer in progress, a repeat of the claim answers null: there is nothing to hand out.
    await h.complete(first);
    expect(await h.client.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c1' })).toBeNull();
  });
});

describe('WorkflowActor: a claim repeated on another activation', () => {
  test('the claim id is stored with the task: after a reload the repeat answers the task it took, another claim id gets null', async () => {
    const h = new Harness();
    await h.start();
    const first = await h.task('first');
    expect(await h.client.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c1' })).toMatchObject({ taskId: first.taskId, status: 'IN_PROGRESS' });
    // The replica that answered died: the execution's next activation loads it from the store.
    const moved = h.activation();
    const movedClient = WorkflowCalls.client(h.host(moved), h.workflowId);
    const loads = h.store.loads;
    const commits = h.store.commits;
    expect(await movedClient.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c1' })).toMatchObject({
      taskId: first.taskId,
      status: 'IN_PROGRESS',
      workerId: 'w',
      pollCount: 1,
    });
    expect(h.store.loads).toBe(loads + 1);
    expect(await movedClient.claim({ taskId: first.taskId, workerId: 'w', claimId: 'c2' })).toBeNull();
    expect(await movedClient.claim({ taskId: first.taskId, workerId: 'w' })).toBeNull();
    expect(h.store.commits).toBe(commits); // repeats and refusals write nothing
  });
});

describe('WorkflowActor: a store that fails', () => {
  test('a write that fails changes nothing, runs no effect, and the next call succeeds from the stored state', async () => {
    const h = new Harness();
    await h.start();
    const first = await h.task('first');
    const pushed = h.immediate.length;
    h.store.failNextCommit('reject');
    await expect(h.complete(first)).rejects.toThrow('nothing written');
    const s = await h.stored();
    expect(s.rev).toBe(1);
    expect(s.tasks.map((t) => t.status)).toEqual(['SCHEDULED']);
    expect(h.immediate.length).toBe(pushed);
    // The actor dropped what it had decided and reloaded: the retried update applies.
    expect(await h.complete(first)).toBe('applied');
    expect((await h.stored()).tasks.map((t) => [t.referenceTaskName, t.status])).toEqual([
      ['first', 'COMPLETED'],
      ['second', 'SCHEDULED'],
    ]);
  });

  test('a write applied whose answer timed out: the actor reloads what was stored, stays in step with its rev, and recovery pushes what the lost turn owed', async () => {
    const h = new Harness();
    await h.start();
    const first = await h.task('first');
    h.store.failNextCommit('timeout');
    await expect(h.complete(first)).rejects.toThrow('timed out');
    // Stored although the caller saw an error; the turn's queue push did not run.
    const second = await h.task('second');
    expect(second.status).toBe('SCHEDULED');
    expect(enqueued(h.immediate)).not.toContain(second.taskId);
    const memory = await h.client.get();
    expect(memory?.tasks.map((t) => t.status)).toEqual(['COMPLETED', 'SCHEDULED']);
    // A retried update of the same task changes nothing; no fencing error: memory and store agree on the rev.
    expect(await h.complete(first)).toBe('ignored');
    await h.client.recover();
    expect(enqueued(h.immediate)).toContain(second.taskId);
    expect(await h.complete(second)).toBe('applied');
    expect((await h.stored()).workflow.status).toBe('COMPLETED');
  });
});

describe('WorkflowActor: fencing', () => {
  test('an activation behind the stored rev cannot write: it is deactivated, the store keeps the newer turn', async () => {
    const h = new Harness();
    await h.start();
    const stale = h.activation();
    const staleClient = WorkflowCalls.client(h.host(stale), h.workflowId);
    expect((await staleClient.get())?.status).toBe('RUNNING'); // loaded at rev 1
    await h.complete(await h.task('first')); // rev 2, by the current activation
    await expect(staleClient.pause()).rejects.toBeInstanceOf(ActorDeactivated);
    const s = await h.stored();
    expect(s.rev).toBe(2);
    expect(s.workflow.status).toBe('RUNNING');
    // Re-activated (reloaded), the same call goes through.
    await staleClient.pause();
    expect((await h.stored()).workflow.status).toBe('PAUSED');
  });
});

describe('WorkflowActor: holdsClaim (asked before in-process turns)', () => {
  const timer = { reminder: 'deadline' };
  test('true while no other activation committed since it loaded; false once one did, and nothing is read for an activation that loaded nothing', async () => {
    const h = new Harness();
    const loads = h.store.loads;
    expect(await h.actor.holdsClaim(timer)).toBe(true); // nothing loaded yet: its next turn reads what is stored
    await h.start();
    expect(await h.actor.holdsClaim(timer)).toBe(true); // its own commit
    const other = h.activation();
    const otherClient = WorkflowCalls.client(h.host(other), h.workflowId);
    expect(await other.holdsClaim(timer)).toBe(true);
    await otherClient.pause(); // rev 2 by the other activation
    expect(await h.actor.holdsClaim(timer)).toBe(false);
    expect(await h.actor.holdsClaim({ method: 'recover' })).toBe(false);
    expect(await other.holdsClaim(timer)).toBe(true);
    expect(h.store.loads).toBe(loads + 1); // the other activation's load; the checks read only the rev
  });

  test('clearOutbox is not checked (no read): on a superseded activation its fenced commit fails with ActorDeactivated and writes nothing', async () => {
    const h = new Harness();
    h.unreachable.add('index'); // the end's outbox stays until the test clears it
    await h.start();
    await h.complete(await h.task('first'));
    await h.complete(await h.task('second'));
    const owed = (await h.stored()).outbox;
    expect(owed.map((e) => e.kind)).toEqual(['index']);
    const done = { done: owed.map((e) => JSON.stringify(e)) };
    const other = WorkflowCalls.client(h.host(h.activation()), h.workflowId);
    await other.clearOutbox(done); // another activation ran and cleared them
    expect(await h.actor.holdsClaim({ method: 'clearOutbox' })).toBe(true);
    const rev = (await h.stored()).rev;
    await expect(h.client.clearOutbox(done)).rejects.toBeInstanceOf(ActorDeactivated);
    expect((await h.stored()).rev).toBe(rev);
    expect((await h.stored()).outbox).toEqual([]);
  });
});

describe('WorkflowActor: outbox', () => {
  test('effects that fail stay stored in the outbox; the outbox reminder re-runs them and clears them', async () => {
    const h = new Harness();
    await h.start();
    h.deferredFailures = 1;
    await h.client.terminate({ reason: 'stop' });
    await eventually(() => h.ctx.reminders.get('outbox') === T0 + 2000, 'the outbox reminder');
    const s = await h.stored();
    expect(s.workflow.status).toBe('TERMINATED');
    expect(s.outbox.map((e) => e.kind)).toContain('index');
    expect(h.deferred).toEqual([]);
    await h.actor.onReminder('outbox');
    await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
    expect(h.deferred.map((e) => e.kind)).toContain('index');
    expect(h.ctx.reminders.get('outbox')).toBeNull();
  });

  test('an outbox that keeps failing is retried ever later (2, 4, 8 s ... at most 30 s apart), and at 2 s again once it ran', async () => {
    const h = new Harness();
    await h.start();
    h.deferredFailures = 4;
    await h.client.terminate({ reason: 'stop' });
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      const expected = 2000 * 2 ** (attempt - 1);
      await eventually(() => h.ctx.reminders.get('outbox') === h.now + expected, `the outbox reminder ${expected} ms on`);
      delays.push(h.ctx.reminders.get('outbox')! - h.now);
      h.now += expected;
      await h.actor.onReminder('outbox');
    }
    expect(delays).toEqual([2000, 4000, 8000, 16_000]);
    await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
    expect(h.ctx.reminders.get('outbox')).toBeNull();
    // A later failure starts from the first delay again.
    h.deferredFailures = 1;
    await h.client.restart();
    await h.client.terminate({ reason: 'stop again' });
    await eventually(() => h.ctx.reminders.get('outbox') === h.now + 2000, 'the outbox reminder 2 s on');
  });

  test('the outbox is cleared outside the turn that filled it: its own actor, through the host, is not called from inside that turn', async () => {
    const h = new Harness();
    await h.start();
    // As the Dapr host runs a turn: the drain's calls must not inherit its context, or the host refuses them (CallInsideTurn).
    await inTurn({ type: 'WorkflowActor', id: h.workflowId }, () => h.client.terminate({ reason: 'stop' }));
    await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
    expect(h.deferred.map((e) => e.kind)).toContain('index');
    expect(h.callsInTurn).toEqual(['terminate']);
  });
});

describe('WorkflowActor: a child brought back', () => {
  test.each(['retry', 'restart', 'rerun'] as const)(
    '%s of a child commits the parent notification to the outbox and answers without calling the parent',
    async (method) => {
      const h = new Harness();
      await h.client.start({
        workflowId: h.workflowId,
        fresh: true,
        def,
        request: { name: def.name, version: 1, input: {} },
        parent: { workflowId: 'parent-1', taskId: 'parent-task-1' },
      });
      await h.client.terminate({ reason: 'stop' });
      await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
      h.unreachable.add('notifyParent');
      if (method === 'rerun') await h.client.rerun({ reRunFromWorkflowId: h.workflowId });
      else await h.client[method]();
      const s = await h.stored();
      expect(s.workflow.status).toBe('RUNNING');
      // Stored with the turn, run after it: a parent that cannot be reached is retried by the outbox reminder.
      expect(s.outbox).toContainEqual({ kind: 'notifyParent', parentWorkflowId: 'parent-1', parentTaskId: 'parent-task-1', childWorkflowId: h.workflowId });
      await eventually(() => h.ctx.reminders.get('outbox') === T0 + 2000, 'the outbox reminder');
      h.unreachable.clear();
      await h.actor.onReminder('outbox');
      await eventually(async () => (await h.stored()).outbox.length === 0, 'the outbox to clear');
      expect(h.deferred).toContainEqual({ kind: 'notifyParent', parentWorkflowId: 'parent-1', parentTaskId: 'parent-task-1', childWorkflowId: h.workflowId });
    },
  );
});

describe('WorkflowActor: reminders', () => {
  test('the sweep reminder re-pushes SCHEDULED tasks at the clock of the actor and re-arms itself', async () => {
    const h = new Harness();
    await h.start();
    const first = await h.task('first');
    h.immediate.length = 0;
    h.now = T0 + SWEEP_MS;
    await h.actor.onReminder('deadline');
    expect(h.immediate).toEqual([expect.objectContaining({ kind: 'enqueue', taskId: first.taskId, visibleAt: T0 + SWEEP_MS })]);
    expect(h.ctx.reminders.get('deadline')).toBe(T0 + 2 * SWEEP_MS);
  });

  test('an ended execution clears its reminder; removing one clears it too', async () => {
    const h = new Harness();
    await h.start();
    await h.client.terminate({ reason: 'stop' });
    expect(h.ctx.reminders.get('deadline')).toBeNull();
    await h.client.remove({ archive: true });
    expect(await world.stores.executions.load(h.workflowId)).toBeUndefined();
    expect(h.ctx.reminderLog.at(-1)).toEqual(['deadline', null]);
  });

  test('an unknown method is refused by the protocol, not looked up on the object', async () => {
    const h = new Harness();
    await h.start();
    await expect(h.actor.invoke('constructor', undefined)).rejects.toThrow('WorkflowActor has no method constructor');
  });
});
