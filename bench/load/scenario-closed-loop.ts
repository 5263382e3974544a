import { BatonSession } from './baton-session';
import type { LoadCommand, ThroughputResult } from './protocol';
import { Emit, every, measureWindow, sleep, SlotQueue } from './scenario-kit';

export type ClosedLoopArgs = Omit<Extract<LoadCommand, { kind: 'closed-loop' }>, 'kind'>;

/**
 * Maximum rate: `inFlightWorkflows` workflows are kept running (a new one starts when the workers finish
 * one), workers poll and report as fast as the server answers. Measured over a window after a warm-up.
 */
export async function runClosedLoop(a: ClosedLoopArgs, emit: Emit): Promise<ThroughputResult> {
  const s = await BatonSession.open(a.baseUrl, a.shape, a.settings, a.useUpdateV2);
  const admission = new SlotQueue();
  let active = 0;
  let starting = true;
  s.onWorkflowCompleted = () => {
    active--;
    admission.releaseOne();
  };
  const starter = async (): Promise<void> => {
    while (starting) {
      if (active >= a.inFlightWorkflows) {
        await admission.wait();
        continue;
      }
      active++;
      if (!(await s.startOne())) {
        active--;
        await sleep(50);
      }
    }
  };
  s.startWorkers();
  const starters = Array.from({ length: a.settings.starters }, starter);
  const stopProgress = every(1000, () =>
    emit('progress', { completedWorkflows: s.counters.workflowsCompleted, tasksCompleted: s.counters.tasksCompleted, errors: s.errors.count }),
  );
  try {
    await sleep(a.timing.warmupMs);
    const { rates: r, loadProcessCpuCores } = await measureWindow(s, a.timing.windowMs, emit);
    const startLatencyMs = s.startLatency.summary();
    const updateLatencyMs = s.updateLatency.summary();
    const scheduleToPollMs = s.scheduleToPoll.summary();
    const polls = r.polls ?? 0;

    let soakSeconds: number | null = null;
    if (a.soakWorkflows > 0) {
      const soakStart = performance.now();
      const deadline = soakStart + a.soakTimeoutMs;
      while (s.counters.workflowsCompleted < a.soakWorkflows && performance.now() < deadline) await sleep(200);
      soakSeconds = Math.round((performance.now() - soakStart) / 100) / 10;
    }
    starting = false;
    admission.releaseAll();
    await Promise.all(starters);
    await s.stopWorkers();
    const totalWorkflowsCompleted = s.counters.workflowsCompleted;
    emit('drained', { completedWorkflows: totalWorkflowsCompleted });
    const verification = await s.verify();
    return {
      shape: a.shape,
      useUpdateV2: a.useUpdateV2,
      inFlightWorkflows: a.inFlightWorkflows,
      tasksPerSecond: r.tasksCompleted ?? 0,
      workflowsPerSecond: r.workflowsCompleted ?? 0,
      startsPerSecond: r.workflowsStarted ?? 0,
      httpRequestsPerSecond: r.requests ?? 0,
      pollsPerSecond: Math.round(polls * 10) / 10,
      tasksPerPoll: polls > 0 ? Math.round(((r.tasksPolled ?? 0) / polls) * 100) / 100 : 0,
      startLatencyMs,
      updateLatencyMs,
      scheduleToPollMs,
      loadProcessCpuCores,
      totalWorkflowsCompleted,
      soakSeconds,
      errors: s.errors,
      verification,
    };
  } finally {
    stopProgress();
    starting = false;
    admission.releaseAll();
    await s.close();
  }
}
