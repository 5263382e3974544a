import type { Actor, ActorContext } from '../runtime/ports';
import { MinHeap } from '../runtime/local/min-heap';

// One task-queue partition: pending entries ordered by priority (lower first) then FIFO, delayed
// entries by visibility time, leased entries until acked or expired. Its content is derived data:
// every entry is a SCHEDULED task of some execution, which re-pushes it when a queue lost it.

export interface QueueEntry {
  taskId: string;
  workflowId: string;
  priority: number;
  visibleAt: number;
}

export interface PushArg extends QueueEntry {}
export interface LeaseArg {
  count: number;
  now: number;
  leaseMs: number;
}
export interface LeaseResult {
  entries: QueueEntry[];
  /** When the next delayed entry becomes visible, if any (so a long poll can sleep until then). */
  nextVisibleAt?: number;
}

interface Slot extends QueueEntry {
  seq: number;
  /** Which heap generation the slot is live in; stale heap items are skipped. */
  gen: number;
  leasedUntil?: number;
}

const STATE_KEY = 'entries';

export class QueueActor implements Actor {
  private readonly entries = new Map<string, Slot>();
  /** Set by every change of `entries` within a turn, so the turn knows to save them. */
  private dirty = false;
  private seq = 0;
  private readonly ready = new MinHeap<Slot>((a, b) => (a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq));
  private readonly delayed = new MinHeap<{ at: number; slot: Slot; gen: number }>((a, b) => a.at < b.at);
  private readonly leases = new MinHeap<{ until: number; slot: Slot; gen: number }>((a, b) => a.until < b.until);

  constructor(
    readonly ctx: ActorContext,
    private readonly onPush: (queue: string) => void,
  ) {}

  /** Where the host keeps actor state (the Dapr actor state store), entries survive a move to another replica. */
  async onActivate(): Promise<void> {
    const saved = await this.ctx.state?.get<QueueEntry[]>(STATE_KEY);
    for (const e of saved ?? []) this.push(e); // leased entries come back pending: a claim only takes SCHEDULED tasks
    this.dirty = false;
  }

  async invoke(method: string, arg: unknown): Promise<unknown> {
    const result = this.apply(method, arg);
    if (this.dirty && this.ctx.state) {
      const entries = [...this.entries.values()].map(({ taskId, workflowId, priority, visibleAt }) => ({ taskId, workflowId, priority, visibleAt }));
      await this.ctx.state.transact([{ operation: 'upsert', key: STATE_KEY, value: entries }]);
    }
    this.dirty = false;
    return result;
  }

  private apply(method: string, arg: unknown): unknown {
    switch (method) {
      case 'push':
        return this.push(arg as PushArg);
      case 'pushMany':
        for (const e of arg as PushArg[]) this.push(e);
        return null;
      case 'lease':
        return this.lease(arg as LeaseArg);
      case 'ack':
      case 'remove':
        return this.remove((arg as { taskId: string }).taskId);
      case 'removeMany':
        for (const id of (arg as { taskIds: string[] }).taskIds) this.remove(id);
        return null;
      case 'release':
        return this.release(arg as { taskId: string; visibleAt: number });
      case 'size':
        return this.size((arg as { now: number } | undefined)?.now ?? 0);
      case 'stats':
        return { size: this.entries.size, leased: [...this.entries.values()].filter((s) => s.leasedUntil !== undefined).length };
      default:
        throw new Error(`QueueActor has no method ${method}`);
    }
  }

  async onReminder(): Promise<void> {}

  /** Entries live only in memory on the local host: an idle partition with entries must stay. */
  keepAlive(): boolean {
    return this.entries.size > 0 && !this.ctx.state;
  }

  /** Idempotent by task id: a second push of a pending entry only moves its visibility earlier. */
  push(e: PushArg): boolean {
    const existing = this.entries.get(e.taskId);
    if (existing && existing.leasedUntil === undefined && existing.visibleAt <= e.visibleAt) return false;
    const slot: Slot = { ...e, seq: existing?.seq ?? ++this.seq, gen: (existing?.gen ?? 0) + 1 };
    this.entries.set(e.taskId, slot);
    this.dirty = true;
    this.place(slot);
    this.onPush(this.ctx.id);
    return true;
  }

  private place(slot: Slot): void {
    slot.leasedUntil = undefined;
    if (slot.visibleAt > Date.now()) this.delayed.push({ at: slot.visibleAt, slot, gen: slot.gen });
    else this.ready.push(slot);
  }

  private live(slot: Slot, gen: number): boolean {
    return this.entries.get(slot.taskId) === slot && slot.gen === gen;
  }

  /** Takes up to `count` visible entries; they come back by themselves if not acked within leaseMs. */
  lease({ count, now, leaseMs }: LeaseArg): LeaseResult {
    for (let l = this.leases.peek(); l && l.until <= now; l = this.leases.peek()) {
      this.leases.pop();
      if (this.live(l.slot, l.gen) && l.slot.leasedUntil !== undefined) {
        l.slot.gen++;
        l.slot.visibleAt = now;
        this.ready.push(l.slot);
        l.slot.leasedUntil = undefined;
      }
    }
    for (let d = this.delayed.peek(); d && d.at <= now; d = this.delayed.peek()) {
      this.delayed.pop();
      if (this.live(d.slot, d.gen) && d.slot.leasedUntil === undefined) {
        d.slot.gen++;
        this.ready.push(d.slot);
      }
    }
    const out: QueueEntry[] = [];
    while (out.length < count) {
      const s = this.ready.pop();
      if (!s) break;
      if (this.entries.get(s.taskId) !== s || s.leasedUntil !== undefined) continue;
      s.leasedUntil = now + leaseMs;
      s.gen++;
      this.leases.push({ until: s.leasedUntil, slot: s, gen: s.gen });
      out.push({ taskId: s.taskId, workflowId: s.workflowId, priority: s.priority, visibleAt: s.visibleAt });
    }
    let nextVisibleAt: number | undefined;
    while (this.delayed.peek() && !this.live(this.delayed.peek()!.slot, this.delayed.peek()!.gen)) this.delayed.pop();
    if (this.delayed.peek()) nextVisibleAt = this.delayed.peek()!.at;
    return { entries: out, nextVisibleAt };
  }

  remove(taskId: string): boolean {
    const removed = this.entries.delete(taskId);
    if (removed) this.dirty = true;
    return removed;
  }

  /** Puts a leased entry back, visible at `visibleAt` (used when a limit postpones it). */
  release({ taskId, visibleAt }: { taskId: string; visibleAt: number }): boolean {
    const s = this.entries.get(taskId);
    if (!s) return false;
    s.gen++;
    s.visibleAt = visibleAt;
    this.place(s);
    return true;
  }

  size(_now: number): number {
    let n = 0;
    for (const s of this.entries.values()) if (s.leasedUntil === undefined) n++;
    return n;
  }
}
