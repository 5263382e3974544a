/** Why a target of the distributed profile was missed, in one line, from what the run counted and profiled (pure). */
import type { HotFunction, HotModule } from '../stats/cpu-profile';
import type { DistributedFigures, Target } from './results';

/** What the reasons are read from: the run's distributed window, its profiles and the peers' CPU per task. */
export interface ReasonInputs {
  distributed?: DistributedFigures;
  profiles?: Record<string, HotFunction[]>;
  profileModules?: Record<string, HotModule[]>;
  distributedTasksPerSecond: number | null;
  baselineDistributedTasksPerSecond: number | null;
  daprWorkflowCpuMsPerActivity: number | null;
  conductorPgCpuMsPerTask: number | null;
  tasksPerSecond: number | null;
  conductorPgTasksPerSecond: number | null;
  embeddedCpuMsPerTask: number | null;
}

const f = (n: number | null | undefined, digits = 2): string => (n == null ? '–' : n.toFixed(digits));

/** The first `n` entries of a most-first record as `name value, …`. */
export const topOf = (r: Record<string, number | null>, n = 4, digits = 2): string =>
  Object.entries(r)
    .filter((e): e is [string, number] => typeof e[1] === 'number')
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${k} ${f(v, digits)}`)
    .join(', ');

const outbound = (d: Pick<DistributedFigures, 'sidecarCallsPerTaskByCategory'>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(d.sidecarCallsPerTaskByCategory)
      .filter(([k]) => k.startsWith('app→daprd '))
      .map(([k, v]) => [k.slice('app→daprd '.length), v]),
  );

/** The first replica's profile: self time by module when known, else its hottest functions; idle shown apart. */
function profileLine(profiles: Record<string, HotFunction[]> | undefined, modules: Record<string, HotModule[]> | undefined): string | undefined {
  const byModule = Object.entries(modules ?? {}).find(([k]) => k.startsWith('distributed replica'));
  if (byModule) {
    const [label, mods] = byModule;
    const idle = mods.find((m) => m.module === '(idle)');
    const busy = mods
      .filter((m) => m.module !== '(idle)')
      .slice(0, 5)
      .map((m) => `${m.module} ${f(m.selfPercent, 1)}%`)
      .join(', ');
    return `${label} self time by module: ${busy}${idle ? `; idle ${f(idle.selfPercent, 1)}%` : ''}`;
  }
  const entry = Object.entries(profiles ?? {}).find(([k]) => k.startsWith('distributed replica'));
  if (!entry) return undefined;
  const [label, hot] = entry;
  const idle = hot.find((h) => h.name === '(idle)');
  const busy = hot
    .filter((h) => h.name !== '(idle)')
    .slice(0, 4)
    .map((h) => `${h.name}${h.where ? ` (${h.where.replace(/:\d+$/, '')})` : ''} ${f(h.selfPercent, 1)}%`)
    .join(', ');
  return `${label} self time: ${busy}${idle ? `; idle ${f(idle.selfPercent, 1)}%` : ''}`;
}

export function reasonFor(name: string, x: ReasonInputs): string | undefined {
  const d = x.distributed;
  const s = d?.storeCallsPerTask;
  const io = d
    ? `per task ${f(d.sidecarCallsPerTask)} round trips to daprd and ${f(d.sidecarDeliveriesPerTask)} calls from it, ${f(s?.cassandra)} Cassandra requests, ${f(s?.redisCommands, 1)} Redis commands`
    : undefined;
  switch (name) {
    case 'sidecarCallsPerTask (distributed)':
      return d && `app→daprd per task: ${topOf(outbound(d))}`;
    case 'sidecarCallsPerTask (distributed, update-v2 workers)':
      return d?.updateV2 ? `app→daprd per task: ${topOf(outbound(d.updateV2))}` : undefined;
    case 'distributedReplicaCpuMsPerTask':
      return d && (profileLine(x.profiles, x.profileModules) ?? `${io}; no --profile in this run for the functions`);
    case 'distributedSidecarCpuMsPerTask':
      return d && `ms per task by process: ${topOf(d.sidecarCpuMsPerTaskByProcess ?? {})}; ${io}`;
    case 'redisCommandsPerTask':
      return d && `per task by command: ${topOf(d.redisCommandsPerTaskByName, 5)}`;
    case 'cassandraRequestsPerTask':
      return d && `per task by statement kind and table: ${topOf(d.cassandraRequestsPerTaskByTable, 5)}`;
    case 'cassandraLwtPerTask':
      return d && `${f(s?.cassandraLwt)} execution-store commits (one conditional batch each) per task`;
    case 'esDocumentsPerTask':
      return d && `per task by index: ${topOf(d.esDocumentsPerTaskByIndex)}; ${f(s?.esBulkRequests)} bulk requests`;
    case 'distributedTasksPerSecond vs the start commit':
      return x.baselineDistributedTasksPerSecond == null
        ? 'no --baseline: run the start commit back to back and pass its latest.json'
        : `${f(x.distributedTasksPerSecond, 0)} tasks/s here vs ${f(x.baselineDistributedTasksPerSecond, 0)} at the start commit`;
    case 'distributed CPU per task outside the databases vs Dapr Workflow per activity': {
      const by = d?.cpuMsPerTaskByGroup;
      return by
        ? `Baton replicas ${f(by.batonReplicas)} + daprd, placement, scheduler, Redis ${f(by.daprdPlacementSchedulerRedis)} ms per task vs Dapr Workflow ${f(x.daprWorkflowCpuMsPerActivity)} ms per activity (app + daprd + Redis)`
        : undefined;
    }
    case 'ratioToConductorPg (tasks/s)':
      return `embedded ${f(x.tasksPerSecond, 0)} tasks/s at ${f(x.embeddedCpuMsPerTask)} ms each vs Conductor on PostgreSQL ${f(x.conductorPgTasksPerSecond, 0)} tasks/s at ${f(x.conductorPgCpuMsPerTask)} ms (JVM + PostgreSQL)`;
    case 'distributed CPU per task vs Conductor on PostgreSQL':
      return d ? `ms per task: ${topOf(d.cpuMsPerTaskByGroup)} vs Conductor ${f(x.conductorPgCpuMsPerTask)} (JVM + PostgreSQL)` : undefined;
    default:
      return undefined;
  }
}

/** Each missed target with its reason; a target that could not be judged gets one where the run says why. */
export function withReasons(targets: readonly Target[], x: ReasonInputs): Target[] {
  return targets.map((t) => {
    if (t.met === true) return t;
    const reason = reasonFor(t.name, x);
    return reason ? { ...t, reason } : t;
  });
}
