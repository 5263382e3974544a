import type { Logger } from 'pino';
import { HostStopping, type Actor, type ActorContext, type ActorFactory, type ActorHost } from '../ports';
import { MinHeap } from '../../lib/min-heap';
import type { SqliteReminderStore } from './reminder-store';

interface Slot {
  actor: Actor;
  /** Tail of the mailbox: each call chains on it, so one turn runs at a time. */
  tail: Promise<unknown>;
  pending: number;
  lastUsed: number;
  activated: boolean;
  /** Drop the activation as soon as its mailbox is empty (set by deactivateWhenIdle). */
  retire?: boolean;
}

interface Timer {
  dueAt: number;
  type: string;
  id: string;
  name: string;
}

const key = (type: string, id: string): string => `${type}\u0000${id}`;

/** Actors in this process: a mailbox per actor, idle deactivation, reminders persisted in SQLite. */
export class LocalActorHost implements ActorHost {
  private readonly factories = new Map<string, ActorFactory>();
  private readonly slots = new Map<string, Slot>();
  private readonly reminders = new Map<string, number>(); // key + name -> dueAt
  private readonly timers = new MinHeap<Timer>((a, b) => a.dueAt < b.dueAt);
  private timer?: NodeJS.Timeout;
  private timerAt = Infinity;
  private idleSweep?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    private readonly store: SqliteReminderStore,
    private readonly log: Logger,
    private readonly opts: {
      idleTimeoutMs: number;
      /** Most activations kept in memory: past it, the least recently used idle ones are deactivated (their state is in the store). */
      maxActive?: number;
      clock?: () => number;
    },
  ) {}

  private now(): number {
    return this.opts.clock ? this.opts.clock() : Date.now();
  }

  register(type: string, factory: ActorFactory): void {
    this.factories.set(type, factory);
  }

  async start(): Promise<void> {
    for (const r of this.store.all()) this.arm(r.actorType, r.actorId, r.name, r.dueAt);
    this.idleSweep = setInterval(() => this.deactivateIdle(), Math.max(1000, Math.floor(this.opts.idleTimeoutMs / 2)));
    this.idleSweep.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.idleSweep) clearInterval(this.idleSweep);
    await Promise.allSettled([...this.slots.values()].map((s) => s.tail));
    for (const [k, s] of this.slots) {
      this.slots.delete(k);
      if (s.activated) await s.actor.onDeactivate?.().catch(() => undefined);
    }
    this.store.flush();
  }

  private slot(type: string, id: string): Slot {
    const k = key(type, id);
    let s = this.slots.get(k);
    if (s) {
      // Re-inserting keeps the map in least-recently-used order for evictOverflow.
      this.slots.delete(k);
      this.slots.set(k, s);
    } else {
      const factory = this.factories.get(type);
      if (!factory) throw new Error(`unknown actor type ${type}`);
      const ctx: ActorContext = {
        type,
        id,
        setReminder: (name, dueAt) => this.setReminder(type, id, name, dueAt),
        deactivateWhenIdle: () => {
          const live = this.slots.get(key(type, id));
          if (live) live.retire = true;
        },
      };
      s = { actor: factory(ctx), tail: Promise.resolve(), pending: 0, lastUsed: this.now(), activated: false };
      this.slots.set(k, s);
      if (this.opts.maxActive && this.slots.size > this.opts.maxActive) this.evictOverflow(this.opts.maxActive, k);
    }
    return s;
  }

  /** Deactivates idle activations, least recently used first, down to 90% of `max` (a batch, so this runs rarely). */
  private evictOverflow(max: number, keep: string): void {
    const goal = Math.floor(max * 0.9);
    for (const [k, s] of this.slots) {
      if (this.slots.size <= goal) break;
      if (k === keep || s.pending > 0 || s.actor.keepAlive?.()) continue;
      this.slots.delete(k);
      if (s.activated) void s.actor.onDeactivate?.().catch(() => undefined);
    }
  }

  private enqueue<T>(type: string, id: string, fn: (a: Actor) => Promise<T>): Promise<T> {
    const s = this.slot(type, id);
    s.pending++;
    const run = async (): Promise<T> => {
      try {
        if (!s.activated) {
          await s.actor.onActivate?.();
          s.activated = true;
        }
        return await fn(s.actor);
      } finally {
        s.pending--;
        s.lastUsed = this.now();
        if (s.retire && s.pending === 0 && this.slots.get(key(type, id)) === s) {
          this.slots.delete(key(type, id));
          if (s.activated) void s.actor.onDeactivate?.().catch(() => undefined);
        }
      }
    };
    const result = s.tail.then(run, run);
    s.tail = result.catch(() => undefined);
    return result;
  }

  invoke<T = unknown>(type: string, id: string, method: string, arg?: unknown): Promise<T> {
    if (this.stopped) return Promise.reject(new HostStopping());
    return this.enqueue(type, id, (a) => a.invoke(method, arg) as Promise<T>);
  }

  private async setReminder(type: string, id: string, name: string, dueAt: number | null): Promise<void> {
    if (this.stopped) return; // reminders are re-derived by each actor on the next start
    const k = `${key(type, id)}\u0000${name}`;
    if (dueAt === null) {
      if (!this.reminders.has(k)) return;
      this.reminders.delete(k);
      this.store.delete(type, id, name);
      return;
    }
    if (this.reminders.get(k) === dueAt) return;
    this.store.put({ actorType: type, actorId: id, name, dueAt });
    this.arm(type, id, name, dueAt);
  }

  private arm(type: string, id: string, name: string, dueAt: number): void {
    this.reminders.set(`${key(type, id)}\u0000${name}`, dueAt);
    this.timers.push({ dueAt, type, id, name });
    this.schedule();
  }

  private schedule(): void {
    const next = this.timers.peek();
    if (!next || this.stopped) return;
    if (next.dueAt >= this.timerAt && this.timer) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = next.dueAt;
    this.timer = setTimeout(() => this.fire(), Math.max(0, Math.min(next.dueAt - this.now(), 2_147_000_000)));
    this.timer.unref();
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Infinity;
    const now = this.now();
    for (let t = this.timers.peek(); t && t.dueAt <= now; t = this.timers.peek()) {
      this.timers.pop();
      const k = `${key(t.type, t.id)}\u0000${t.name}`;
      if (this.reminders.get(k) !== t.dueAt) continue; // superseded
      this.reminders.delete(k);
      this.store.delete(t.type, t.id, t.name);
      const { type, id, name } = t;
      this.enqueue(type, id, (a) => a.onReminder(name)).catch((e) => {
        // Reminders retry until the actor handles them, as Dapr's do.
        this.log.warn({ err: e, actor: type, id }, 'reminder failed; retrying in 1s');
        if (!this.stopped) void this.setReminder(type, id, name, this.now() + 1000);
      });
    }
    this.schedule();
  }

  private deactivateIdle(): void {
    const cutoff = this.now() - this.opts.idleTimeoutMs;
    for (const [k, s] of this.slots) {
      if (s.pending === 0 && s.lastUsed < cutoff && !s.actor.keepAlive?.()) {
        this.slots.delete(k);
        if (s.activated) void s.actor.onDeactivate?.().catch(() => undefined);
      }
    }
  }

  /** Number of live activations (for tests and metrics). */
  get activeCount(): number {
    return this.slots.size;
  }
}
