/** Readings of another process from the text of /proc/<pid>/status and /proc/<pid>/stat (parsing only). */

export interface MemoryReading {
  rssKb: number;
  /** Peak RSS the kernel has seen for the process (VmHWM). */
  hwmKb: number;
}

export function parseProcStatus(text: string): MemoryReading {
  const field = (name: string): number => {
    const m = new RegExp(`^${name}:\\s+(\\d+)\\s+kB`, 'm').exec(text);
    if (!m) throw new Error(`no ${name} in /proc status`);
    return Number(m[1]);
  };
  return { rssKb: field('VmRSS'), hwmKb: field('VmHWM') };
}

/** User plus system CPU time in clock ticks; fields 14 and 15, counted after the parenthesised command name. */
export function parseProcStatCpuTicks(text: string): number {
  const close = text.lastIndexOf(')');
  if (close < 0) throw new Error('malformed /proc stat');
  const rest = text.slice(close + 2).split(' ');
  // rest[0] is field 3 (state), so field n is rest[n - 3]
  const utime = Number(rest[11]);
  const stime = Number(rest[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) throw new Error('malformed /proc stat');
  return utime + stime;
}

export const kbToMb = (kb: number): number => Math.round((kb / 1024) * 10) / 10;
