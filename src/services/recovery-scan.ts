import type { Logger } from 'pino';
import { abortableSleep, PeriodicLoop } from '../lib/periodic-loop';

/** Who runs the scan now: one replica of a cluster at a time (a lease with a time limit). */
export interface ScanLease {
  /** True when this replica holds the lease for `ttlMs` from now (taken or renewed). */
  acquire(ttlMs: number): Promise<boolean>;
  release(): Promise<void>;
}

export interface RecoveryScanOptions {
  /** Open executions and those with an unfinished outbox. */
  ids: () => AsyncIterable<string>;
  /** The execution's recover call: re-pushes its SCHEDULED tasks, re-arms its deadline, re-runs its outbox. */
  recover: (workflowId: string) => Promise<void>;
  lease: ScanLease;
  intervalMs: number;
  /** Executions recovered per second at most, so a scan never activates everything at once. */
  ratePerSecond: number;
  /** Limit of one recover call; past it the call is abandoned (it is idempotent) and counts as failed. */
  callTimeoutMs: number;
  /**
   * This many recover calls failing in a row (errors or past their limit) give up the lease: a replica
   * whose actor calls are held must not keep renewing it while no execution gets recovered.
   */
  maxConsecutiveFailures: number;
  log: Pick<Logger, 'info' | 'warn'>;
}

/**
 * Waits for `work` unless `signal` aborts first (then resolves 'abandoned') or `limitMs` passes (then
 * 'late'); the work's own outcome is dropped then. For calls that take no signal of their own and are safe to repeat.
 */
const unlessAbortedOrLate = <T>(work: Promise<T>, signal: AbortSignal, limitMs: number): Promise<T | 'abandoned' | 'late'> => {
  if (signal.aborted) {
    work.catch(() => undefined);
    return Promise.resolve('abandoned');
  }
  return new Promise((resolve, reject) => {
    const settle = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abandon);
    };
    const drop = (outcome: 'abandoned' | 'late'): void => {
      settle();
      work.catch(() => undefined);
      resolve(outcome);
    };
    const abandon = (): void => drop('abandoned');
    const timer = setTimeout(() => drop('late'), limitMs);
    signal.addEventListener('abort', abandon, { once: true });
    work.then(
      (v) => {
        settle();
        resolve(v);
      },
      (err: unknown) => {
        settle();
        reject(err);
      },
    );
  });
};

/**
 * Periodic, paced recovery of every open execution by one replica of the cluster. It replaces a
 * per-execution sweep reminder (which kept every open execution active forever) and the start-up
 * pass of every replica (which activated every open execution at once): reminders lost to failed
 * deliveries come back, pushes lost to a crash reach their queue, outboxes finish.
 */
export class RecoveryScan {
  private readonly loop: PeriodicLoop;
  /** The last pass gave the lease up: this replica sits the next interval out so another one takes over. */
  private gaveUp = false;

  constructor(private readonly opts: RecoveryScanOptions) {
    this.loop = new PeriodicLoop({
      intervalMs: opts.intervalMs,
      jitterFirst: true,
      round: async (signal) => {
        if (await opts.lease.acquire(opts.intervalMs * 2)) await this.scanOnce(signal);
      },
      extraWaitMs: () => {
        const sitOut = this.gaveUp ? opts.intervalMs : 0;
        this.gaveUp = false;
        return sitOut;
      },
      onError: (err) => opts.log.warn({ err }, 'recovery scan failed; next one in an interval'),
      afterStop: () => opts.lease.release(),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Ends at once: an in-flight recover call is abandoned (it is idempotent; the next scan repeats it), not awaited. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One pass over every open execution, `ratePerSecond` at most. */
  async scanOnce(signal: AbortSignal = new AbortController().signal): Promise<number> {
    const gapMs = 1000 / this.opts.ratePerSecond;
    let recovered = 0;
    let failed = 0;
    let failedInRow = 0;
    let next = Date.now();
    let renewAt = Date.now() + this.opts.intervalMs / 2;
    for await (const id of this.opts.ids()) {
      if (signal.aborted) break;
      if (Date.now() >= renewAt) {
        if (!(await this.opts.lease.acquire(this.opts.intervalMs * 2))) break; // another replica took over
        renewAt = Date.now() + this.opts.intervalMs / 2;
      }
      const wait = next - Date.now();
      if (wait > 0) await abortableSleep(wait, signal);
      next = Math.max(next + gapMs, Date.now());
      try {
        // An actor call on a stopping cluster can wait out its timeout and the routing retries: minutes.
        const outcome = await unlessAbortedOrLate(this.opts.recover(id), signal, this.opts.callTimeoutMs);
        if (outcome === 'abandoned') break;
        if (outcome === 'late') throw new Error(`recover did not answer within ${this.opts.callTimeoutMs} ms`);
        recovered++;
        failedInRow = 0;
      } catch (err) {
        failed++;
        failedInRow++;
        this.opts.log.warn({ err, workflowId: id }, 'recovery of an execution failed; the next scan retries');
        if (failedInRow >= this.opts.maxConsecutiveFailures) {
          this.opts.log.warn({ failedInRow }, 'recover calls keep failing here: recovery scan lease given up for another replica');
          await this.opts.lease.release().catch(() => undefined);
          this.gaveUp = true;
          break;
        }
      }
    }
    if (recovered + failed > 0) this.opts.log.info({ recovered, failed }, 'recovery scan done');
    return recovered;
  }
}
