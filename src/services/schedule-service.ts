import { scheduleActor } from '../actors/protocol/schedule-protocol';
import { SCHEDULE_EXECUTION_STATES, type SaveScheduleRequest, type ScheduleExecution, type ScheduleTag, type WorkflowSchedule } from '../model/schedules';
import type { ActorHost } from '../runtime/ports';
import { CronError, compileCron, normaliseZone } from '../schedules/cron';
import { firstSlotAfter, nextSlots } from '../schedules/slots';
import type { ScheduleExecutionQuery, ScheduleStore } from '../store/schedule-store';
import { checkRecordCount, DEFAULT_RECORD_CAPS } from './definition-limits';
import type { BatonError } from '../model/errors';
import { Errors } from '../model/named-errors';

/** A schedule as the API answers it: the stored one, with its next run when it has one. */
export type ScheduleView = WorkflowSchedule & { nextRunTime?: number };

const SEARCH_FIELDS = {
  scheduleName: 'scheduleName',
  workflowName: 'workflowName',
  state: 'state',
  executionId: 'executionId',
  workflowId: 'workflowId',
} as const;

/** `scheduleName="a" AND state IN (FAILED)` -> the fields of an executions query; 400 for what it cannot read. */
/**
 * `name = value` or `name IN (a, b)`: the field name and the raw values. Read by hand, one scan: a single
 * regex for both forms backtracks over every split of a long run of spaces between the name and what follows.
 */
