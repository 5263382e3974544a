/** The scale-out phase's windows (1, 2, 3 replicas on the same engines) judged: where adding a replica stops paying and what was busy then (pure). */
import { cpuMsPerTask } from '../stats/rates';

/** One closed-loop window with `replicas` replicas, each beside its own daprd. */
export interface ScaleOutWindow {
  replicas: number;
  tasksPerSecond: number;
  /** CPU cores per group in the window: batonReplicas, daprdPlacementSchedulerRedis, cassandra, elasticsearch. */
  cpuCoresByGroup: Record<string, number | null>;
  /** The load process (workers and starters) in the same window. */
  loadProcessCpuCores: number | null;
  /** The whole machine's busy cores in the window (/proc/stat), other work on it included. */
  machineBusyCores?: number | null;
  /** Per task in the window: round trips to daprd, Cassandra requests, Redis commands (the code's, whatever the load). */
  sidecarCallsPerTask?: number | null;
  cassandraRequestsPerTask?: number | null;
  redisCommandsPerTask?: number | null;
  errors: number;
}

export interface ScaleOutPoint extends ScaleOutWindow {
  /** Tasks per CPU-second of the replicas together: flat across counts means the replicas scale. */
  tasksPerReplicaCpuSecond: number | null;
  replicaCpuMsPerTask: number | null;
  /** tasksPerSecond ÷ the one-replica window's. */
  speedup: number | null;
}

export interface ScaleOutVerdict {
  /** The most replicas up to which each added one paid (at least half its ideal gain). */
  scalesTo: number;
  /** The first count whose added replica did not pay, or null when every one did. */
  stopsAt: number | null;
  /** What the CPU readings of that window (or the last) say about why, one line. */
  reason: string;
}

export interface ScaleOutFigures {
  points: ScaleOutPoint[];
  verdict: ScaleOutVerdict | null;
  machineCores: number;
  /** Why the phase ended before three replicas, when it did. */
  error?: string;
}

const GROUP_LABEL: Record<string, string> = {
  batonReplicas: 'replicas',
  daprdPlacementSchedulerRedis: 'daprd+placement+scheduler+Redis',
  cassandra: 'Cassandra',
  elasticsearch: 'Elasticsearch',
  loadProcess: 'load process',
};

const round = (n: number, digits: number): number => Math.round(n * 10 ** digits) / 10 ** digits;

export function scaleOutPoints(windows: readonly ScaleOutWindow[]): ScaleOutPoint[] {
  const one = windows.find((w) => w.replicas === 1);
  return windows.map((w) => {
    const cores = w.cpuCoresByGroup.batonReplicas;
    return {
      ...w,
      tasksPerReplicaCpuSecond: cores != null && cores > 0 ? Math.round(w.tasksPerSecond / cores) : null,
      replicaCpuMsPerTask: cpuMsPerTask(cores, w.tasksPerSecond),
      speedup: one && one.tasksPerSecond > 0 ? round(w.tasksPerSecond / one.tasksPerSecond, 2) : null,
    };
  });
}

/**
 * A replica added to `n` pays when the rate grows by at least half of the ideal `(n+1)/n`; the reason
 * names how many of the machine's cores the measured processes kept busy and the largest of them.
 */
export function judgeScaleOut(points: readonly ScaleOutPoint[], machineCores: number): ScaleOutVerdict | null {
  const sorted = [...points].sort((a, b) => a.replicas - b.replicas);
  const first = sorted[0];
  if (!first) return null;
  let scalesTo = first.replicas;
  let stopsAt: number | null = null;
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1] as ScaleOutPoint;
    const cur = sorted[i] as ScaleOutPoint;
    const wanted = 1 + ((cur.replicas - prev.replicas) / prev.replicas) * 0.5;
    if (prev.tasksPerSecond > 0 && cur.tasksPerSecond / prev.tasksPerSecond >= wanted) scalesTo = cur.replicas;
    else {
      stopsAt = cur.replicas;
      break;
    }
  }
  const at = sorted.find((p) => p.replicas === (stopsAt ?? scalesTo)) as ScaleOutPoint;
  const parts: [string, number][] = Object.entries({ ...at.cpuCoresByGroup, loadProcess: at.loadProcessCpuCores })
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .sort((a, b) => b[1] - a[1]);
  const busy = round(
    parts.reduce((s, [, v]) => s + v, 0),
    2,
  );
  const list = parts.map(([k, v]) => `${GROUP_LABEL[k] ?? k} ${v.toFixed(2)}`).join(', ');
  const perCpu = (p: ScaleOutPoint): string => (p.tasksPerReplicaCpuSecond == null ? '–' : String(p.tasksPerReplicaCpuSecond));
  const flat = `tasks per replica CPU-second ${sorted.map(perCpu).join(' → ')} over ${sorted.map((p) => p.replicas).join('/')} replicas`;
  const machine = at.machineBusyCores;
  const others = machine == null ? null : round(Math.max(0, machine - busy), 2);
  const saturated = (machine ?? busy) >= 0.85 * machineCores;
  const measured = `${busy} cores measured: ${list}`;
  const where =
    machine == null
      ? saturated
        ? `the machine's ${machineCores} cores are busy (${measured})`
        : `${busy} of the machine's ${machineCores} cores busy (${list})`
      : `${saturated ? `the machine's ${machineCores} cores are busy` : `${machine} of the machine's ${machineCores} cores busy`} (${machine} busy: ${measured}; other processes on the machine ${others})`;
  const head =
    stopsAt === null
      ? `scales to ${scalesTo} replicas (×${at.speedup ?? '–'} of one)`
      : `stops at ${stopsAt} replicas (×${at.speedup ?? '–'} of one; the added replica brought less than half its share)`;
  return { scalesTo, stopsAt, reason: `${head}: ${where}; ${flat}` };
}
