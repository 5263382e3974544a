import type { Logger } from 'pino';
import type { ScanLease } from '../services/recovery-scan';
import type { Purger } from './purger';
import { PeriodicLoop } from '../lib/periodic-loop';

export interface RetentionLoopOptions {
  purger: Pick<Purger, 'passOnce'>;
  /** One replica of a cluster purges at a time; the embedded profile's lease is always held. */
  lease: ScanLease;
  intervalMs: number;
  /** Executions one pass purges at most. */
  budget: number;
  log: Pick<Logger, 'warn'>;
}

/** One purge pass per interval, under the lease (renewed for the pass's length), until stopped. */
export class RetentionLoop {
  private readonly loop: PeriodicLoop;

  constructor(opts: RetentionLoopOptions) {
    this.loop = new PeriodicLoop({
      intervalMs: opts.intervalMs,
      jitterFirst: true,
      round: async (signal) => {
        if (await opts.lease.acquire(opts.intervalMs * 2)) await opts.purger.passOnce(opts.budget, signal);
      },
      onError: (err) => opts.log.warn({ err }, 'retention pass failed; next one in an interval'),
      afterStop: () => opts.lease.release(),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops between two executions: the pass's journal keeps what it did not reach for the next start. */
  stop(): Promise<void> {
    return this.loop.stop();
  }
}

/** The embedded profile's lease: one process, nothing to share. */
export const SOLE_LEASE: ScanLease = { acquire: async () => true, release: async () => undefined };
