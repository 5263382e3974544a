/** Longest delay a Node timer takes; a longer one fires at once. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Resolves after `ms`, or at once when `signal` aborts or already has (an aborted signal fires no more events). */
export const abortableSleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = (): void => {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });

export interface PeriodicLoopOptions {
  intervalMs: number;
  /** One round of work. */
  round(signal: AbortSignal): Promise<void>;
  /** Asked after every round, thrown or not: extra milliseconds before the next one (a replica sitting one out). */
  extraWaitMs?(): number;
  /** A round that threw: logged by the owner, the loop goes on at the next interval. */
  onError(err: unknown): void;
  /** Runs after the last round, once stop() aborted the loop (a lease given back). */
  afterStop?(): Promise<void>;
  /** Starts at a random point of the first interval (at most 5 s), so replicas started together do not collide. */
  jitterFirst?: boolean;
  now?: () => number;
}

/** A round of work per interval until stopped: the recovery scan, the retention purge and the batch runner each run one. */
export class PeriodicLoop {
  private readonly abort = new AbortController();
  private loop?: Promise<void>;

  constructor(private readonly opts: PeriodicLoopOptions) {}

  start(): void {
    this.loop ??= this.run();
  }

  /** Aborts the loop (a round sees its signal aborted) and waits for it to end. */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    await this.opts.afterStop?.().catch(() => undefined);
  }

  private async run(): Promise<void> {
    const { signal } = this.abort;
    const now = this.opts.now ?? Date.now;
    if (this.opts.jitterFirst) await abortableSleep(Math.random() * Math.min(this.opts.intervalMs, 5000), signal);
    while (!signal.aborted) {
      const started = now();
      try {
        await this.opts.round(signal);
      } catch (err) {
        this.opts.onError(err);
      }
      await abortableSleep(Math.max(0, this.opts.intervalMs - (now() - started)) + (this.opts.extraWaitMs?.() ?? 0), signal);
    }
  }
}
