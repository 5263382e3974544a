import { RESTATE_HANDLER, RESTATE_SERVICE } from '../processes/restate-names';
import { LatencyRecorder } from '../stats/percentiles';
import { Pool } from 'undici';
import type { LoadCommand, RestateResult } from './protocol';
import { cpuMeter, Emit, every, sleep } from './scenario-kit';

export type RestateArgs = Omit<Extract<LoadCommand, { kind: 'restate' }>, 'kind'>;

/**
 * Restate at its maximum rate: `inFlightWorkflows` loops each invoke the durable 3-step handler through
 * restate-server's HTTP ingress (its unix socket) and wait for its answer (the invocation completed), then start the next.
 */
export async function runRestate(a: RestateArgs, emit: Emit): Promise<RestateResult> {
  const pool = new Pool('http://localhost', {
    socketPath: a.ingressSocket,
    connections: a.inFlightWorkflows,
    pipelining: 1,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
  });
  const latency = new LatencyRecorder();
  const errors = { count: 0, samples: [] as string[] };
  let completed = 0;
  let seq = 0;
  let running = true;
  const noteError = (e: unknown): void => {
    errors.count++;
    if (errors.samples.length < 5) errors.samples.push(e instanceof Error ? e.message.slice(0, 300) : String(e));
  };
  const loop = async (): Promise<void> => {
    while (running) {
      const n = ++seq;
      const t0 = performance.now();
      try {
        const res = await pool.request({
          method: 'POST',
          path: `/${RESTATE_SERVICE}/${RESTATE_HANDLER}`,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n }),
        });
        const body = (await res.body.json()) as { result?: unknown };
        if (res.statusCode !== 200 || body.result !== n) throw new Error(`invocation ${n}: HTTP ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
        completed++;
        latency.record(performance.now() - t0);
      } catch (e) {
        noteError(e);
        await sleep(100);
      }
    }
  };
  const stopProgress = every(1000, () => emit('progress', { completedWorkflows: completed, errors: errors.count }));
  const loops = Array.from({ length: a.inFlightWorkflows }, loop);
  try {
    const deadline = performance.now() + 60_000;
    while (completed === 0 && performance.now() < deadline) await sleep(100);
    if (completed === 0) throw new Error(`no Restate invocation completed within 60 s (errors: ${errors.samples.join('; ') || 'none'})`);
    await sleep(a.timing.warmupMs);
    const cpu = cpuMeter();
    latency.reset();
    const from = { completed, errors: errors.count, at: performance.now() };
    emit('window-start');
    await sleep(a.timing.windowMs);
    const seconds = (performance.now() - from.at) / 1000;
    const workflowsPerSecond = Math.round(((completed - from.completed) / seconds) * 10) / 10;
    const loadProcessCpuCores = cpu();
    emit('window-end');
    return {
      workflowsPerSecond,
      stepsPerSecond: Math.round(workflowsPerSecond * 3),
      inFlightWorkflows: a.inFlightWorkflows,
      completionLatencyMs: latency.summary(),
      loadProcessCpuCores,
      errors,
    };
  } finally {
    running = false;
    stopProgress();
    await Promise.race([Promise.all(loops), sleep(15_000)]);
    await pool.close().catch(() => undefined);
  }
}