function clauseParts(clause: string): [string, string[]] {
  const invalid = (): BatonError => Errors.SCHEDULE_QUERY_INVALID(clause);
  const name = /^\w+/.exec(clause)?.[0];
  if (!name) throw invalid();
  const rest = clause.slice(name.length);
  const operator = rest.trimStart();
  if (operator.startsWith('=')) {
    const value = operator.slice(1).trimStart();
    if (value === '') throw invalid();
    return [name, [value]];
  }
  const list = /^IN\s*\(/i.exec(operator);
  if (!list || operator === rest || !operator.endsWith(')')) throw invalid();
  const inner = operator.slice(list[0].length, -1);
  if (inner === '') throw invalid();
  return [name, inner.split(',')];
}

export function parseExecutionQuery(query: string | undefined): Pick<ScheduleExecutionQuery, 'scheduleName' | 'workflowName' | 'state' | 'text'> {
  const out: Pick<ScheduleExecutionQuery, 'scheduleName' | 'workflowName' | 'state' | 'text'> = {};
  if (!query || query.trim() === '' || query.trim() === '*') return out;
  // `\s+AND\s+` and a lazy value before `\s*$` backtrack quadratically over long runs of spaces; these forms are linear.
  for (const clause of query.split(/(?<=\s)AND(?=\s)/i).map((c) => c.trim())) {
    const [name, raw] = clauseParts(clause);
    const values = raw.map((v) => v.trim().replace(/^(['"])(.*)\1$/, '$2'));
    if (values.length !== 1) throw Errors.SCHEDULE_QUERY_MULTIPLE_VALUES(clause);
    const field = SEARCH_FIELDS[name as keyof typeof SEARCH_FIELDS];
    const v = values[0]!;
    if (field === 'scheduleName') out.scheduleName = v;
    else if (field === 'workflowName') out.workflowName = v;
    else if (field === 'state') {
      if (!(SCHEDULE_EXECUTION_STATES as readonly string[]).includes(v)) throw Errors.SCHEDULE_STATE_INVALID(v);
      out.state = v as ScheduleExecution['state'];
    } else if (field === 'workflowId' || field === 'executionId') out.text = v;
    else throw Errors.SCHEDULE_QUERY_UNKNOWN_FIELD(name);
  }
  return out;
}

/** The scheduler API: schedules in the store, each one's firing in its ScheduleActor. */
export class ScheduleService {
  constructor(
    private readonly store: ScheduleStore,
    private readonly host: ActorHost,
    private readonly now: () => number = Date.now,
    /** BATON_MAX_SCHEDULES. */
    private readonly maxSchedules: number = DEFAULT_RECORD_CAPS.schedules,
  ) {}

  /** Checks a cron and zone as a save would; the compiled cron, or a 400 saying what is wrong. */
  cron(expression: string, zoneId?: string | null) {
    try {
      return compileCron(expression, zoneId);
    } catch (e) {
      if (e instanceof CronError) throw Errors.CRON_EXPRESSION_INVALID(e.message);
      throw e;
    }
  }

  async save(req: SaveScheduleRequest): Promise<void> {
    const zoneId = normaliseZone(req.zoneId);
    if (!zoneId) throw Errors.ZONE_ID_INVALID(req.zoneId);
    this.cron(req.cronExpression, zoneId);
    if (req.scheduleStartTime && req.scheduleEndTime && req.scheduleEndTime < req.scheduleStartTime) throw Errors.SCHEDULE_END_BEFORE_START();
    const existing = await this.store.getSchedule(req.name);
    if (!existing) checkRecordCount('schedules', await this.store.countSchedules(this.maxSchedules), 1, this.maxSchedules);
    const now = this.now();
    const paused = req.paused ?? false;
    const s: WorkflowSchedule = {
      name: req.name,
      cronExpression: req.cronExpression,
      zoneId,
      startWorkflowRequest: req.startWorkflowRequest,
      ...(req.scheduleStartTime ? { scheduleStartTime: req.scheduleStartTime } : {}),
      ...(req.scheduleEndTime ? { scheduleEndTime: req.scheduleEndTime } : {}),
      paused,
      ...(paused && existing?.pausedReason ? { pausedReason: existing.pausedReason } : {}),
      runCatchupScheduleInstances: req.runCatchupScheduleInstances ?? false,
      ...(req.description != null ? { description: req.description } : {}),
      ...((existing?.createdBy ?? req.createdBy) ? { createdBy: (existing?.createdBy ?? req.createdBy)! } : {}),
      ...((req.updatedBy ?? req.createdBy) ? { updatedBy: (req.updatedBy ?? req.createdBy)! } : {}),
      createTime: existing?.createTime ?? now,
      updatedTime: now,
      tags: existing?.tags ?? [],
    };
    await this.store.putSchedule(s);
    await scheduleActor(this.host, s.name).sync();
  }

  private async required(name: string): Promise<WorkflowSchedule> {
    const s = await this.store.getSchedule(name);
    if (!s) throw Errors.SCHEDULE_NOT_FOUND(name);
    return s;
  }

  private async view(s: WorkflowSchedule): Promise<ScheduleView> {
    if (s.paused) return s;
    const last = (await this.store.lastSlot(s.name)) ?? s.createTime;
    const next = firstSlotAfter(
      { next: compileCron(s.cronExpression, s.zoneId), startTime: s.scheduleStartTime, endTime: s.scheduleEndTime },
      Math.max(last, this.now()),
    );
    return next === undefined ? s : { ...s, nextRunTime: next };
  }

  async get(name: string): Promise<ScheduleView> {
    return this.view(await this.required(name));
  }

  async list(workflowName?: string): Promise<ScheduleView[]> {
    const all = await this.store.listSchedules();
    return Promise.all(all.filter((s) => !workflowName || s.startWorkflowRequest.name === workflowName).map((s) => this.view(s)));
  }

  async byTag(tags: ScheduleTag[]): Promise<ScheduleView[]> {
    const all = await this.store.listSchedules();
    const has = (s: WorkflowSchedule) => tags.some((t) => s.tags.some((x) => x.key === t.key && (t.value == null || x.value === t.value)));
    return Promise.all(all.filter(has).map((s) => this.view(s)));
  }

  async delete(name: string): Promise<void> {
    if (!(await this.store.deleteSchedule(name))) throw Errors.SCHEDULE_NOT_FOUND(name);
    await scheduleActor(this.host, name).sync();
  }

  async pause(name: string, reason?: string): Promise<void> {
    const s = await this.required(name);
    await this.store.putSchedule({ ...s, paused: true, ...(reason ? { pausedReason: reason } : {}), updatedTime: this.now() });
    await scheduleActor(this.host, name).sync();
  }

  async resume(name: string): Promise<void> {
    const { pausedReason: _dropped, ...s } = await this.required(name);
    const now = this.now();
    await this.store.putSchedule({ ...s, paused: false, updatedTime: now });
    // Slots missed while paused are not caught up: only what follows the resume fires.
    await scheduleActor(this.host, name).sync({ skipUntil: now });
  }

  pauseAll(): Promise<void> {
    return this.store.setAllPaused(true);
  }

  resumeAll(): Promise<void> {
    return this.store.setAllPaused(false);
  }

  /** Arms every schedule's reminder (idempotent): at start-up, and by /admin/requeue. Answers how many. */
  async syncAll(onError?: (name: string, err: unknown) => void): Promise<number> {
    let n = 0;
    for (const s of await this.store.listSchedules()) {
      if (s.paused) continue;
      try {
        await scheduleActor(this.host, s.name).sync();
        n++;
      } catch (e) {
        onError?.(s.name, e);
      }
    }
    return n;
  }

  nextFew(cronExpression: string, zoneId: string | undefined, startTime: number | undefined, endTime: number | undefined, limit: number): number[] {
    const next = this.cron(cronExpression, zoneId);
    return nextSlots({ next, startTime, endTime }, Math.max(this.now(), (startTime ?? 0) - 1), limit);
  }

  search(q: ScheduleExecutionQuery) {
    return this.store.searchExecutions(q);
  }

  async tags(name: string): Promise<ScheduleTag[]> {
    return (await this.required(name)).tags;
  }

  async setTags(name: string, tags: ScheduleTag[]): Promise<void> {
    const s = await this.required(name);
    await this.store.putSchedule({ ...s, tags });
  }

  async deleteTags(name: string, tags: ScheduleTag[]): Promise<void> {
    const s = await this.required(name);
    const gone = (x: ScheduleTag) => tags.some((t) => t.key === x.key && (t.value == null || t.value === x.value));
    await this.store.putSchedule({ ...s, tags: s.tags.filter((x) => !gone(x)) });
  }
}
