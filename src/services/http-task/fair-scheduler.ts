// Which HTTP calls run now: at most `slots` in all and `perHost` per host; a task whose host is at its
// cap waits in that host's queue without taking a slot, and a freed slot goes to the waiting hosts in
// turn (round-robin), so one slow host's backlog cannot hold a slot another host's task could use.
// The last free slot only goes to a host with no call in flight: one host never holds every slot.
// A host's queue is bounded: past it a task is refused (the worker fails it, retried per its definition).
// Pure: it says what to start; the worker starts it. Hand-written: the pool libraries (p-limit,
// p-queue) have one queue, not a bounded queue per key served in turn.

export interface FairLimits {
  /** Calls in flight at once, all hosts together. */
  slots: number;
  /** Calls in flight to one host at once. */
  perHost: number;
  /** Tasks waiting for one host beyond its calls in flight; past it a task is refused. */
  queuePerHost: number;
}

export interface Started<T> {
  host: string;
  item: T;
}

export class FairScheduler<T> {
  private readonly running = new Map<string, number>();
  private runningTotal = 0;
  private readonly waiting = new Map<string, T[]>();
  /** Hosts with tasks waiting, in the order they are served next. */
  private readonly turns: string[] = [];

  constructor(private readonly limits: FairLimits) {}

  /** Takes a claimed task of `host`: what starts now (maybe nothing: it waits), or undefined when it would wait and the host's queue is full. */
  add(host: string, item: T): Started<T>[] | undefined {
    const queue = this.waiting.get(host);
    if (!this.canStart(host) && (queue?.length ?? 0) >= this.limits.queuePerHost) return undefined;
    if (queue) queue.push(item);
    else {
      this.waiting.set(host, [item]);
      this.turns.push(host);
    }
    return this.dispatch();
  }

  /** Calls in flight to `host` and tasks waiting for it. */
  load(host: string): { running: number; waiting: number } {
    return { running: this.running.get(host) ?? 0, waiting: this.waiting.get(host)?.length ?? 0 };
  }

  /** A call to `host` ended; answers what starts now. */
  finish(host: string): Started<T>[] {
    const n = (this.running.get(host) ?? 0) - 1;
    if (n > 0) this.running.set(host, n);
    else this.running.delete(host);
    this.runningTotal--;
    return this.dispatch();
  }

  /** Slots no call holds: a poll may take this many tasks. */
  freeSlots(): number {
    return this.limits.slots - this.runningTotal;
  }

  /** Everything waiting, taken out (at stop). */
  drain(): Started<T>[] {
    const out: Started<T>[] = [];
    for (const [host, queue] of this.waiting) for (const item of queue) out.push({ host, item });
    this.waiting.clear();
    this.turns.length = 0;
    return out;
  }

  /** Whether a call to `host` may start now: a slot is free, the host is under its cap, and the last slot only goes to a host with no call. */
  private hasRoom(host: string): boolean {
    const running = this.running.get(host) ?? 0;
    const free = this.limits.slots - this.runningTotal;
    return free > 0 && running < this.limits.perHost && (running === 0 || free > 1);
  }

  /** A new task of `host` would start at once: nothing of its host waits ahead of it and there is room. */
  private canStart(host: string): boolean {
    return !this.waiting.has(host) && this.hasRoom(host);
  }

  /** Starts the next waiting task of each host in turn while slots are free; a host at its cap (or with a call, at the last slot) is passed over. */
  private dispatch(): Started<T>[] {
    const out: Started<T>[] = [];
    let passed = 0;
    while (this.runningTotal < this.limits.slots && passed < this.turns.length) {
      const host = this.turns.shift()!;
      const queue = this.waiting.get(host)!;
      if (this.hasRoom(host)) {
        out.push({ host, item: queue.shift()! });
        this.running.set(host, (this.running.get(host) ?? 0) + 1);
        this.runningTotal++;
        passed = 0;
      } else passed++;
      if (queue.length > 0) this.turns.push(host);
      else this.waiting.delete(host);
    }
    return out;
  }
}
