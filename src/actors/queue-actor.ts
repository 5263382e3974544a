import type { Actor, ActorContext } from '../runtime/ports';
import { MinHeap } from '../lib/min-heap';
import { PageBook } from './queue/page-book';
import { QueueCalls, type QueueEntry, type TakeArg, type TakeResult } from './protocol/queue-protocol';
import { LEGACY_KEY, loadQueueState, saveQueueState, settlePages, type StoredEntry } from './queue/queue-state';

// One task-queue partition: pending entries ordered by priority (lower first) then FIFO, delayed
// entries by visibility time; a poll takes entries out. Its content is derived data: every entry is a
// SCHEDULED task of some execution, which re-pushes it when a queue lost it.

export type { QueueEntry, TakeArg, TakeResult };
export type PushArg = QueueEntry;

interface Slot extends QueueEntry {
  seq: number;
  /** Which heap generation the slot is live in; stale heap items are skipped. */
  gen: number;
}

export interface QueueActorOptions {
  /**
   * Entries per state page. A push or ack rewrites one page (~90 bytes an entry with UUID ids);
   * activation reads backlog/pageSize pages (at most 4 times that).
   */
  pageSize?: number;
  /** Largest state transaction a turn sends. */
  maxTransactBytes?: number;
  /** Told the entries held after each turn (0 once deactivated here): the queue depth metric, with no read of its own. */
  onDepth?: (actorId: string, entries: number) => void;
}

const DEFAULT_PAGE_SIZE = 500;

export class QueueActor implements Actor {
  private readonly entries = new Map<string, Slot>();
  /** Where each entry is kept in the state store; absent when the host has no store. */
  private book: PageBook | undefined;
  /** Set by a push that changed the queue within a turn: pollers are woken once the turn saved. */
  private pushed = false;
  private seq = 0;
  private readonly ready = new MinHeap<Slot>((a, b) => (a.priority !== b.priority ? a.priority < b.priority : a.seq < b.seq));
  private readonly delayed = new MinHeap<{ at: number; slot: Slot; gen: number }>((a, b) => a.at < b.at);

  private readonly pageSize: number;
  private readonly maxTransactBytes: number | undefined;
  private readonly onDepth: ((actorId: string, entries: number) => void) | undefined;

  constructor(
    readonly ctx: ActorContext,
    /** Told the actor id after a turn that made entries pollable. */
    private readonly onPush: (actorId: string) => void,
    options: QueueActorOptions = {},
  ) {
    this.pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.maxTransactBytes = options.maxTransactBytes;
    this.onDepth = options.onDepth;
    if (ctx.state) this.book = new PageBook(this.pageSize);
  }

  /**
   * Where the host keeps actor state (the Dapr actor state store), entries survive a move to another
   * replica.
   */
  async onActivate(): Promise<void> {
    const state = this.ctx.state;
    if (!state) return;
    const loaded = await loadQueueState(state);
    if (loaded.layout === 'pages') {
      const { pages, entries, rewrite } = settlePages(loaded.pages);
      this.book = PageBook.restore(this.pageSize, pages);
      this.book.markDirty(rewrite, loaded.damaged || rewrite.length > 0);
      for (const [taskId, workflowId, priority, visibleAt, seq] of entries) this.insert({ taskId, workflowId, priority, visibleAt }, seq);
      this.seq = entries.length > 0 ? entries[entries.length - 1][4] : 0;
    } else if (loaded.layout === 'legacy') {
      for (const e of loaded.entries) this.push(e);
      // Once: the old single value becomes pages; its delete goes in the same (last) transaction as meta.
      await saveQueueState(state, this.book!, this.storedEntry, [{ operation: 'delete', key: LEGACY_KEY }], this.maxTransactBytes);
    }
    this.pushed = this.entries.size > 0;
    this.notifyPushed();
    this.onDepth?.(this.ctx.id, this.entries.size);
  }

