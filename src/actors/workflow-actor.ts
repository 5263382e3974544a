import type { Logger } from 'pino';
import type { Task } from '../model/execution';
import { isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import { applyExternalUpdate, applyTaskResult } from '../engine/commands/task-result';
import { childChanged } from '../engine/commands/child-changed';
import { claimTask } from '../engine/commands/claim';
import { releaseClaim } from '../engine/commands/release';
import { pauseWorkflow } from '../engine/commands/pause';
import { rerunWorkflow } from '../engine/commands/rerun';
import { resetCallbacks } from '../engine/commands/reset-callbacks';
import { restartWorkflow } from '../engine/commands/restart';
import { resumeWorkflow } from '../engine/commands/resume';
import { retryWorkflow } from '../engine/commands/retry';
import { skipTask } from '../engine/commands/skip';
import { upgradeWorkflow } from '../engine/commands/upgrade';
import { newExecution } from '../engine/commands/start';
import { applyTaskResultAndClaimNext } from '../engine/commands/update-and-claim';
import { terminateWorkflow } from '../engine/commands/terminate';
import { updateVariables } from '../engine/commands/update-variables';
import { decide } from '../engine/decide';
import { nextDeadline } from '../engine/deadlines';
import { Errors } from '../model/named-errors';
import { dequeueEffect, enqueueEffect } from '../engine/queue-effects';
import type { Effect } from '../model/effects';
import { TurnLog, type EngineEnv, type ExecutionState, type Turn } from '../engine/state';
import { findTask } from '../engine/task-lookup';
import { isQueuedType } from '../engine/tasks/registry';
import type { Actor, ActorContext } from '../runtime/ports';
import type { ScriptEngine } from '../scripting/script-engine';
import { settleScripts } from './script-evaluation';
import { WorkflowCalls, type ChildChangedArg, type StartArg, type WorkflowActorClient } from './protocol/workflow-protocol';
import { StaleWriteError, type ExecutionStore } from '../store/ports';
import { ActorDeactivated, HostStopping, type InProcessTurn } from '../runtime/ports';
import { outsideTurn } from '../runtime/turn-context';
import { backoffDelayMs } from '../lib/backoff';
import type { Metrics } from '../metrics/ports';
import type { TaskResult } from '../model/requests';
import type { WorkflowStatus } from '../model/statuses';

// One actor per execution: the only writer of its state. Each call is one turn: decide in memory,
// commit the changes (with the outbox of cross-actor effects) fenced by rev, then act.

export interface WorkflowActorDeps {
  store: ExecutionStore;
  env(): EngineEnv;
  /** Evaluates the scripts a turn asks for, off the event loop. */
  scripts: ScriptEngine;
  /** Runs effects after a commit; resolves when the queue-facing ones are done. */
  runEffects(workflowId: string, effects: Effect[], state: ExecutionState): Promise<void>;
  /** Runs the persisted (cross-actor) effects in the background; resolves when all succeeded. */
  runDeferred(workflowId: string, effects: Effect[]): Promise<void>;
  index(state: ExecutionState, changed: Task[], workflowChanged: boolean): void;
  /** Takes a removed execution out of the search index, past any index write still under way (Indexer.remove). */
  removeFromIndex(workflowId: string): Promise<void>;
  /** A client of a WorkflowActor through the host (its calls are later turns, never inside this one). */
  actorOf(workflowId: string): WorkflowActorClient;
  log: Logger;
  /** Interval of the sweep reminder that re-pushes SCHEDULED tasks to their queues; 0 turns it off. */
  sweepIntervalMs: number;
  /** The clock of reminders and re-pushes (epoch ms); Date.now unless a test moves time itself. */
  now?: () => number;
  /** Where starts, ends, task waits and executions and the outbox backlog are recorded. */
  metrics?: Metrics;
}

export type { ChildChangedArg, StartArg };

/** Effects that cross to other actors or services: persisted in the outbox until done. */
const DEFERRED = new Set<Effect['kind']>(['startWorkflow', 'notifyParent', 'terminateWorkflow', 'retryWorkflow', 'publish', 'statusChange', 'index']);

/**
 * Calls a superseded activation cannot answer wrongly when run in process: what they change is committed
 * fenced by rev, and an answer without a commit is given only after checking the rev (see holdsClaim).
 */
const PROVED_BY_COMMIT = new Set<string>(['claim', 'update', 'updateAndLocate'] satisfies Array<keyof typeof WorkflowCalls.calls>);

const REMINDER = 'deadline';
/** A failed outbox runs again after 2 s, then 4, 8 ... at most 30 s apart while it keeps failing: an index back from an outage catches up within 30 s. */
const OUTBOX_RETRY = { firstMs: 2000, maxMs: 30_000 };

export class WorkflowActor implements Actor {
  private state?: ExecutionState;
  private rev = 0;
  private outbox: Effect[] = [];
  private reminderAt: number | null = null;
  /** This activation armed the outbox reminder (after a failed drain): a later successful drain deletes it. */
  private outboxArmed = false;
  /** Outbox runs failed in a row in this activation: the next one waits longer (an index or a parent down for minutes). */
  private outboxFailures = 0;
  private loaded = false;
  /** The last commit left the decider's work unfinished: the reminder is due at once. */
  private continuing = false;
  /** Outbox length last added to the backlog metric. */
  private reportedOutbox = 0;
  /** The in-process call holdsClaim let through unchecked: answered without a commit, it checks the rev first. */
  private unchecked: string | undefined;

  constructor(
    private readonly ctx: ActorContext,
    private readonly deps: WorkflowActorDeps,
  ) {}

  private get id(): string {
    return this.ctx.id;
  }

  private now(): number {
    return this.deps.now ? this.deps.now() : Date.now();
  }

  /** Whether no other activation committed since this one loaded: one read of the stored rev (asked only before in-process turns). */
  async holdsClaim(turn: InProcessTurn): Promise<boolean> {
    if (!this.loaded) return true; // nothing held: the turn loads what is stored
    if ('method' in turn) {
      // Its only effect is a commit fenced by rev: on a superseded activation the fence refuses it (ActorDeactivated), at no extra read.
      if (turn.method === 'clearOutbox') return true;
      // Mostly a commit too (a claim, an update): the read is left to the rare answer given without one.
      if (PROVED_BY_COMMIT.has(turn.method)) {
        this.unchecked = turn.method;
        return true;
      }
    }
    return this.holdsRev();
  }

  private async holdsRev(): Promise<boolean> {
    return ((await this.deps.store.revOf(this.id)) ?? 0) === this.rev;
  }

  /**
   * An in-process call let through unchecked that answers (or fails) without a commit answered from this
   * activation's memory: before the answer leaves, the rev must still be this activation's.
   */
  private async proveUncommitted<T>(run: () => Promise<T>): Promise<T> {
    const rev = this.rev;
    const settled = await run().then(
      (value) => ({ value }),
      (error: unknown) => ({ error }),
    );
    if (this.loaded && this.rev === rev && !('error' in settled && settled.error instanceof ActorDeactivated) && !(await this.holdsRev())) {
      this.state = undefined;
      this.loaded = false;
      throw new ActorDeactivated(`workflow ${this.id} was written by another activation`);
    }
    if ('error' in settled) throw settled.error;
    return settled.value;
  }

  /** State loads lazily on the first call, so a start with a freshly generated id costs no read. */
  async onActivate(): Promise<void> {}

  private async load(): Promise<void> {
    const stored = await this.deps.store.load(this.id);
    this.loaded = true;
    if (!stored) {
      this.state = undefined;
      this.rev = 0;
      this.outbox = [];
      this.reportOutbox();
      return;
    }
    this.state = { workflow: stored.workflow, tasks: stored.tasks };
    this.rev = stored.rev;
    this.outbox = stored.outbox;
    this.reportOutbox();
  }

  /** Moves the backlog metric by what this activation's outbox changed since the last report. */
  private reportOutbox(held = this.outbox.length): void {
    if (held === this.reportedOutbox) return;
    this.deps.metrics?.outboxChanged(held - this.reportedOutbox);
    this.reportedOutbox = held;
  }

  async onDeactivate(): Promise<void> {
    this.state = undefined;
    this.loaded = false;
    this.unchecked = undefined;
    this.reportOutbox(0); // still stored, no longer held here
  }

  private require(): ExecutionState {
    if (!this.state) throw Errors.WORKFLOW_NOT_FOUND(this.id);
    return this.state;
  }

  /** Runs `fn` as one turn over the state; commits what it changed; then runs the effects. */
  private async turn<T>(fn: (t: Turn) => T, state = this.require()): Promise<T> {
    const env = this.deps.env();
    const log = new TurnLog();
    const turn: Turn = { state, env, log };
    const before = state.workflow.status;
    const result = fn(turn);
    await this.settle(turn);
    await this.commit(turn, before);
    return result;
  }

  /** Runs the scripts the turn asked for; when they cannot run at all, the turn's changes are dropped. */
  private async settle(turn: Turn): Promise<void> {
    if (turn.log.pendingScripts === 0) return;
    try {
      await settleScripts(turn, this.deps.scripts, this.deps.env);
    } catch (e) {
      // Memory now differs from the store: the next call reloads it.
      this.state = undefined;
      this.loaded = false;
      throw e;
    }
  }

  /** `before`: the status the turn started from; undefined for a new execution. */
  private async commit(turn: Turn, before: WorkflowStatus | undefined): Promise<void> {
    const { state, log } = turn;
    if (log.changed.size === 0 && !log.workflowChanged && log.effects.length === 0 && log.deletedTaskIds.length === 0) return;
    const workflowChanged = log.workflowChanged || this.rev === 0;
    if (workflowChanged) state.workflow.updateTime = turn.env.now;
    const deferred = log.effects.filter((e) => DEFERRED.has(e.kind));
    const immediate = log.effects.filter((e) => !DEFERRED.has(e.kind));
    if (isTerminalWorkflow(state.workflow.status) && log.workflowChanged) deferred.push({ kind: 'index', workflowId: this.id, taskIds: [] });
    const outbox = [...this.outbox, ...deferred];
    const changed = [...log.changed];
    try {
      await this.deps.store.commit({
        workflow: state.workflow,
        upsertTasks: changed,
        deleteTaskIds: log.deletedTaskIds,
        outbox,
        expectedRev: this.rev,
        workflowUnchanged: !workflowChanged,
      });
    } catch (e) {
      // Memory may now differ from the store: reload before the next turn.
      this.state = undefined;
      this.loaded = false;
      await this.load().catch(() => undefined);
      if (e instanceof StaleWriteError) throw new ActorDeactivated(`workflow ${this.id} was written by another activation`);
      throw e;
    }
    this.rev += 1;
    this.outbox = outbox;
    this.reportOutbox();
    if (this.deps.metrics) this.recordStatus(before, state);
    this.continuing = log.unfinished;
    this.deps.index(state, changed, workflowChanged);
    await this.deps.runEffects(this.id, immediate, state);
    await this.updateReminder();
    if (deferred.length > 0) this.drainOutbox();
    else this.retireIfDone();
  }

  /** A new execution counts as started; one that just reached a terminal status, as ended. */
  private recordStatus(before: WorkflowStatus | undefined, state: ExecutionState): void {
    const wf = state.workflow;
    const m = this.deps.metrics!;
    if (before === undefined) m.workflowStarted(wf.workflowName);
    if (isTerminalWorkflow(wf.status) && (before === undefined || !isTerminalWorkflow(before)))
      m.workflowEnded(wf.workflowName, wf.status, (wf.endTime || this.now()) - wf.startTime);
  }

  /** A worker update that ended a task its worker held: the task's execution time (polled to ended). */
  private async updateTask<T>(result: TaskResult, run: () => Promise<T>): Promise<T> {
    const m = this.deps.metrics;
    const held = m && this.state && findTask(this.state, result.taskId);
    const was = held?.status;
    const outcome = await run();
    if (m && was === 'IN_PROGRESS') {
      const t = this.state && findTask(this.state, result.taskId);
      if (t && isTerminalTask(t.status)) m.taskEnded(t.taskType, t.status, (t.endTime || this.now()) - t.startTime);
    }
    return outcome;
  }

  /** An ended execution with nothing owed rarely hears from anyone again: free its memory now. */
  private retireIfDone(): void {
    if (this.state && isTerminalWorkflow(this.state.workflow.status) && this.outbox.length === 0) this.ctx.deactivateWhenIdle?.();
  }

  /** Runs the outbox in the background, after the turn; once done, clears it in a turn of its own. */
  private drainOutbox(): void {
    const effects = [...this.outbox];
    if (effects.length === 0) return;
    // The whole chain inside: a `.then` takes the context it was chained in, so one chained out here would run as part of the turn.
    outsideTurn(() =>
      this.deps
        .runDeferred(this.id, effects)
        // Only a reminder this activation armed is deleted: one left by an earlier activation fires once and finds
        // nothing owed, which costs less than a sidecar call at the end of every execution.
        .then(() => void (this.outboxFailures = 0))
        .then(() => (this.outboxArmed ? this.ctx.setReminder('outbox', null).then(() => void (this.outboxArmed = false)) : undefined))
        .then(() => this.self().clearOutbox({ done: effects.map((e) => JSON.stringify(e)) }))
        .catch((e) => {
          // At shutdown the outbox stays stored and runs again after the next start: no warning due.
          if (e instanceof HostStopping) return;
          this.deps.log.warn({ err: e, workflowId: this.id }, 'outbox effects failed; retrying by reminder');
          // Unarmed (sidecar gone at shutdown): the stored outbox is re-run by the next recovery pass.
          this.outboxArmed = true;
          this.outboxFailures++;
          this.ctx
            .setReminder('outbox', this.now() + backoffDelayMs(this.outboxFailures, OUTBOX_RETRY))
            .catch((err: unknown) => this.deps.log.warn({ err, workflowId: this.id }, 'could not arm the outbox reminder'));
        }),
    );
  }

  /** This actor as a caller sees it: in this process where the host allows, else through the host. */
  private self(): WorkflowActorClient {
    const { callSelf } = this.ctx;
    return callSelf
      ? WorkflowCalls.client({ invoke: (_type, _id, method, arg) => callSelf(method, arg) as Promise<never> }, this.id)
      : this.deps.actorOf(this.id);
  }

  private async updateReminder(): Promise<void> {
    const state = this.state;
    let due = state ? nextDeadline(state, this.deps.env()) : null;
    if (state && this.continuing && !isTerminalWorkflow(state.workflow.status)) due = this.now();
    if (state && this.deps.sweepIntervalMs > 0 && !isTerminalWorkflow(state.workflow.status)) {
      const sweep = this.now() + this.deps.sweepIntervalMs;
      due = due === null ? sweep : Math.min(due, sweep);
    }
    if (due === null) {
      // An open execution keeps a reminder that is no longer needed: firing early is harmless, and clearing
      // and re-setting it at every task would cost two writes per task.
      if (state && !isTerminalWorkflow(state.workflow.status)) return;
      if (this.reminderAt !== null) {
        this.reminderAt = null;
        await this.armDeadline(null);
      }
      return;
    }
    // Keep an earlier reminder: when it fires the actor re-evaluates and sets the next one.
    if (this.reminderAt !== null && this.reminderAt <= due && this.reminderAt > this.now()) return;
    this.reminderAt = due;
    await this.armDeadline(due);
  }

  /**
   * The deadline reminder is recoverable: `recover` re-arms it. Where the host keeps such reminders in
   * memory while the actor is active (Dapr), an execution that ends within its activation never
   * registers one (two sidecar calls per execution fewer).
   */
  private armDeadline(due: number | null): Promise<void> {
    return this.ctx.setRecoverableReminder ? this.ctx.setRecoverableReminder(REMINDER, due) : this.ctx.setReminder(REMINDER, due);
  }

  async onReminder(name: string): Promise<void> {
    if (!this.loaded) await this.load();
    if (name === REMINDER) this.reminderAt = null;
    if (!this.state) return;
    if (name === 'outbox') {
      this.drainOutbox();
      return;
    }
    await this.turn((t) => decide(t));
    if (this.deps.sweepIntervalMs > 0) await this.repush();
    await this.updateReminder();
    this.deps.log.debug({ workflowId: this.id, reminder: name, rev: this.rev, reminderAt: this.reminderAt }, 'reminder turn done');
  }

  /** The sweeper role: every SCHEDULED queued task is (idempotently) pushed to its queue again. */
  private async repush(): Promise<void> {
    const state = this.state;
    if (!state || isTerminalWorkflow(state.workflow.status)) return;
    const now = this.now();
    const effects: Effect[] = state.tasks
      .filter((t) => t.status === 'SCHEDULED' && !t.retried && isQueuedType(t.taskType))
      .map((t) => enqueueEffect(t, Math.max(now, t.updateTime + t.callbackAfterSeconds * 1000)));
    if (effects.length > 0) await this.deps.runEffects(this.id, effects, state);
  }

  async invoke(method: string, arg: unknown): Promise<unknown> {
    if (method === 'start' && (arg as StartArg).fresh && !this.loaded) this.loaded = true; // a new random id: nothing to read (fencing still guards)
    const unchecked = this.unchecked === method && this.loaded;
    if (this.unchecked === method) this.unchecked = undefined;
    if (!this.loaded) await this.load();
    return unchecked ? this.proveUncommitted(async () => this.dispatch(method, arg)) : this.dispatch(method, arg);
  }

  /** One handler per call of the WorkflowActor protocol, each over the loaded state. */
  private readonly dispatch = WorkflowCalls.dispatcher({
    start: (a) => this.start(a),
    update: (result) => this.updateTask(result, () => this.turn((t) => applyTaskResult(t, result))),
    updateAndLocate: async (result) => {
      const done = await this.updateTask(result, () => this.turn((t) => applyTaskResultAndClaimNext(t, result)));
      // The task handed over in the same turn was polled as much as one a queue handed out.
      if (done.next) this.deps.metrics?.taskPolled(done.next.taskType, done.next.updateTime - done.next.scheduledTime);
      return done;
    },
    updateExternal: async (a) => {
      if (!this.state) throw Errors.WORKFLOW_NOT_FOUND(this.id);
      const t = await this.turn((x) => applyExternalUpdate(x, a));
      return t ? t.taskId : null;
    },
    claim: async ({ taskId, workerId, claimId }) => {
      if (!this.state) return null;
      // A repeat of a claim whose answer was lost: the claim id is stored with the task, so any activation answers it.
      const earlier = claimId === undefined ? undefined : findTask(this.state, taskId);
      if (earlier && earlier.claimId === claimId) return earlier.status === 'IN_PROGRESS' ? earlier : null;
      const task = await this.turn((t) => claimTask(t, taskId, workerId, claimId));
      if (task) this.deps.metrics?.taskPolled(task.taskType, task.updateTime - task.scheduledTime);
      return task;
    },
    release: async ({ taskId }) => (this.state ? this.turn((t) => releaseClaim(t, taskId)) : false),
    pause: () => this.turn((t) => pauseWorkflow(t)),
    resetCallbacks: () => this.turn((t) => resetCallbacks(t)),
    resume: () => this.turn((t) => resumeWorkflow(t)),
    terminate: (a) => this.turn((t) => terminateWorkflow(t, a?.reason)),
    retry: async () => {
      await this.turn((t) => {
        retryWorkflow(t);
        this.reviveParent(t);
      });
    },
    restart: async (a) => {
      await this.turn((t) => {
        restartWorkflow(t, a?.def);
        this.reviveParent(t);
      });
    },
    rerun: async (a) => {
      await this.turn((t) => {
        rerunWorkflow(t, a);
        this.reviveParent(t);
      });
      return this.id;
    },
    skip: (a) => this.turn((t) => skipTask(t, a.ref, a.input, a.output)),
    upgrade: (a) => this.turn((t) => upgradeWorkflow(t, a)),
    childChanged: async (a) => {
      if (!this.state) return;
      return this.turn((t) => childChanged(t, a.taskId, a.child));
    },
    updateVariables: (a) => this.turn((t) => updateVariables(t, a.variables ?? {}, a.appendArray ?? false)),
    recover: () => this.recover(),
    clearOutbox: (a) => this.clearOutbox(a.done),
    remove: (a) => this.remove(a?.archive ?? true),
    get: async () => (this.state ? { ...this.state.workflow, tasks: this.state.tasks } : null),
  });

  private async start(a: StartArg): Promise<string> {
    if (this.state) return this.id; // a second start of the same id is a no-op (idempotent effects)
    const env = this.deps.env();
    const { state, log } = newExecution({ ...a, workflowId: this.id }, env);
    this.state = state;
    this.rev = 0;
    try {
      const turn: Turn = { state, env, log };
      await this.settle(turn);
      await this.commit(turn, undefined);
    } catch (e) {
      if (!(e instanceof ActorDeactivated)) this.state = undefined;
      throw e;
    }
    return this.id;
  }

  /**
   * A retried or restarted child brings its parent's SUB_WORKFLOW task back to IN_PROGRESS: through
   * the outbox, committed with the turn and run after it (a parent is another actor).
   */
  private reviveParent(t: Turn): void {
    const wf = t.state.workflow;
    if (!wf.parentWorkflowId || !wf.parentWorkflowTaskId) return;
    t.log.emit({ kind: 'notifyParent', parentWorkflowId: wf.parentWorkflowId, parentTaskId: wf.parentWorkflowTaskId, childWorkflowId: this.id });
  }

  private async recover(): Promise<void> {
    const state = this.state;
    if (!state) return;
    this.deps.index(state, state.tasks, true);
    await this.repush();
    await this.updateReminder();
    this.deps.log.debug({ workflowId: this.id, rev: this.rev, reminderAt: this.reminderAt, status: state.workflow.status }, 'recovered');
    this.drainOutbox();
  }

  /** Drops the effects a drain carried out, by value: effects added since (or by an overlapping drain) stay. */
  private async clearOutbox(done: string[]): Promise<void> {
    if (!this.state || this.outbox.length === 0) return;
    const pending = new Map<string, number>();
    for (const d of done) pending.set(d, (pending.get(d) ?? 0) + 1);
    const remaining = this.outbox.filter((e) => {
      const k = JSON.stringify(e);
      const n = pending.get(k) ?? 0;
      if (n === 0) return true;
      pending.set(k, n - 1);
      return false;
    });
    if (remaining.length === this.outbox.length) return;
    try {
      await this.deps.store.commit({
        workflow: this.state.workflow,
        upsertTasks: [],
        deleteTaskIds: [],
        outbox: remaining,
        expectedRev: this.rev,
        workflowUnchanged: true,
      });
    } catch (e) {
      // As in commit: memory may differ from the store; a fenced write means another activation holds the execution.
      this.state = undefined;
      this.loaded = false;
      if (e instanceof StaleWriteError) throw new ActorDeactivated(`workflow ${this.id} was written by another activation`);
      throw e;
    }
    this.rev += 1;
    this.outbox = remaining;
    this.reportOutbox();
    this.retireIfDone();
  }

  private async remove(archive: boolean): Promise<void> {
    const state = this.require();
    if (archive && !isTerminalWorkflow(state.workflow.status)) {
      throw Errors.WORKFLOW_NOT_ARCHIVABLE(this.id, state.workflow.status);
    }
    const dequeues: Effect[] = state.tasks.filter((t) => isQueuedType(t.taskType) && !isTerminalTask(t.status)).map((t) => dequeueEffect(t));
    await this.deps.store.remove(this.id);
    // Here, beside the indexer its turns fed: documents of this execution still queued there must go too.
    if (!archive) await this.deps.removeFromIndex(this.id);
    await this.deps.runEffects(this.id, dequeues, state);
    await this.armDeadline(null);
    this.reminderAt = null;
    this.state = undefined;
    this.rev = 0;
    this.outbox = [];
    this.reportOutbox();
  }
}
