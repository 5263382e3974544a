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
