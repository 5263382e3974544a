import { RetryLater } from './retry-later';

/**
 * How many scrypt derivations run at once (BATON_AUTH_HASH_CONCURRENCY) and how many may wait
 * (BATON_AUTH_HASH_QUEUE). scrypt runs on libuv's thread pool (4 threads by default), which file reads,
 * DNS lookups and zlib share: token requests must never hold all of it. Past the queue a request is
 * refused at once with a 429, which the SDKs retry, instead of waiting without bound.
 */
export class HashingSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly maxQueued: number,
  ) {}

  /** Runs `work` once a slot is free; a 429 (HashingBusy) when the queue is full. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.waiting.length >= this.maxQueued) throw new HashingBusy();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else this.running++;
    try {
      return await work();
    } finally {
      // The slot passes straight to the next waiter, so `running` never drops below what runs.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }

  /** Derivations running now. */
  get inFlight(): number {
    return this.running;
  }

  /** Derivations waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }
}

/** Every hashing slot and queue place is taken: retry in a moment. */
export class HashingBusy extends RetryLater {
  constructor() {
    super('Too many access key checks in progress: retry in a moment', 1);
  }
}
