import { afterProbe, isWedged, NO_FAILURES, type LivenessPolicy, type ProbeHistory } from '../liveness';

export interface SelfProbeOptions {
  /** One actor call through this replica's sidecar, failing on a timeout of its own. */
  probe: () => Promise<unknown>;
  policy: LivenessPolicy;
  intervalMs: number;
  now: () => number;
  log: { warn(o: object, m: string): void; error(o: object, m: string): void };
}

/**
 * Probes this replica's path to its actors every `intervalMs` while it serves (not while starting
 * or draining) and says whether it is wedged: daprd can hold every actor call of a replica it keeps
 * registered, which no other check sees.
 */
export class SelfProbe {
  private history: ProbeHistory = NO_FAILURES;
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(private readonly opts: SelfProbeOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.schedule();
  }

  /** Stops probing and forgets past failures (a draining or stopped replica is not wedged). */
  pause(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.history = NO_FAILURES;
  }

  /** One probe, its outcome recorded. */
  async tick(): Promise<void> {
    let ok = true;
    try {
      await this.opts.probe();
    } catch (err) {
      ok = false;
      this.opts.log.warn({ err, consecutiveFailures: this.history.consecutiveFailures + 1 }, 'actor self-probe failed');
    }
    if (!this.running) return; // paused meanwhile
    const wasWedged = this.wedged();
    this.history = afterProbe(this.history, ok, this.opts.now());
    if (!wasWedged && this.wedged()) this.opts.log.error({ history: this.history }, 'actor calls through this sidecar keep failing: liveness check red');
  }

  wedged(): boolean {
    return isWedged(this.history, this.opts.policy);
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      void this.tick().finally(() => {
        if (this.running) this.schedule();
      });
    }, this.opts.intervalMs);
    this.timer.unref();
  }
}
