import { Worker, type ResourceLimits } from 'node:worker_threads';
import { ScriptError } from './script-error';
import type { WorkerMessage, WorkerReply } from './worker-protocol-source';

export interface WorkerPoolOptions {
  /** How many worker threads run evaluations at once. */
  size: number;
  /** JavaScript source of a worker built on WORKER_PROTOCOL_SOURCE. */
  source: string;
  workerData: Record<string, unknown>;
  resourceLimits: ResourceLimits;
  /** How long a (re)started worker may take to load before it is replaced. */
  startupTimeoutMs: number;
  /** How long a request may wait for a free worker before it fails as `busy` (time while a worker loads does not count). */
  queueTimeoutMs: number;
}

export interface PoolRequest {
  /** Says what runs, in error messages ("JavaScript evaluation", "jq query"). */
  label: string;
  body: unknown;
  /** The evaluation's time limit, counted from the moment a worker takes it. */
  limitMs: number;
  /** Added to the limit before the worker is terminated: the worker's own interrupt should win. */
  graceMs: number;
}

interface Job extends PoolRequest {
  resolve(value: unknown): void;
  reject(error: Error): void;
  queueTimer?: NodeJS.Timeout;
}

interface Slot {
  worker: Worker;
  state: 'loading' | 'idle' | 'busy';
  seq: number;
  job?: Job;
  /** Load deadline while loading, hard stop while busy. */
  timer?: NodeJS.Timeout;
}

/** A replacement that failed to load is retried after this pause, so a broken install does not spin. */
const RESPAWN_DELAY_MS = 1000;

/**
 * A fixed number of worker threads that evaluate requests in FIFO order, so no evaluation ever runs
 * on the server's own event loop. A worker that overruns its time limit, crashes, or reports itself
 * broken is terminated and a new one starts in its place; its request fails with a ScriptError.
 */
export class WorkerPool {
  private readonly slots: Array<Slot | undefined>;
  private readonly queue: Job[] = [];
  private disposed = false;

  private constructor(private readonly options: WorkerPoolOptions) {
    this.slots = new Array<Slot | undefined>(options.size).fill(undefined);
  }

  /** Resolves once every worker has loaded, so configuration errors surface at start. */
  static async start(options: WorkerPoolOptions): Promise<WorkerPool> {
    if (!Number.isInteger(options.size) || options.size < 1) throw new Error(`worker pool size must be a positive integer, got ${options.size}`);
    const pool = new WorkerPool(options);
    try {
      await Promise.all(pool.slots.map((_, i) => pool.spawn(i)));
    } catch (error) {
      await pool.dispose();
      throw error;
    }
    return pool;
  }

