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

/** The whole machine's busy and total CPU ticks from /proc/stat's first line (idle and iowait are not busy). */
export function parseMachineCpuTicks(text: string): { busy: number; total: number } {
  const m = /^cpu\s+([\d\s]+)$/m.exec(text);
  if (!m) throw new Error('no cpu line in /proc/stat');
  // user nice system idle iowait irq softirq steal (guest time is already in user)
  const f = (m[1] as string).trim().split(/\s+/).slice(0, 8).map(Number);
  const total = f.reduce((a, x) => a + x, 0);
  return { busy: total - (f[3] ?? 0) - (f[4] ?? 0), total };
}
