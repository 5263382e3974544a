import type { Logger } from 'pino';
import type { BatchAction, BatchRecord } from '../model/batch';
import type { ScanLease } from '../services/recovery-scan';
import type { BatchStore } from '../store/batch-store';
import { cancel, claimNext, INTERRUPTED, isOpen, settle } from './batch-progress';
import { PeriodicLoop } from '../lib/periodic-loop';

export interface BatchRunnerOptions {
  store: BatchStore;
  /** Acts on one execution (the bulk routes' actions: src/services/execution-actions.ts). */
  act: (action: BatchAction, workflowId: string, reason: string | undefined) => Promise<unknown>;
  /** One replica of a cluster runs batches at a time. */
  lease: ScanLease;
  intervalMs: number;
  /** How long the lease lasts unless renewed (before each execution): another replica takes over within it. */
  leaseTtlMs: number;
  /** Executions acted on per interval at most, over every open batch. */
  budget: number;
  now: () => number;
  log: Pick<Logger, 'info' | 'warn'>;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * Runs open batches, oldest first, a budget of executions per interval. Each id is claimed in the store before its
 * action and settled after it: a claim found on a (re)start is reported failed, never acted on again.
 */
export class BatchRunner {
  private readonly loop: PeriodicLoop;

  constructor(private readonly opts: BatchRunnerOptions) {
    this.loop = new PeriodicLoop({
      intervalMs: opts.intervalMs,
      now: opts.now,
      round: async (signal) => void (await this.runOnce(signal)),
      onError: (err) => opts.log.warn({ err }, 'batch run failed; next one in an interval'),
      afterStop: () => opts.lease.release(),
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Stops between items: the action under way finishes and is recorded first. */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One interval's work: answers how many executions it acted on. */
  async runOnce(signal: AbortSignal = new AbortController().signal): Promise<number> {
    if (!(await this.holdLease())) return 0;
    let acted = 0;
    const open = (await this.opts.store.list()).filter(isOpen).reverse();
    for (const found of open) {
      let b = found.acting === null ? found : await this.interrupted(found);
      while (acted < this.opts.budget && !signal.aborted && isOpen(b)) {
        if ((await this.opts.store.get(b.id))?.cancelRequested) {
          b = cancel(b, this.opts.now());
          await this.opts.store.saveProgress(b);
          break;
        }
        const claimed = claimNext(b);
        if (!claimed || !(await this.holdLease())) break;
        const settled = await this.actOn(claimed);
        acted++;
        if (!settled) return acted; // the lease went to another replica mid-action
        b = settled;
      }
      if (acted >= this.opts.budget || signal.aborted) break;
    }
    return acted;
  }

  private holdLease(): Promise<boolean> {
    return this.opts.lease.acquire(this.opts.leaseTtlMs);
  }

  /** Acts on the claimed id and records its outcome; undefined (nothing recorded) when the lease was lost meanwhile. */
  private async actOn(claimed: BatchRecord): Promise<BatchRecord | undefined> {
    const { store } = this.opts;
    const seq = claimed.acting!;
    await store.saveProgress(claimed);
    const workflowId = await store.workflowIdAt(claimed.id, seq);
    let ok = true;
    let failure: string | undefined;
    try {
      if (workflowId === undefined) throw new Error(`no execution numbered ${seq} in the batch's snapshot`);
      await this.opts.act(claimed.action, workflowId, claimed.reason);
    } catch (e) {
      ok = false;
      failure = messageOf(e);
    }
    // The replica holding the lease now may have reported this claim already: a stale write would move its cursor back.
    if (!(await this.holdLease())) return undefined;
    if (failure !== undefined) await store.addFailure(claimed.id, seq, { workflowId: workflowId ?? '', reason: failure });
    const settled = settle(claimed, ok, this.opts.now());
    await store.saveProgress(settled);
    return settled;
  }

  /** The id claimed when the last runner stopped: its action may or may not have run, so it is reported, not repeated. */
  private async interrupted(b: BatchRecord): Promise<BatchRecord> {
    const seq = b.acting!;
    const workflowId = (await this.opts.store.workflowIdAt(b.id, seq)) ?? '';
    this.opts.log.warn({ batchId: b.id, workflowId }, 'batch resumed after a stop mid-action; that execution is not acted on again');
    await this.opts.store.addFailure(b.id, seq, { workflowId, reason: INTERRUPTED });
    const settled = settle(b, false, this.opts.now());
    await this.opts.store.saveProgress(settled);
    return settled;
  }
}
