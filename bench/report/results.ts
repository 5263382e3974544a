/** The run's figures to the JSON of bench/results/latest.json, with the targets judged (pure). */
import type { BullmqResult, CeilingResult, InFlightResult, LatencyResult, ThroughputResult } from '../load/protocol';
import { ratio } from '../stats/rates';
import type { HotFunction } from '../stats/cpu-profile';
import type { RssSample, RssTrend } from '../stats/rss-trend';

/** What the orchestrator read about the process under test during a phase's window. */
export interface ServerFigures {
  cpuCores: number | null;
  rssMbPeak: number | null;
}

export type Outcome<T> = { ok: true; result: T; server: ServerFigures } | { ok: false; error: string };

export interface InFlightFigures extends InFlightResult {
  rssMbWithBacklog: number | null;
  rssMbAfterDrain: number | null;
}

export interface Machine {
  cores: number;
  nodeVersion: string;
  cpuModel: string;
  totalMemoryMb: number;
  platform: string;
  loadAverageAtStart: number[];
}

export interface RunRecord {
  mode: 'quick' | 'full';
  startedAt: string;
  durationSeconds: number;
  machine: Machine;
  settings: Record<string, unknown>;
  ceiling?: Outcome<CeilingResult>;
  bullmq?: Outcome<BullmqResult>;
  simple3?: Outcome<ThroughputResult>;
  steps13?: Outcome<ThroughputResult>;
  updateV2?: Outcome<ThroughputResult>;
  latency?: Outcome<LatencyResult>;
  inFlight: Outcome<InFlightFigures>[];
  /** With --profile: where each phase's Baton spent its CPU time (self time, top functions). */
  profiles?: Record<string, HotFunction[]>;
  memory: {
    rssMbPeak: number | null;
    soakTarget: number;
    soakCompleted: number | null;
    rssMbAfterSoak: number | null;
    samples: RssSample[];
    trend: RssTrend | null;
  };
}

export interface Target {
  name: string;
  target: string;
  actual: number | boolean | null;
  met: boolean | null;
}

export interface LatestJson {
  tasksPerSecond: number | null;
  workflowsPerSecond: number | null;
  httpCeilingRps: number | null;
  ratioToHttpCeiling: number | null;
  /** The stricter view: worker task completions per second / httpCeilingRps. */
  taskRatioToHttpCeiling: number | null;
  bullmqTasksPerSecond: number | null;
  ratioToBullmq: number | null;
  /** The same 3-task workflow with workers that report through update-v2 and run the task it returns (the JS SDK 4 path). */
  updateV2TasksPerSecond: number | null;
  ratioToBullmqUpdateV2: number | null;
  startP99Ms: number | null;
  updateP99Ms: number | null;
  scheduleToPollP99Ms: number | null;
  rssMbPeak: number | null;
  rssMbAfter100k: number | null;
  machine: Machine;
  mode: 'quick' | 'full';
  definitions: Record<string, string>;
  targets: Target[];
  details: RunRecord;
}

const value = <T>(o: Outcome<T> | undefined): T | undefined => (o && o.ok ? o.result : undefined);

const atMost = (name: string, limit: number, actual: number | null | undefined, unit: string): Target => ({
  name,
  target: `<= ${limit}${unit}`,
  actual: actual ?? null,
  met: actual == null ? null : actual <= limit,
});
const atLeast = (name: string, limit: number, actual: number | null | undefined, unit = ''): Target => ({
  name,
  target: `>= ${limit}${unit}`,
  actual: actual ?? null,
  met: actual == null ? null : actual >= limit,
});

