import type { Logger } from 'pino';
import { abortableSleep, MAX_TIMER_MS, PeriodicLoop } from '../lib/periodic-loop';

/** Who runs the scan now: one replica of a cluster at a time (a lease with a time limit). */
export interface ScanLease {
  /** True when this replica holds the lease for `ttlMs` from now (taken or renewed). */
  acquire(ttlMs: number): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Which replicas are alive: each marks itself every tick. A replica that dies (killed, its pod force-deleted)
 * stops marking, and the deadlines it held in memory are lost until a recovery pass re-arms them.
 */
export interface ReplicaRoster {
  /** Marks this replica alive for `ttlMs` from now. */
  beat(ttlMs: number): Promise<void>;
  /** Replicas whose mark ran out since anyone last asked, each answered to one caller only. */
  departed(): Promise<string[]>;
}

export interface RecoveryScanOptions {
  /** Open executions and those with an unfinished outbox. */
  ids: () => AsyncIterable<string>;
  /** The execution's recover call: re-pushes its SCHEDULED tasks, re-arms its deadline, re-runs its outbox. */
  recover: (workflowId: string) => Promise<void>;
  lease: ScanLease;
  /** Absent: a replica that dies is noticed only by the next periodic pass. */
  roster?: ReplicaRoster;
  /** A full pass this often at least. */
  intervalMs: number;
  /**
   * How often every replica marks itself alive and the holder renews the lease (held for three ticks) and looks
   * for replicas that left; the others try to take the lease as often. Default 5 s; never longer than the interval.
   */
  tickMs?: number;
  /** Executions recovered per second at most, so a scan never activates everything at once. */
  ratePerSecond: number;
  /** Recover calls in flight at once (default 1): a call a sidecar holds does not hold the pass up with it. */
  concurrency?: number;
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

async function* listed(ids: string[]): AsyncIterable<string> {
  yield* ids;
}

/**
 * Periodic, paced recovery of every open execution by one replica of the cluster. It replaces a
 * per-execution sweep reminder (which kept every open execution active forever) and the start-up
 * pass of every replica (which activated every open execution at once): reminders lost to failed
 * deliveries come back, pushes lost to a crash reach their queue, outboxes finish. A pass runs every
 * interval, and at once when the lease changes hands or a replica stops marking itself alive: the
 * deadlines a dead replica held in memory come back within a few ticks, not an interval or two.
 */
export class RecoveryScan {
  private readonly loop: PeriodicLoop;
  private readonly tickMs: number;
  private held = false;
  /** A full pass is owed at the next chance: the lease was taken over, or a replica left. */
  private passDue = false;
  private lastPassAt = -Infinity;
  /** Gave the lease up after failing calls: no taking it back before this moment, so another replica takes over. */
  private sitOutUntil = 0;
  /** Executions whose recover call failed in the last full pass: asked once more at the next tick. */
  private readonly retry = new Set<string>();
  /** The pass running now, beside the ticks: a pass held up by slow calls never holds up the lease's renewal. */
  private passing?: Promise<unknown>;
  /** Another replica took the lease while a pass ran: the pass ends. */
  private lostLease = false;
  private nextPass?: NodeJS.Timeout;

  constructor(private readonly opts: RecoveryScanOptions) {
    this.tickMs = Math.min(opts.tickMs ?? 5000, opts.intervalMs);
    this.loop = new PeriodicLoop({
      intervalMs: this.tickMs,
      jitterFirst: true,
      round: (signal) => this.tick(signal),
      onError: (err) => opts.log.warn({ err }, 'recovery scan failed; next try in a tick'),
    });
  }

  /**
   * Marks this replica alive once, before it takes any actor: its first tick comes up to a tick later, and a
   * replica that died before that tick would never be seen leaving, its actors' in-memory deadlines lost until
   * the next periodic pass.
   */
  async join(): Promise<void> {
    await this.opts.roster?.beat(this.leaseMs);
  }

  start(): void {
    this.loop.start();
  }

  /** Ends at once: an in-flight recover call is abandoned (it is idempotent; the next scan repeats it), not awaited. */
  async stop(): Promise<void> {
    await this.loop.stop();
    clearTimeout(this.nextPass);
    await this.passing;
    await this.opts.lease.release().catch(() => undefined);
  }

  private get leaseMs(): number {
    return this.tickMs * 3;
  }

  private async tick(signal: AbortSignal): Promise<void> {
    if (Date.now() < this.sitOutUntil) {
      await this.opts.roster?.beat(this.leaseMs);
      return;
    }
    if (await this.heartbeat()) this.maybePass(signal);
  }

