import { readdirSync, readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { kbToMb, parseProcStatCpuTicks, parseProcStatus } from '../stats/proc';

let ticksPerSecond: number | undefined;
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export interface ProcReading {
  atMs: number;
  rssMb: number;
  hwmMb: number;
  cpuSeconds: number;
}

/** Reads memory and CPU of a pid from /proc (the server itself is not asked). */
export function readProc(pid: number): ProcReading {
  const mem = parseProcStatus(readFileSync(`/proc/${pid}/status`, 'utf8'));
  const ticks = parseProcStatCpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  return { atMs: performance.now(), rssMb: kbToMb(mem.rssKb), hwmMb: kbToMb(mem.hwmKb), cpuSeconds: ticks / clockTicksPerSecond() };
}

/**
 * A process and all its descendants (from /proc/<pid>/task/<tid>/children), e.g. PostgreSQL's postmaster
 * and the backend it forks per connection, whose CPU is not in the postmaster's own /proc/<pid>/stat.
 */
export function processTree(pid: number): number[] {
  const out: number[] = [];
  const visit = (p: number): void => {
    out.push(p);
    let tids: string[];
    try {
      tids = readdirSync(`/proc/${p}/task`);
    } catch {
      return;
    }
    for (const tid of tids) {
      let text = '';
      try {
        text = readFileSync(`/proc/${p}/task/${tid}/children`, 'utf8');
      } catch {
        continue;
      }
      for (const child of text.split(/\s+/).filter(Boolean).map(Number)) if (!out.includes(child)) visit(child);
    }
  };
  visit(pid);
  return out;
}

/** Samples a pid on an interval and remembers the peak; stops when told or when the process is gone. */
export class ProcSampler {
  private timer: NodeJS.Timeout | undefined;
  peakRssMb = 0;
  last: ProcReading | undefined;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): this {
    this.sample();
    this.timer = setInterval(() => this.sample(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  sample(): ProcReading | undefined {
    try {
      const r = readProc(this.pid);
      this.last = r;
      this.peakRssMb = Math.max(this.peakRssMb, r.rssMb, r.hwmMb);
      return r;
    } catch {
      this.stop();
      return undefined;
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
