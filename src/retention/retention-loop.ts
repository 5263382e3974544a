import type { Logger } from 'pino';
import type { ScanLease } from '../services/recovery-scan';
import type { Purger } from './purger';

export interface RetentionLoopOptions {
  purger: Pick<Purger, 'passOnce'>;
  /** One replica of a cluster purges at a time; the embedded profile's lease is always held. */
  lease: ScanLease;
  intervalMs: number;
  /** Executions one pass purges at most. */
  budget: number;
  log: Pick<Logger, 'warn'>;
}

/** Resolves after `ms`, or at once when `signal` aborts. */
const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

/** One purge pass per interval, under the lease (renewed for the pass's length), until stopped. */
export class RetentionLoop {
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(private readonly opts: RetentionLoopOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops between two executions: the pass's journal keeps what it did not reach for the next start. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.opts.lease.release().catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    // At a random point of the first interval, so replicas started together do not collide.
    await sleep(Math.random() * Math.min(this.opts.intervalMs, 5000), signal);
    while (!signal.aborted) {
      const started = Date.now();
      try {
        if (await this.opts.lease.acquire(this.opts.intervalMs * 2)) await this.opts.purger.passOnce(this.opts.budget, signal);
      } catch (err) {
        this.opts.log.warn({ err }, 'retention pass failed; next one in an interval');
      }
      await sleep(Math.max(0, this.opts.intervalMs - (Date.now() - started)), signal);
    }
  }
}

/** The embedded profile's lease: one process, nothing to share. */
export const SOLE_LEASE: ScanLease = { acquire: async () => true, release: async () => undefined };