  async onDeactivate(): Promise<void> {
    this.onDepth?.(this.ctx.id, 0);
  }

  async invoke(method: string, arg: unknown): Promise<unknown> {
    const result = this.apply(method, arg);
    try {
      if (this.book?.owesWrites && this.ctx.state) await saveQueueState(this.ctx.state, this.book, this.storedEntry, [], this.maxTransactBytes);
    } finally {
      this.notifyPushed(); // the entries are pollable from memory even when the save failed
      this.onDepth?.(this.ctx.id, this.entries.size);
    }
    return result;
  }

  private notifyPushed(): void {
    if (!this.pushed) return;
    this.pushed = false;
    this.onPush(this.ctx.id);
  }

  private readonly storedEntry = (taskId: string): StoredEntry => {
    const s = this.entries.get(taskId)!;
    return [s.taskId, s.workflowId, s.priority, s.visibleAt, s.seq];
  };

  /** One handler per call of the QueueActor protocol; each is synchronous, the turn saves after it. */
  private readonly apply = QueueCalls.dispatcher({
    push: (e) => this.push(e),
    pushMany: (list) => {
      for (const e of list) this.push(e);
      return null;
    },
    take: (a) => this.take(a),
    remove: (a) => this.remove(a.taskId),
    size: () => this.size(),
  });

  async onReminder(): Promise<void> {}

  /** Entries live only in memory on the local host: an idle partition with entries must stay. */
  keepAlive(): boolean {
    return this.entries.size > 0 && !this.ctx.state;
  }

  /** Idempotent by task id: a second push of a pending entry only moves its visibility earlier. */
  push(e: PushArg): boolean {
    const existing = this.entries.get(e.taskId);
    if (existing && existing.visibleAt <= e.visibleAt) return false;
    this.insert(e, existing?.seq ?? ++this.seq);
    this.book?.add(e.taskId);
    this.pushed = true;
    return true;
  }

  private insert(e: QueueEntry, seq: number): void {
    const existing = this.entries.get(e.taskId);
    const slot: Slot = { taskId: e.taskId, workflowId: e.workflowId, priority: e.priority, visibleAt: e.visibleAt, seq, gen: (existing?.gen ?? 0) + 1 };
    this.entries.set(e.taskId, slot);
    this.place(slot);
  }

  private place(slot: Slot): void {
    if (slot.visibleAt > Date.now()) this.delayed.push({ at: slot.visibleAt, slot, gen: slot.gen });
    else this.ready.push(slot);
  }

  private live(slot: Slot, gen: number): boolean {
    return this.entries.get(slot.taskId) === slot && slot.gen === gen;
  }

  /** Takes up to `count` visible entries out of the partition (see the protocol's take). */
  take({ count, now }: TakeArg): TakeResult {
    for (let d = this.delayed.peek(); d && d.at <= now; d = this.delayed.peek()) {
      this.delayed.pop();
      if (this.live(d.slot, d.gen)) {
        d.slot.gen++;
        this.ready.push(d.slot);
      }
    }
    const out: QueueEntry[] = [];
    while (out.length < count) {
      const s = this.ready.pop();
      if (!s) break;
      if (this.entries.get(s.taskId) !== s) continue;
      this.remove(s.taskId);
      out.push({ taskId: s.taskId, workflowId: s.workflowId, priority: s.priority, visibleAt: s.visibleAt });
    }
    let nextVisibleAt: number | undefined;
    while (this.delayed.peek() && !this.live(this.delayed.peek()!.slot, this.delayed.peek()!.gen)) this.delayed.pop();
    if (this.delayed.peek()) nextVisibleAt = this.delayed.peek()!.at;
    return { entries: out, nextVisibleAt };
  }

  remove(taskId: string): boolean {
    const removed = this.entries.delete(taskId);
    if (removed) this.book?.remove(taskId);
    return removed;
  }

  size(): number {
    return this.entries.size;
  }
}
