import type Redis from 'ioredis';
import type { ActorPlacementRuntime } from './actor-placement-runtime';
import type { Period } from './schedule-times';

export type FailurePolicy = { kind: 'drop' } | { kind: 'constant'; intervalMs: number; maxRetries?: number };

export interface ReminderRecord {
  type: string;
  id: string;
  name: string;
  dueAt: number;
  period: Period | null;
  /** Fires done so far (bounds `Rn/` periods). */
  fired: number;
  data: unknown;
  failurePolicy: FailurePolicy;
  /** Bumped by every re-registration; a fire finishing for an older generation leaves the new one alone. */
  generation: number;
}

/** Scheduler's default when no failure_policy is given: 3 retries of the tick, 1 s apart. */
export const DEFAULT_FAILURE_POLICY: FailurePolicy = { kind: 'constant', intervalMs: 1000, maxRetries: 3 };

export interface ReminderFire {
  type: string;
  id: string;
  name: string;
  status: number | 'error' | 'no-host';
  at: number;
}

const reminderKey = (type: string, id: string, name: string): string => `${type}||${id}||${name}`;

/**
 * The Scheduler part of the double: durable reminders (kept in Redis, so they outlive app
 * restarts and the double's own restart), fired through placement with the Scheduler body shape.
 */
export class ReminderScheduler {
  private readonly records = new Map<string, ReminderRecord>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private generation = 0;
  private closed = false;
  /** Every fire attempt, for tests to inspect. */
  readonly fires: ReminderFire[] = [];

  constructor(
    private readonly redis: Redis,
    private readonly hashKey: string,
    private readonly runtime: ActorPlacementRuntime,
    private readonly appHeaders: () => Record<string, string>,
    private readonly log: (line: string) => void,
  ) {}

  async load(): Promise<void> {
    const all = await this.redis.hgetall(this.hashKey);
    for (const json of Object.values(all)) {
      const rec = JSON.parse(json) as ReminderRecord;
      rec.generation = ++this.generation;
      this.records.set(reminderKey(rec.type, rec.id, rec.name), rec);
      this.arm(rec, rec.dueAt);
    }
  }

  get(type: string, id: string, name: string): ReminderRecord | undefined {
    return this.records.get(reminderKey(type, id, name));
  }

  /** Registers a reminder; false when it exists and `overwrite` is false. */
  async put(rec: Omit<ReminderRecord, 'generation' | 'fired'>, overwrite: boolean): Promise<boolean> {
    const key = reminderKey(rec.type, rec.id, rec.name);
    if (!overwrite && this.records.has(key)) return false;
    const full: ReminderRecord = { ...rec, fired: 0, generation: ++this.generation };
    this.records.set(key, full);
    await this.redis.hset(this.hashKey, key, JSON.stringify(full));
    this.arm(full, full.dueAt);
    return true;
  }

  async delete(type: string, id: string, name: string): Promise<void> {
    const key = reminderKey(type, id, name);
    this.records.delete(key);
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
    await this.redis.hdel(this.hashKey, key);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  private arm(rec: ReminderRecord, at: number, attempt = 0): void {
    const key = reminderKey(rec.type, rec.id, rec.name);
    clearTimeout(this.timers.get(key));
    if (this.closed) return;
    const timer = setTimeout(() => void this.fire(rec, attempt), Math.max(0, at - Date.now()));
    this.timers.set(key, timer);
  }

  private isCurrent(rec: ReminderRecord): boolean {
    return !this.closed && this.records.get(reminderKey(rec.type, rec.id, rec.name))?.generation === rec.generation;
  }

  private async fire(rec: ReminderRecord, attempt: number): Promise<void> {
    if (!this.isCurrent(rec)) return;
    const note = (status: ReminderFire['status']): void => {
      this.fires.push({ type: rec.type, id: rec.id, name: rec.name, status, at: Date.now() });
    };
    if (this.runtime.hostsOf(rec.type).length === 0) {
      // Undeliverable (no app of the type connected): held, not a failed tick.
      note('no-host');
      this.arm(rec, Date.now() + 200, attempt);
      return;
    }
    let ok = false;
    let cancel = false;
    try {
      const path = `/method/remind/${rec.name.split('/').map(encodeURIComponent).join('/')}`;
      // Scheduler-backed reminders arrive with empty dueTime/period.
      const body = Buffer.from(JSON.stringify({ data: rec.data ?? null, dueTime: '', period: '' }));
      const reply = await this.runtime.call(rec.type, rec.id, path, { ...this.appHeaders(), 'content-type': 'application/json' }, body);
      note(reply.status);
      ok = reply.status >= 200 && reply.status < 300;
      cancel = ok && reply.headers['x-daprremindercancel']?.toLowerCase() === 'true';
    } catch (err) {
      note('error');
      this.log(`reminder ${rec.type}/${rec.id}/${rec.name} failed: ${String(err)}`);
    }
    if (!this.isCurrent(rec)) return; // re-registered (or deleted) while firing: the new registration stands
    if (ok) return this.afterTick(rec, cancel);
    const policy = rec.failurePolicy;
    if (policy.kind === 'constant' && (policy.maxRetries === undefined || attempt < policy.maxRetries)) {
      this.arm(rec, Date.now() + policy.intervalMs, attempt + 1);
      return;
    }
    await this.afterTick(rec, false);
  }

  private async afterTick(rec: ReminderRecord, cancel: boolean): Promise<void> {
    rec.fired += 1;
    const more = rec.period && !cancel && (rec.period.repetitions === undefined || rec.fired < rec.period.repetitions);
    if (!more || !rec.period) {
      await this.delete(rec.type, rec.id, rec.name);
      return;
    }
    rec.dueAt += rec.period.everyMs;
    await this.redis.hset(this.hashKey, reminderKey(rec.type, rec.id, rec.name), JSON.stringify(rec));
    this.arm(rec, rec.dueAt);
  }
}
