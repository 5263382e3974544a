import { ratesBetween, type CounterSnapshot } from '../stats/rates';
import type { LoadEventName } from './protocol';

/** Sends an event to the orchestrator (which reads the server's /proc figures at that moment). */
export type Emit = (name: LoadEventName, data?: Record<string, number | string>) => void;

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** CPU this process used since the meter was read last, in cores (1.0 = one core busy). */
export function cpuMeter(): () => number {
  let lastCpu = process.cpuUsage();
  let lastAt = performance.now();
  return () => {
    const cpu = process.cpuUsage(lastCpu);
    const now = performance.now();
    const cores = (cpu.user + cpu.system) / 1000 / Math.max(1, now - lastAt);
    lastCpu = process.cpuUsage();
    lastAt = now;
    return Math.round(cores * 100) / 100;
  };
}

/** Lets async loops wait for a slot that another callback hands back (closed-loop admission). */
export class SlotQueue {
  private waiters: (() => void)[] = [];

  wait(): Promise<void> {
    return new Promise((r) => this.waiters.push(r));
  }

  releaseOne(): void {
    this.waiters.shift()?.();
  }

  releaseAll(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const r of w) r();
  }
}

/** Calls `tick` every `everyMs` until the returned stop function is called. */
export function every(everyMs: number, tick: () => void): () => void {
  const t = setInterval(tick, everyMs);
  return () => clearInterval(t);
}

/**
 * The measured window: latencies restarted, `onOpen` run (a scenario's own resets), the counters read
 * from window-start to window-end, and this process's CPU over it. The orchestrator reads the server's
 * figures on the two events.
 */
export async function measureWindow(
  s: { snapshot(): CounterSnapshot; resetLatencies(): void },
  windowMs: number,
  emit: Emit,
  onOpen?: () => void,
): Promise<{ rates: Record<string, number>; loadProcessCpuCores: number }> {
  const cpu = cpuMeter();
  s.resetLatencies();
  onOpen?.();
  const from = s.snapshot();
  emit('window-start');
  await sleep(windowMs);
  const to = s.snapshot();
  const loadProcessCpuCores = cpu();
  emit('window-end');
  return { rates: ratesBetween(from, to), loadProcessCpuCores };
}

/**
 * Durable workflows at a peer's maximum rate: `inFlight` loops each run `one` (true when its workflow completed)
 * and start the next. The first completion proves the runtime connected; then the warm-up, then completions are
 * counted over the window with this process's CPU (`onWindowStart`: the scenario's latency resets).
 */
export async function closedLoopWorkflows(o: {
  peer: string;
  inFlight: number;
  timing: { warmupMs: number; windowMs: number };
  emit: Emit;
  one: () => Promise<boolean>;
  onWindowStart: () => void;
}): Promise<{ workflowsPerSecond: number; loadProcessCpuCores: number; errors: { count: number; samples: string[] } }> {
  const errors = { count: 0, samples: [] as string[] };
  let completed = 0;
  let running = true;
  const loop = async (): Promise<void> => {
    while (running) {
      try {
        if (await o.one()) completed++;
      } catch (e) {
        errors.count++;
        if (errors.samples.length < 5) errors.samples.push(e instanceof Error ? e.message.slice(0, 300) : String(e));
        await sleep(100);
      }
    }
  };
  const stopProgress = every(1000, () => o.emit('progress', { completedWorkflows: completed, errors: errors.count }));
  const loops = Array.from({ length: o.inFlight }, loop);
  try {
    const deadline = performance.now() + 60_000;
    while (completed === 0 && performance.now() < deadline) await sleep(100);
    if (completed === 0) throw new Error(`no ${o.peer} workflow completed within 60 s (errors: ${errors.samples.join('; ') || 'none'})`);
    await sleep(o.timing.warmupMs);
    const cpu = cpuMeter();
    o.onWindowStart();
    const from = { completed, at: performance.now() };
    o.emit('window-start');
    await sleep(o.timing.windowMs);
    const seconds = (performance.now() - from.at) / 1000;
    const workflowsPerSecond = Math.round(((completed - from.completed) / seconds) * 10) / 10;
    const loadProcessCpuCores = cpu();
    o.emit('window-end');
    return { workflowsPerSecond, loadProcessCpuCores, errors };
  } finally {
    running = false;
    stopProgress();
    await Promise.race([Promise.all(loops), sleep(15_000)]);
  }
}