  /** Evaluates one request in a worker; rejects with ScriptError for failures, overruns and a full pool. */
  run<T>(request: PoolRequest): Promise<T> {
    if (this.disposed) return Promise.reject(new Error(`${request.label}: script workers are stopped`));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { ...request, resolve: resolve as (v: unknown) => void, reject };
      const expire = (): void => {
        const at = this.queue.indexOf(job);
        if (at < 0) return;
        // A worker still loading (a replacement) is not a busy one: its load has its own deadline.
        if (this.slots.some((slot) => slot?.state === 'loading')) {
          job.queueTimer = setTimeout(expire, this.options.queueTimeoutMs);
          return;
        }
        this.queue.splice(at, 1);
        reject(
          new ScriptError(
            'busy',
            `${request.label} was not started: all ${this.options.size} script workers stayed busy for ${this.options.queueTimeoutMs} ms`,
          ),
        );
      };
      job.queueTimer = setTimeout(expire, this.options.queueTimeoutMs);
      this.queue.push(job);
      this.dispatch();
    });
  }

  /** Requests waiting for a worker (for tests and diagnostics). */
  get waiting(): number {
    return this.queue.length;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    const stopped = new Error('script workers are stopped');
    for (const job of this.queue.splice(0)) {
      clearTimeout(job.queueTimer);
      job.reject(stopped);
    }
    const exits: Promise<unknown>[] = [];
    for (const [i, slot] of this.slots.entries()) {
      if (!slot) continue;
      this.slots[i] = undefined;
      clearTimeout(slot.timer);
      slot.job?.reject(stopped);
      exits.push(slot.worker.terminate().catch(() => undefined));
    }
    await Promise.all(exits);
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot || slot.state !== 'idle') continue;
      const job = this.queue.shift()!;
      clearTimeout(job.queueTimer);
      slot.state = 'busy';
      slot.job = job;
      slot.seq += 1;
      slot.timer = setTimeout(() => this.overrun(slot), job.limitMs + job.graceMs);
      slot.worker.postMessage({ seq: slot.seq, body: job.body });
    }
  }

  private overrun(slot: Slot): void {
    const job = slot.job;
    this.replace(slot);
    job?.reject(new ScriptError('timeout', `${job.label} exceeded the time limit of ${job.limitMs} ms and was stopped`));
  }

  /** Starts the worker of slot `index`; resolves when it has loaded, rejects when it cannot. */
  private spawn(index: number): Promise<void> {
    const worker = new Worker(this.options.source, {
      eval: true,
      workerData: this.options.workerData,
      resourceLimits: this.options.resourceLimits,
      stdout: true,
      stderr: true,
    });
    // Workers never keep the process alive: a pending request does, through its timer.
    worker.unref();
    worker.stdout.resume();
    worker.stderr.resume();
    const slot: Slot = { worker, state: 'loading', seq: 0 };
    this.slots[index] = slot;
    return new Promise<void>((resolve, reject) => {
      const failed = (reason: string): void => {
        if (slot.state !== 'loading' || this.slots[index] !== slot) return;
        clearTimeout(slot.timer);
        this.slots[index] = undefined;
        void worker.terminate().catch(() => undefined);
        reject(new Error(`script worker failed to load: ${reason}`));
      };
      slot.timer = setTimeout(() => failed(`not loaded within ${this.options.startupTimeoutMs} ms`), this.options.startupTimeoutMs);
      worker.on('message', (message: WorkerMessage) => {
        if (this.slots[index] !== slot) return;
        if (message.type === 'loaded' && slot.state === 'loading') {
          clearTimeout(slot.timer);
          slot.state = 'idle';
          resolve();
          this.dispatch();
        } else if (message.type === 'loadFailed') {
          failed(message.message);
        } else if (message.type === 'reply' && slot.state === 'busy' && message.seq === slot.seq) {
          this.answer(slot, message.reply);
        }
      });
      // An 'error' event without a listener would crash the server; the job learns of it through 'exit'.
      worker.on('error', () => undefined);
      worker.once('exit', (code) => {
        if (this.slots[index] !== slot) return;
        if (slot.state === 'loading') return failed(`exited with code ${code}`);
        const job = slot.job;
        this.replace(slot);
        // The worker's own V8 heap overflowed (resourceLimits) or it died some other way.
        job?.reject(new ScriptError('runtime', `${job.label}: the script worker stopped (exit code ${code}) and was replaced`));
      });
    });
  }

  private answer(slot: Slot, reply: WorkerReply<unknown>): void {
    const job = slot.job!;
    clearTimeout(slot.timer);
    slot.job = undefined;
    if (!reply.ok && reply.fatal) this.replace(slot);
    else slot.state = 'idle';
    if (reply.ok) job.resolve(reply.value);
    else job.reject(new ScriptError(reply.failure, reply.message));
    this.dispatch();
  }

  /** Terminates the slot's worker and starts its replacement; requests wait in the queue meanwhile. */
  private replace(slot: Slot): void {
    const index = this.slots.indexOf(slot);
    clearTimeout(slot.timer);
    slot.job = undefined;
    void slot.worker.terminate().catch(() => undefined);
    if (index < 0) return;
    this.slots[index] = undefined;
    if (!this.disposed) this.respawn(index, 0);
  }

  private respawn(index: number, delayMs: number): void {
    const start = (): void => {
      if (this.disposed || this.slots[index]) return;
      this.spawn(index).catch(() => this.respawn(index, RESPAWN_DELAY_MS));
    };
    if (delayMs === 0) start();
    else setTimeout(start, delayMs).unref();
  }
}
