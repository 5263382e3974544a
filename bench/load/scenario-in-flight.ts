import { BatonSession } from './baton-session';
import type { InFlightResult, LoadCommand } from './protocol';
import { Emit, every, sleep } from './scenario-kit';

export type InFlightArgs = Omit<Extract<LoadCommand, { kind: 'in-flight' }>, 'kind'>;

/**
 * Backlog: `level` workflows are started while no worker polls, so they all wait in flight; then the
 * workers start and the run measures how fast, and with what latencies, the server drains them.
 */
export async function runInFlight(a: InFlightArgs, emit: Emit): Promise<InFlightResult> {
  const s = await BatonSession.open(a.baseUrl, a.shape, a.settings);
  const deadline = performance.now() + a.timeoutMs;
  const stopProgress = every(1000, () =>
    emit('progress', { started: s.counters.workflowsStarted, completedWorkflows: s.counters.workflowsCompleted, errors: s.errors.count }),
  );
  try {
    let toStart = a.level;
    const prestartAt = performance.now();
    const starter = async (): Promise<void> => {
      while (toStart > 0 && performance.now() < deadline) {
        toStart--;
        if (!(await s.startOne())) {
          toStart++;
          await sleep(50);
        }
      }
    };
    await Promise.all(Array.from({ length: a.settings.starters }, starter));
    const prestartSeconds = (performance.now() - prestartAt) / 1000;
    const startLatencyMs = s.startLatency.summary();
    emit('prestarted', { started: s.counters.workflowsStarted });

    const drainAt = performance.now();
    s.startWorkers();
    while (s.counters.workflowsCompleted < s.counters.workflowsStarted && performance.now() < deadline) await sleep(50);
    const drainSeconds = (performance.now() - drainAt) / 1000;
    emit('drained', { completedWorkflows: s.counters.workflowsCompleted });
    await s.stopWorkers();
    return {
      shape: a.shape,
      level: a.level,
      prestartSeconds: Math.round(prestartSeconds * 100) / 100,
      startsPerSecond: Math.round((s.counters.workflowsStarted / prestartSeconds) * 10) / 10,
      startLatencyMs,
      drainSeconds: Math.round(drainSeconds * 100) / 100,
      drained: s.counters.workflowsCompleted,
      tasksPerSecond: Math.round((s.counters.tasksCompleted / drainSeconds) * 10) / 10,
      workflowsPerSecond: Math.round((s.counters.workflowsCompleted / drainSeconds) * 10) / 10,
      updateLatencyMs: s.updateLatency.summary(),
      scheduleToPollMs: s.scheduleToPoll.summary(),
      errors: s.errors,
    };
  } finally {
    stopProgress();
    await s.close();
  }
}
