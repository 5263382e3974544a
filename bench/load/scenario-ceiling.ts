import { LatencyRecorder } from '../stats/percentiles';
import { createPool } from './http-pool';
import type { CeilingResult, Timing } from './protocol';
import { cpuMeter, Emit, sleep } from './scenario-kit';

/** Closed loop of `inFlight` POSTs with a small JSON body against the trivial express app. */
export async function runCeiling(baseUrl: string, inFlight: number, timing: Timing, emit: Emit): Promise<CeilingResult> {
  const pool = createPool(baseUrl, inFlight);
  const latency = new LatencyRecorder();
  let done = 0;
  let errors = 0;
  let running = true;
  const body = JSON.stringify({ id: 'b7c1f0a2-0000-4000-8000-000000000000', status: 'COMPLETED', outputData: { v: 1 } });
  const loop = async (): Promise<void> => {
    while (running) {
      const t0 = performance.now();
      try {
        const res = await pool.request({ method: 'POST', path: '/echo', headers: { 'content-type': 'application/json' }, body });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
        done++;
        latency.record(performance.now() - t0);
      } catch {
        errors++;
        await sleep(10);
      }
    }
  };
  const loops = Array.from({ length: inFlight }, loop);
  await sleep(timing.warmupMs);
  const cpu = cpuMeter();
  latency.reset();
  const from = { done, at: performance.now() };
  emit('window-start');
  await sleep(timing.windowMs);
  const seconds = (performance.now() - from.at) / 1000;
  const requestsPerSecond = Math.round((done - from.done) / seconds);
  const loadProcessCpuCores = cpu();
  emit('window-end');
  running = false;
  await Promise.all(loops);
  await pool.close();
  return { requestsPerSecond, latencyMs: latency.summary(), errors, loadProcessCpuCores };
}
