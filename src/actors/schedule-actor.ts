import type { StartWorkflowRequest } from '../model/requests';
import type { ScheduleExecution, WorkflowSchedule } from '../model/schedules';
import type { Actor, ActorContext, InProcessTurn } from '../runtime/ports';
import { compileCron } from '../schedules/cron';
import { firstSlotAfter, planSlots } from '../schedules/slots';
import type { ScheduleStore } from '../store/schedule-store';
import { ScheduleCalls, type ScheduleActorClient } from './protocol/schedule-protocol';

export const SCHEDULE_REMINDER = 'fire';

export interface ScheduleActorDeps {
  store: ScheduleStore;
  /** Starts a workflow under the given id; a second start of the same id is a no-op. */
  startWorkflow(req: StartWorkflowRequest, workflowId: string): Promise<string>;
  derivedId(seed: string): string;
  now(): number;
  /** A slot at most this late still fires without catch-up. */
  graceMs: number;
  /** At most this many missed slots fire at once with catch-up. */
  maxCatchUp: number;
  log: { warn(o: object, m: string): void };
  /** Runs `work` after the current turn, not awaited by it: starts are calls of other actors. */
  afterTurn(work: () => Promise<void>): void;
  /** This schedule's actor through the host, where the host offers no `callSelf`. */
  self(name: string): ScheduleActorClient;
  /** How soon a firing fires again when its starts did not all finish (a crash, a failed start). */
  retryMs?: number;
}

const DEFAULT_RETRY_MS = 5000;

/** Why a start failed, for the execution record (a Conductor-style message, not a stack). */
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * One schedule: its reminder is due at the next slot. A firing turn plans the due slots and re-arms
 * the reminder shortly; after the turn each slot's workflow starts under an id derived from
 * (schedule, creation, slot), then an `advance` turn moves the durable slot mark forward by
 * compare-and-set and arms the next slot. Until then the mark stays: a crash, a failed start or a
 * second activation re-derives the same ids and starts nothing new, so each slot fires at most once.
 */
export class ScheduleActor implements Actor {
  private readonly invokeCall;

  constructor(
    private readonly ctx: ActorContext,
    private readonly d: ScheduleActorDeps,
  ) {
    this.invokeCall = ScheduleCalls.dispatcher({ sync: (arg) => this.sync(arg?.skipUntil), advance: (arg) => this.advance(arg.from ?? undefined, arg.to) });
  }

  invoke(method: string, arg: unknown): Promise<unknown> {
    return Promise.resolve(this.invokeCall(method, arg));
  }

  /** Always: every turn reads the schedule and its slot mark afresh and moves the mark by compare-and-set, so no memory of an activation can be superseded. */
  async holdsClaim(_turn: InProcessTurn): Promise<boolean> {
    return true;
  }

  async onReminder(name: string): Promise<void> {
    if (name !== SCHEDULE_REMINDER) return;
    await this.fire();
  }

  private get name(): string {
    return this.ctx.id;
  }

  private async sync(skipUntil?: number): Promise<{ nextRunTime?: number }> {
    const s = await this.d.store.getSchedule(this.name);
    if (!s || s.paused) {
      await this.ctx.setReminder(SCHEDULE_REMINDER, null);
      return {};
    }
    let stored = await this.d.store.lastSlot(this.name);
    if (skipUntil !== undefined && (stored ?? s.createTime) < skipUntil) {
      // Lost race: another activation moved the mark; its value is as good.
      if (await this.d.store.advanceSlot(this.name, stored, skipUntil)) stored = skipUntil;
      else stored = await this.d.store.lastSlot(this.name);
    }
    // With catch-up a missed slot is due at once; without, only one within the grace period is.
    const last = stored ?? s.createTime;
    const next = firstSlotAfter(this.window(s), s.runCatchupScheduleInstances ? last : Math.max(last, this.d.now() - this.d.graceMs - 1));
    await this.ctx.setReminder(SCHEDULE_REMINDER, next ?? null);
    return next === undefined ? {} : { nextRunTime: next };
  }