  /** Starts a pass when one is due (a full one, else the retries) and none runs; else arms the next full one. */
  private maybePass(signal: AbortSignal): void {
    if (!this.held || this.passing || signal.aborted) return;
    let pass: (() => Promise<number>) | undefined;
    if (this.passDue || Date.now() - this.lastPassAt >= this.opts.intervalMs) pass = () => this.scanOnce(signal);
    else if (this.retry.size > 0) {
      const again = [...this.retry];
      this.retry.clear();
      pass = () => this.pass(listed(again), signal, false);
    }
    if (!pass) return this.armNextPass(signal);
    this.passing = pass()
      .catch((err: unknown) => this.opts.log.warn({ err }, 'recovery pass failed; next try in a tick'))
      .finally(() => {
        this.passing = undefined;
        this.armNextPass(signal);
      });
  }

  /** Full passes an interval apart from start to start (back to back when one outlasts it), not at the tick after. */
  private armNextPass(signal: AbortSignal): void {
    clearTimeout(this.nextPass);
    if (signal.aborted) return;
    this.nextPass = setTimeout(() => this.maybePass(signal), Math.min(MAX_TIMER_MS, Math.max(0, this.lastPassAt + this.opts.intervalMs - Date.now())));
    this.nextPass.unref();
  }

  /**
   * Every tick, in a pass or not: marks this replica alive and renews or takes the lease; the holder looks for
   * replicas that left. False when another replica holds the lease.
   */
  private async heartbeat(): Promise<boolean> {
    const { roster, lease, log } = this.opts;
    await roster?.beat(this.leaseMs);
    const was = this.held;
    this.held = await lease.acquire(this.leaseMs);
    if (!this.held) {
      if (was) this.lostLease = true;
      return false;
    }
    if (!was) this.passDue = true; // the last holder may have died mid-pass, with its own deadlines
    const gone = (await roster?.departed()) ?? [];
    if (gone.length > 0) {
      log.info({ departed: gone }, 'replicas stopped marking themselves alive: a recovery pass of what they held');
      this.passDue = true;
    }
    return true;
  }

  /** One pass over every open execution, `ratePerSecond` at most. */
  async scanOnce(signal: AbortSignal = new AbortController().signal): Promise<number> {
    this.passDue = false;
    this.lastPassAt = Date.now();
    this.retry.clear();
    return this.pass(this.opts.ids(), signal, true);
  }

  private async pass(ids: AsyncIterable<string>, signal: AbortSignal, keepFailures: boolean): Promise<number> {
    const { opts } = this;
    const gapMs = 1000 / opts.ratePerSecond;
    const started = Date.now();
    let recovered = 0;
    let failed = 0;
    let failedInRow = 0;
    let gaveUp = false;
    let next = Date.now();
    this.lostLease = false;
    const inFlight = new Set<Promise<void>>();
    const one = async (id: string): Promise<void> => {
      try {
        // An actor call on a stopping cluster can wait out its timeout and the routing retries: minutes.
        const outcome = await unlessAbortedOrLate(opts.recover(id), signal, opts.callTimeoutMs);
        if (outcome === 'abandoned') return;
        if (outcome === 'late') throw new Error(`recover did not answer within ${opts.callTimeoutMs} ms`);
        recovered++;
        failedInRow = 0;
      } catch (err) {
        failed++;
        failedInRow++;
        if (keepFailures) this.retry.add(id);
        opts.log.warn({ err, workflowId: id }, 'recovery of an execution failed; retried at the next tick or pass');
        if (failedInRow >= opts.maxConsecutiveFailures) gaveUp = true;
      }
    };
    for await (const id of ids) {
      if (signal.aborted || gaveUp || this.lostLease) break; // lostLease: another replica took over
      const wait = next - Date.now();
      if (wait > 0) await abortableSleep(wait, signal);
      if (signal.aborted) break;
      next = Math.max(next + gapMs, Date.now());
      const call: Promise<void> = one(id).finally(() => inFlight.delete(call));
      inFlight.add(call);
      if (inFlight.size >= (opts.concurrency ?? 1)) await Promise.race(inFlight);
    }
    await Promise.all(inFlight);
    if (gaveUp) {
      opts.log.warn({ failedInRow }, 'recover calls keep failing here: recovery scan lease given up for another replica');
      await opts.lease.release().catch(() => undefined);
      this.held = false;
      this.retry.clear();
      this.sitOutUntil = Date.now() + opts.intervalMs;
    }
    if (recovered + failed > 0) opts.log.info({ recovered, failed, tookMs: Date.now() - started }, 'recovery scan done');
    return recovered;
  }
}