export const DEFINITIONS: Record<string, string> = {
  tasksPerSecond: 'worker task completions per second (accepted POST /api/tasks), 3-task SIMPLE workflow, closed loop, steady window',
  workflowsPerSecond: 'main workflows whose last task was accepted per second, same window',
  httpCeilingRps: 'requests per second of a trivial express 5 POST endpoint (JSON in, small JSON out), same client and load process',
  ratioToHttpCeiling: "Baton's HTTP requests per second (starts + polls + updates) in the 3-task window / httpCeilingRps",
  bullmqTasksPerSecond: 'BullMQ job completions per second, 3-job chains, in-process workers, Redis appendonly + appendfsync everysec',
  taskRatioToHttpCeiling: 'tasksPerSecond / httpCeilingRps (each task costs at least one update request plus its share of polls and starts)',
  ratioToBullmq: 'tasksPerSecond / bullmqTasksPerSecond',
  updateV2TasksPerSecond: 'as tasksPerSecond, with workers reporting through POST /api/tasks/update-v2 and running the task it returns, as the official JS SDK 4 TaskRunner does',
  ratioToBullmqUpdateV2: 'updateV2TasksPerSecond / bullmqTasksPerSecond',
  startP99Ms: 'p99 of POST /api/workflow at 70% of the max workflow rate, from the scheduled send instant (open loop)',
  updateP99Ms: 'p99 of POST /api/tasks (send to answer) at 70% load',
  scheduleToPollP99Ms: "p99 of (poll answer time - task.scheduledTime) at 70% load; both from this machine's wall clock",
  rssMbPeak: 'highest VmHWM/VmRSS of any Baton process in the run (/proc/<pid>/status)',
  rssMbAfter100k: 'VmRSS of Baton after 100,000 completed 3-task workflows (full mode; null in --quick)',
};

export function buildLatest(run: RunRecord): LatestJson {
  const s3 = value(run.simple3);
  const ceiling = value(run.ceiling);
  const bull = value(run.bullmq);
  const lat = value(run.latency);
  const v2 = value(run.updateV2);
  const soakDone = run.memory.soakTarget > 0 && (run.memory.soakCompleted ?? 0) >= run.memory.soakTarget;
  const rssMbAfter100k = soakDone && run.memory.soakTarget >= 100_000 ? run.memory.rssMbAfterSoak : null;
  const latest = {
    tasksPerSecond: s3?.tasksPerSecond ?? null,
    workflowsPerSecond: s3?.workflowsPerSecond ?? null,
    httpCeilingRps: ceiling?.requestsPerSecond ?? null,
    ratioToHttpCeiling: ratio(s3?.httpRequestsPerSecond, ceiling?.requestsPerSecond),
    taskRatioToHttpCeiling: ratio(s3?.tasksPerSecond, ceiling?.requestsPerSecond),
    bullmqTasksPerSecond: bull?.jobsPerSecond ?? null,
    ratioToBullmq: ratio(s3?.tasksPerSecond, bull?.jobsPerSecond),
    updateV2TasksPerSecond: v2?.tasksPerSecond ?? null,
    ratioToBullmqUpdateV2: ratio(v2?.tasksPerSecond, bull?.jobsPerSecond),
    startP99Ms: lat?.startLatencyMs?.p99 ?? null,
    updateP99Ms: lat?.updateLatencyMs?.p99 ?? null,
    scheduleToPollP99Ms: lat?.scheduleToPollMs?.p99 ?? null,
    rssMbPeak: run.memory.rssMbPeak,
    rssMbAfter100k,
  };
  const targets: Target[] = [
    atLeast('ratioToHttpCeiling', 0.5, latest.ratioToHttpCeiling),
    atLeast('tasksPerSecond (3-task)', 1500, latest.tasksPerSecond, '/s'),
    atLeast('ratioToBullmq', 0.5, latest.ratioToBullmq),
    atLeast('ratioToBullmq, update-v2 workers', 0.5, latest.ratioToBullmqUpdateV2),
    atMost('updateP99Ms at 70%', 20, latest.updateP99Ms, ' ms'),
    atMost('scheduleToPollP99Ms at 70%', 50, latest.scheduleToPollP99Ms, ' ms'),
    {
      name: 'RSS flat after 100k workflows',
      target: run.memory.trend?.rule ?? 'full mode only',
      actual: run.memory.trend && rssMbAfter100k !== null ? run.memory.trend.flat : null,
      met: run.memory.trend && rssMbAfter100k !== null ? run.memory.trend.flat : null,
    },
  ];
  return { ...latest, machine: run.machine, mode: run.mode, definitions: DEFINITIONS, targets, details: run };
}