  private window(s: WorkflowSchedule) {
    return { next: compileCron(s.cronExpression, s.zoneId), startTime: s.scheduleStartTime || undefined, endTime: s.scheduleEndTime || undefined };
  }

  private async fire(): Promise<void> {
    const s = await this.d.store.getSchedule(this.name);
    if (!s || s.paused) {
      await this.ctx.setReminder(SCHEDULE_REMINDER, null);
      return;
    }
    const stored = await this.d.store.lastSlot(this.name);
    const now = this.d.now();
    const plan = planSlots({
      ...this.window(s),
      now,
      lastSlot: stored ?? s.createTime,
      catchUp: s.runCatchupScheduleInstances,
      maxCatchUp: this.d.maxCatchUp,
      graceMs: this.d.graceMs,
    });
    // "Pause all" skips the slots (they are marked handled) but keeps the reminder going.
    if (plan.fire.length === 0 || (await this.d.store.allPaused())) {
      if (plan.lastSlot !== stored && !(await this.d.store.advanceSlot(this.name, stored, plan.lastSlot))) {
        this.d.log.warn({ schedule: this.name }, 'schedule slot mark moved by another activation');
        await this.sync();
        return;
      }
      await this.ctx.setReminder(SCHEDULE_REMINDER, plan.nextDue ?? null);
      return;
    }
    // The slots stay due (mark unmoved) and the reminder fires again soon unless `advance` re-arms it first.
    await this.ctx.setReminder(SCHEDULE_REMINDER, now + (this.d.retryMs ?? DEFAULT_RETRY_MS));
    this.d.afterTurn(async () => {
      try {
        for (const slot of plan.fire) await this.fireSlot(s, slot);
        await this.self().advance({ from: stored ?? null, to: plan.lastSlot });
      } catch (err) {
        this.d.log.warn({ err, schedule: this.name }, 'schedule starts failed; the reminder fires the slots again');
      }
    });
  }

  /** The slots up to `to` were started: the mark moves past them and the reminder goes to the next slot. */
  private async advance(from: number | undefined, to: number): Promise<{ nextRunTime?: number }> {
    // Lost race: another activation handled these slots (the same ids, so nothing was started twice); follow its mark.
    if (from !== to && !(await this.d.store.advanceSlot(this.name, from, to)))
      this.d.log.warn({ schedule: this.name }, 'schedule slot mark moved by another activation');
    return this.sync();
  }

  /** This actor as a caller sees it: in this process where the host allows, else through the host. */
  private self(): ScheduleActorClient {
    const { callSelf } = this.ctx;
    return callSelf
      ? ScheduleCalls.client({ invoke: (_type, _id, method, arg) => callSelf(method, arg) as Promise<never> }, this.name)
      : this.d.self(this.name);
  }

  private async fireSlot(s: WorkflowSchedule, slot: number): Promise<void> {
    const executionTime = this.d.now();
    const req = s.startWorkflowRequest;
    const request: StartWorkflowRequest = {
      ...req,
      // Conductor puts the slot and the dispatch time in the input; the schedule name is the default correlation id.
      input: { ...(req.input ?? {}), _scheduledTime: slot, _executedTime: executionTime },
      correlationId: req.correlationId ?? s.name,
    };
    const seed = `schedule:${s.name}:${s.createTime}:${slot}`;
    const base: Omit<ScheduleExecution, 'state'> = {
      executionId: this.d.derivedId(`${seed}:execution`),
      scheduleName: s.name,
      scheduledTime: slot,
      executionTime,
      workflowName: req.name,
      zoneId: s.zoneId,
      startWorkflowRequest: request,
    };
    try {
      const workflowId = await this.d.startWorkflow(request, this.d.derivedId(seed));
      await this.d.store.putExecution({ ...base, workflowId, state: 'EXECUTED' });
    } catch (e) {
      const status = (e as { status?: number }).status;
      // A refused start (4xx: definition missing, bad input) is this slot's outcome; anything else is retried by the reminder.
      if (status === undefined || status >= 500) throw e;
      await this.d.store.putExecution({ ...base, state: 'FAILED', reason: messageOf(e), stackTrace: undefined });
    }
  }
}
