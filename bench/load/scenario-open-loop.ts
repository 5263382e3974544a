import { LatencyRecorder } from '../stats/percentiles';
import { BatonSession } from './baton-session';
import type { LatencyResult, LoadCommand } from './protocol';
import { intendedOffsetMs, startsDue } from './open-loop-schedule';
import { Emit, every, measureWindow, sleep } from './scenario-kit';

export type OpenLoopArgs = Omit<Extract<LoadCommand, { kind: 'open-loop' }>, 'kind'>;

/** Starts beyond this many unanswered are skipped and counted: the server is not keeping up with the rate. */
const MAX_OUTSTANDING_STARTS = 2000;
/** Longest wait after the warm-up for the backlog of a cold server to drain before the window opens. */
const MAX_SETTLE_MS = 5000;

/**
 * Latency at a fixed load: workflows start on a fixed schedule whatever the server does (open loop), so a
 * slow answer delays nothing else; start latency counts from the scheduled instant (no coordinated omission).
 */
export async function runOpenLoop(a: OpenLoopArgs, emit: Emit): Promise<LatencyResult> {
  const s = await BatonSession.open(a.baseUrl, a.shape, a.settings);
  const serviceTime = new LatencyRecorder();
  let outstanding = 0;
  let skipped = 0;
  let issued = 0;
  const t0 = performance.now();
  // a cold server gets the rate gradually (JIT, connections), over two thirds of the warm-up
  const rampMs = (a.timing.warmupMs * 2) / 3;
  const issueDue = (): void => {
    const due = startsDue(performance.now() - t0, a.ratePerSecond, rampMs);
    while (issued < due) {
      const intendedAt = t0 + intendedOffsetMs(issued, a.ratePerSecond, rampMs);
      issued++;
      if (outstanding >= MAX_OUTSTANDING_STARTS) {
        skipped++;
        continue;
      }
      outstanding++;
      const sentAt = performance.now();
      void s.startOne(intendedAt).then((ok) => {
        outstanding--;
        if (ok) serviceTime.record(performance.now() - sentAt);
      });
    }
  };
  s.startWorkers();
  const stopTicker = every(2, issueDue);
  const stopProgress = every(1000, () => emit('progress', { completedWorkflows: s.counters.workflowsCompleted, errors: s.errors.count }));
  try {
    await sleep(a.timing.warmupMs);
    // open the window once the workflows in flight are down to what the rate itself keeps in flight
    const settleUntil = performance.now() + MAX_SETTLE_MS;
    const steadyInFlight = a.ratePerSecond * 0.05 + a.settings.concurrencyPerType * s.shape.taskTypes.length;
    while (s.counters.workflowsStarted - s.counters.workflowsCompleted > steadyInFlight && performance.now() < settleUntil) await sleep(20);
    const backlogAtWindowStart = s.counters.workflowsStarted - s.counters.workflowsCompleted;
    let skippedBefore = 0;
    const { rates: r, loadProcessCpuCores } = await measureWindow(s, a.timing.windowMs, emit, () => {
      serviceTime.reset();
      skippedBefore = skipped;
    });
    return {
      shape: a.shape,
      targetStartsPerSecond: a.ratePerSecond,
      achievedStartsPerSecond: r.workflowsStarted ?? 0,
      tasksPerSecond: r.tasksCompleted ?? 0,
      workflowsPerSecond: r.workflowsCompleted ?? 0,
      startsSkipped: skipped - skippedBefore,
      pollsPerSecond: r.polls ?? 0,
      tasksPerPoll: r.polls ? Math.round(((r.tasksPolled ?? 0) / r.polls) * 100) / 100 : 0,
      backlogAtWindowStart,
      startLatencyMs: s.startLatency.summary(),
      startServiceTimeMs: serviceTime.summary(),
      updateLatencyMs: s.updateLatency.summary(),
      scheduleToPollMs: s.scheduleToPoll.summary(),
      loadProcessCpuCores,
      errors: s.errors,
    };
  } finally {
    stopTicker();
    stopProgress();
    const deadline = performance.now() + 30_000;
    while (outstanding > 0 && performance.now() < deadline) await sleep(20);
    await s.close();
  }
}
