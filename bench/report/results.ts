/** The run's figures to the JSON of bench/results/latest.json, with the targets judged (pure). */
import type { BullmqResult, CeilingResult, DaprWorkflowResult, InFlightResult, LatencyResult, RestateResult, ThroughputResult } from '../load/protocol';
import type { ProxyCounts } from '../processes/counting-proxy';
import type { StoreDelta } from '../processes/store-counters';
import { cpuMsPerTask, ratio } from '../stats/rates';
import type { HotFunction, HotModule } from '../stats/cpu-profile';
import type { RssSample, RssTrend, HeapFloor } from '../stats/rss-trend';
import type { ScaleOutFigures } from './scale-out';
import { withReasons } from './target-reasons';

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

/** Conductor OSS driven like Baton: its maximum, then its latencies at 70% of that maximum. */
export interface ConductorFigures {
  version: string;
  /** What holds its data, queues and index: the shipped SQLite configuration, or PostgreSQL as in production. */
  persistence: 'sqlite' | 'postgres';
  startSeconds: number;
  throughput: ThroughputResult;
  throughputCpuCores: number | null;
  latency: LatencyResult | null;
  latencyCpuCores: number | null;
  latencyError?: string;
}

/** Restate's run: the load process's figures and the restate-server version. */
export interface RestateFigures extends RestateResult {
  version: string;
}

/** Calls per task completion, counted in the window (proxies between Baton and daprd; the engines' own counters). */
export interface PerTaskCounts {
  /** Round trips the replicas start to their daprd (app → daprd: actor calls, state, reminders, publish), health and metadata reads left out. */
  sidecarCallsPerTask: number | null;
  /** Calls daprd makes into the replicas (daprd → app: actor method deliveries, reminders firing, pub/sub deliveries), probes left out. */
  sidecarDeliveriesPerTask: number | null;
  /** Both, per direction and kind of call (e.g. `app→daprd PUT actors/WorkflowActor/method/update`). */
  sidecarCallsPerTaskByCategory: Record<string, number>;
  /** Calls left out of both figures in the window (daprd's app health probes, metadata reads). */
  sidecarHousekeepingCalls: number;
  storeCallsPerTask: {
    cassandra: number | null;
    /** Lightweight transactions among them (execution-store commits, counted by the replicas). */
    cassandraLwt: number | null;
    esBulkRequests: number | null;
    esIndexedDocs: number | null;
    esQueries: number | null;
    redisCommands: number | null;
  };
  /** Redis commands per task by name (a Lua script's own commands included), most first. */
  redisCommandsPerTaskByName: Record<string, number>;
  /** Cassandra coordinator requests per task by kind and table (`write executions`), most first. */
  cassandraRequestsPerTaskByTable: Record<string, number>;
  /** Elasticsearch documents indexed per task by index, most first. */
  esDocumentsPerTaskByIndex: Record<string, number>;
}

export interface DistributedFigures extends PerTaskCounts {
  replicas: number;
  throughput: ThroughputResult;
  cpuCoresBatonAndDapr: number | null;
  /** CPU in the window per group: both replicas, the Dapr processes, and the shared Cassandra and Elasticsearch JVMs. */
  cpuCoresByGroup: Record<string, number | null>;
  /** The whole machine's busy cores in the window (/proc/stat): the measured groups plus everything else running here. */
  machineBusyCores?: number | null;
  /** CPU milliseconds per task completion of each group of cpuCoresByGroup (cores × 1000 ÷ tasks/s). */
  cpuMsPerTaskByGroup: Record<string, number | null>;
  /** The daprdPlacementSchedulerRedis group's CPU milliseconds per task, per process (daprd-a, redis, scheduler…). */
  sidecarCpuMsPerTaskByProcess?: Record<string, number | null>;
  tasksInWindow: number;
  storeErrors: string[];
  latency: LatencyResult | null;
  latencyError?: string;
  /** The same window with update-v2 workers (the official JS SDK's way), counted the same way. */
  updateV2: Omit<DistributedFigures, 'latency' | 'updateV2'> | null;
  updateV2Error?: string;
}

/** One server's closed-loop window and the CPU it used in it. */
export interface ServerWindow {
  throughput: ThroughputResult;
  cpuCores: number | null;
}

/** Two independent embedded Batons driven at once, each by its own load process (the ceiling of sharding on this machine). */
export interface TwoServerFigures {
  /** The first server alone, in the window just before. */
  alone: ServerWindow;
  servers: ServerWindow[];
}

const HOUSEKEEPING = /healthz|metadata/;

export { cpuMsPerTask };
const per = (n: number | null | undefined, tasks: number): number | null => (n == null || !(tasks > 0) ? null : Math.round((n / tasks) * 100) / 100);

/**
 * The window's counts divided by the tasks completed in it (pure). `toSidecar` and `fromSidecar` are the
 * two directions: a call between two replicas' actors shows once in each (the caller's app → daprd, the
 * host's daprd → app), so only app → daprd counts as a round trip.
 */
export function perTask(toSidecar: ProxyCounts[], fromSidecar: ProxyCounts[], stores: StoreDelta | null, tasks: number): PerTaskCounts {
  const byCategory: Record<string, number> = {};
  let housekeeping = 0;
  const tally = (counts: ProxyCounts[], direction: string): number => {
    let n = 0;
    for (const c of counts) {
      for (const [k, v] of Object.entries(c.byCategory)) {
        if (HOUSEKEEPING.test(k)) {
          housekeeping += v;
          continue;
        }
        n += v;
        byCategory[`${direction} ${k}`] = (byCategory[`${direction} ${k}`] ?? 0) + v;
      }
    }
    return n;
  };
  const out = tally(toSidecar, 'app→daprd');
  const inbound = tally(fromSidecar, 'daprd→app');
  return {
    sidecarCallsPerTask: toSidecar.length > 0 ? per(out, tasks) : null,
    sidecarDeliveriesPerTask: fromSidecar.length > 0 ? per(inbound, tasks) : null,
    sidecarCallsPerTaskByCategory: Object.fromEntries(
      Object.entries(byCategory)
        .map(([k, v]) => [k, per(v, tasks) ?? 0])
        .sort((a, b) => (b[1] as number) - (a[1] as number)),
    ),
    sidecarHousekeepingCalls: housekeeping,
    storeCallsPerTask: {
      cassandra: per(stores?.cassandraRequests, tasks),
      cassandraLwt: per(stores?.cassandraLwt, tasks),
      esBulkRequests: per(stores?.esBulkRequests, tasks),
      esIndexedDocs: per(stores?.esIndexed, tasks),
      esQueries: per(stores?.esQueries, tasks),
      redisCommands: per(stores?.redisCommands, tasks),
    },
    redisCommandsPerTaskByName: perName(stores?.redisByCommand, tasks),
    cassandraRequestsPerTaskByTable: perName(stores?.cassandraByTable, tasks),
    esDocumentsPerTaskByIndex: perName(stores?.esIndexedByIndex, tasks),
  };
}

/** Counts by name divided by the tasks, most first, those below 0.01 per task left out. */
const perName = (counts: Record<string, number> | null | undefined, tasks: number): Record<string, number> =>
  Object.fromEntries(
    Object.entries(counts ?? {})
      .map(([k, v]) => [k, per(v, tasks) ?? 0] as const)
      .filter(([, v]) => v >= 0.01)
      .sort((a, b) => b[1] - a[1]),
  );

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
  /** The runtime's own ceiling: bare node:http, same endpoint and client. */
  rawCeiling?: Outcome<CeilingResult>;
  conductor?: Outcome<ConductorFigures>;
  /** Conductor OSS on PostgreSQL (data, queues, index); its server CPU is the JVM's and PostgreSQL's. */
  conductorPg?: Outcome<ConductorFigures>;
  daprWorkflow?: Outcome<DaprWorkflowResult>;
  /** Restate; its server CPU is restate-server's and the service process's. */
  restate?: Outcome<RestateFigures>;
  distributed?: Outcome<DistributedFigures>;
  /** The distributed cluster with 1, 2 and 3 replicas on the same engines, a window each. */
  scaleOut?: Outcome<ScaleOutFigures>;
  /** The start commit's distributed tasks/s, from the latest.json given with --baseline (measured back to back). */
  baseline?: { file: string; distributedTasksPerSecond: number | null };
  /** Peers and phases not run, with the reason printed (missing engine, --quick). */
  skipped: { phase: string; reason: string }[];
  bullmq?: Outcome<BullmqResult>;
  simple3?: Outcome<ThroughputResult>;
  steps13?: Outcome<ThroughputResult>;
  updateV2?: Outcome<ThroughputResult>;
  latency?: Outcome<LatencyResult>;
  inFlight: Outcome<InFlightFigures>[];
  twoServers?: Outcome<TwoServerFigures>;
  /** With --profile: where each phase's Baton spent its CPU time (self time, top functions). */
  profiles?: Record<string, HotFunction[]>;
  /** The same profiles' self time per module (npm package, dist/ directory, node core, native). */
  profileModules?: Record<string, HotModule[]>;
  memory: {
    rssMbPeak: number | null;
    soakTarget: number;
    soakCompleted: number | null;
    rssMbAfterSoak: number | null;
    samples: RssSample[];
    trend: RssTrend | null;
    /** The used JS heap's floor over the soak (from Baton's /metrics); null when not read. */
    heapFloor?: HeapFloor | null;
  };
}

export interface Target {
  name: string;
  target: string;
  actual: number | boolean | null;
  met: boolean | null;
  /** For a missed (or unjudged) target: what the run measured that explains it, one line. */
  reason?: string;
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
  rawHttpCeilingRps: number | null;
  ratioToRawHttp: number | null;
  updateV2ToClassic: number | null;
  conductorTasksPerSecond: number | null;
  ratioToConductor: number | null;
  conductorStartP99Ms: number | null;
  conductorUpdateP99Ms: number | null;
  conductorScheduleToPollP99Ms: number | null;
  daprWorkflowsPerSecond: number | null;
  ratioToDaprWorkflow: number | null;
  conductorCpuMsPerTask: number | null;
  conductorPgTasksPerSecond: number | null;
  ratioToConductorPg: number | null;
  conductorPgCpuMsPerTask: number | null;
  restateWorkflowsPerSecond: number | null;
  ratioToRestate: number | null;
  restateP99Ms: number | null;
  restateCpuMsPerWorkflow: number | null;
  embeddedCpuMsPerWorkflow: number | null;
  cpuPerWorkflowToRestate: number | null;
  distributedTasksPerSecond: number | null;
  sidecarCallsPerTask: number | null;
  sidecarDeliveriesPerTask: number | null;
  cassandraRequestsPerTask: number | null;
  cassandraLwtPerTask: number | null;
  redisCommandsPerTask: number | null;
  esDocumentsPerTask: number | null;
  distributedReplicaCpuMsPerTask: number | null;
  distributedSidecarCpuMsPerTask: number | null;
  embeddedCpuMsPerTask: number | null;
  distributedTasksPerSecondUpdateV2: number | null;
  sidecarCallsPerTaskUpdateV2: number | null;
  distributedStartP99Ms: number | null;
  distributedUpdateP99Ms: number | null;
  distributedScheduleToPollP99Ms: number | null;
  twoServersTasksPerSecond: number | null;
  twoServersToOne: number | null;
  twoServersRatioToRawHttp: number | null;
  twoServersRatioToBullmq: number | null;
  /** Per replica count: tasks/s, tasks per replica CPU-second, replica CPU ms per task. */
  scaleOut: Record<string, { tasksPerSecond: number; tasksPerReplicaCpuSecond: number | null; replicaCpuMsPerTask: number | null }> | null;
  scaleOutLimit: string | null;
  daprWorkflowCpuMsPerActivity: number | null;
  distributedCpuMsPerTask: number | null;
  distributedCpuToDaprWorkflow: number | null;
  distributedCpuToConductorPg: number | null;
  baselineDistributedTasksPerSecond: number | null;
  distributedTasksPerSecondToBaseline: number | null;
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
  updateV2TasksPerSecond:
    'as tasksPerSecond, with workers reporting through POST /api/tasks/update-v2 and running the task it returns, as the official JS SDK 4 TaskRunner does',
  ratioToBullmqUpdateV2: 'updateV2TasksPerSecond / bullmqTasksPerSecond',
  startP99Ms: 'p99 of POST /api/workflow at 70% of the max workflow rate, from the scheduled send instant (open loop)',
  updateP99Ms: 'p99 of POST /api/tasks (send to answer) at 70% load',
  scheduleToPollP99Ms: "p99 of (poll answer time - task.scheduledTime) at 70% load; both from this machine's wall clock",
  rssMbPeak: 'highest VmHWM/VmRSS of any Baton process in the run (/proc/<pid>/status)',
  rssMbAfter100k: 'VmRSS of Baton after 100,000 completed 3-task workflows (full mode; null in --quick)',
  rawHttpCeilingRps: 'requests per second of a bare node:http POST endpoint (JSON in, small JSON out, no framework), same client and load process',
  ratioToRawHttp: "Baton's HTTP requests per second in the 3-task window / rawHttpCeilingRps",
  updateV2ToClassic: 'updateV2TasksPerSecond / tasksPerSecond (update-v2 workers vs poll-and-update workers, same workflow)',
  conductorTasksPerSecond: "Conductor OSS's own server (boot jar, default SQLite configuration), same definitions, workers and window as tasksPerSecond",
  ratioToConductor: 'tasksPerSecond / conductorTasksPerSecond',
  conductorStartP99Ms: 'as startP99Ms, for Conductor at 70% of its own maximum',
  conductorUpdateP99Ms: 'as updateP99Ms, for Conductor at 70% of its own maximum',
  conductorScheduleToPollP99Ms: 'as scheduleToPollP99Ms, for Conductor at 70% of its own maximum',
  daprWorkflowsPerSecond:
    'Dapr Workflow on a real daprd: the same 3-step chain as three activities, scheduled and awaited by the load process (closed loop, steady window)',
  ratioToDaprWorkflow: 'workflowsPerSecond / daprWorkflowsPerSecond',
  conductorCpuMsPerTask: "CPU ms of Conductor's JVM per task completion in its closed-loop window (SQLite configuration)",
  conductorPgTasksPerSecond:
    'Conductor OSS on a private PostgreSQL (conductor.db.type, queue.type and indexing.type postgres, Elasticsearch off), same definitions, workers and window as conductorTasksPerSecond',
  ratioToConductorPg: 'tasksPerSecond / conductorPgTasksPerSecond',
  conductorPgCpuMsPerTask: "CPU ms of Conductor's JVM and PostgreSQL together per task completion, same window",
  restateWorkflowsPerSecond:
    'Restate (restate-server from npm, shipped defaults): the same 3-step chain as one durable handler with three journaled ctx.run steps in a service process, invoked through the HTTP ingress and awaited by the load process (closed loop, steady window)',
  ratioToRestate: 'workflowsPerSecond / restateWorkflowsPerSecond',
  restateP99Ms: 'p99 of one Restate invocation, sent to answered (all three steps done), in the window at maximum rate',
  restateCpuMsPerWorkflow: 'CPU ms of restate-server and the service process together per completed chain, same window',
  embeddedCpuMsPerWorkflow:
    'CPU ms of the embedded server per completed 3-task workflow in the simple3 window (embeddedCpuMsPerTask × 3): compare restateCpuMsPerWorkflow',
  cpuPerWorkflowToRestate: 'embeddedCpuMsPerWorkflow / restateCpuMsPerWorkflow (below 1: Baton spends less server CPU per workflow)',
  distributedTasksPerSecond: 'tasksPerSecond of two Baton replicas on real daprd, Cassandra, Elasticsearch and Redis (requests balanced over both)',
  sidecarCallsPerTask:
    'round trips the replicas start to their daprd (app → daprd; health and metadata left out) in the distributed window / tasks completed in it, counted by proxies',
  sidecarDeliveriesPerTask: 'calls daprd makes into the replicas (actor method deliveries, reminders, pub/sub; health probes left out) per task, same window',
  cassandraRequestsPerTask:
    "Cassandra coordinator requests on the run's keyspace per task (system_views.coordinator_{read,write,scan}_latency counts), same window",
  cassandraLwtPerTask:
    'lightweight transactions per task: execution-store commits (one conditional batch each) the replicas counted in their /metrics, distributed window',
  redisCommandsPerTask:
    "commands the run's redis-server processed per task (INFO stats total_commands_processed: a Lua script and each command it runs count), distributed window",
  esDocumentsPerTask: "Elasticsearch documents indexed per task on the run's indices (_stats indexing.index_total), distributed window",
  distributedReplicaCpuMsPerTask:
    'CPU ms of both Baton replicas per task completion (/proc/<pid>/stat over the distributed window ÷ tasks); an upper bound on a shared machine',
  distributedSidecarCpuMsPerTask: 'CPU ms of daprd ×2, placement, scheduler and redis-server per task completion, same window',
  embeddedCpuMsPerTask: 'CPU ms of the embedded server per task completion in the simple3 window (its CPU cores × 1000 ÷ tasksPerSecond)',
  distributedTasksPerSecondUpdateV2:
    'as distributedTasksPerSecond, with workers that update through update-v2 (the official JS SDK TaskRunner), in a window of its own',
  sidecarCallsPerTaskUpdateV2: 'as sidecarCallsPerTask, in the update-v2 window',
  distributedStartP99Ms: 'as startP99Ms, distributed profile at 70% of its maximum',
  distributedUpdateP99Ms: 'as updateP99Ms, distributed profile at 70% of its maximum',
  distributedScheduleToPollP99Ms: 'as scheduleToPollP99Ms, distributed profile at 70% of its maximum',
  twoServersTasksPerSecond:
    'tasks/s of two independent embedded Batons together (own data directories, own load processes, the 3-task closed loop on both at once): what this machine carries over two event loops; not a Baton figure',
  twoServersToOne:
    'twoServersTasksPerSecond / the tasks/s of the first server alone in the window just before (same warm-up): the most a sharded embedded profile could gain on this machine',
  twoServersRatioToRawHttp: "the two servers' HTTP requests per second together / rawHttpCeilingRps (compare ratioToRawHttp)",
  twoServersRatioToBullmq: 'twoServersTasksPerSecond / bullmqTasksPerSecond (compare ratioToBullmq)',
  scaleOut:
    'per replica count (1, 2, 3 replicas, each beside its own daprd, on the same engines, a closed-loop window each): tasks/s, tasks per CPU-second of the replicas together, replica CPU ms per task',
  scaleOutLimit: "where adding a replica stops paying (less than half its ideal gain) and the CPU of each group in that window against the machine's cores",
  daprWorkflowCpuMsPerActivity:
    'CPU ms per activity of Dapr Workflow: daprd, Redis, scheduler, placement and the load process (its workflow app, which also schedules and awaits), same window',
  distributedCpuMsPerTask: 'CPU ms per task of every group of the distributed window: replicas, daprd and company, Cassandra, Elasticsearch',
  distributedCpuToDaprWorkflow:
    '(distributedReplicaCpuMsPerTask + distributedSidecarCpuMsPerTask) / daprWorkflowCpuMsPerActivity: CPU outside the databases per unit of work',
  distributedCpuToConductorPg: 'distributedCpuMsPerTask / conductorPgCpuMsPerTask (each with its databases)',
  baselineDistributedTasksPerSecond: 'distributedTasksPerSecond of the latest.json given with --baseline (the start commit, run back to back)',
  distributedTasksPerSecondToBaseline: 'distributedTasksPerSecond / baselineDistributedTasksPerSecond',
};

export function buildLatest(run: RunRecord): LatestJson {
  const s3 = value(run.simple3);
  const ceiling = value(run.ceiling);
  const bull = value(run.bullmq);
  const lat = value(run.latency);
  const v2 = value(run.updateV2);
  const raw = value(run.rawCeiling);
  const cond = value(run.conductor);
  const dwf = value(run.daprWorkflow);
  const condPg = value(run.conductorPg);
  const rst = value(run.restate);
  const restateCpuMsPerWorkflow = run.restate?.ok ? cpuMsPerTask(run.restate.server.cpuCores, run.restate.result.workflowsPerSecond) : null;
  const embeddedCpuMsPerWorkflow = run.simple3?.ok ? cpuMsPerTask(run.simple3.server.cpuCores, run.simple3.result.workflowsPerSecond) : null;
  const dist = value(run.distributed);
  const scale = value(run.scaleOut);
  const daprWorkflowCpuMsPerActivity =
    run.daprWorkflow?.ok && run.daprWorkflow.server.cpuCores != null
      ? cpuMsPerTask(run.daprWorkflow.server.cpuCores + run.daprWorkflow.result.loadProcessCpuCores, run.daprWorkflow.result.activitiesPerSecond)
      : null;
  const byGroup = dist?.cpuMsPerTaskByGroup;
  const outsideDatabases =
    byGroup?.batonReplicas != null && byGroup.daprdPlacementSchedulerRedis != null
      ? Math.round((byGroup.batonReplicas + byGroup.daprdPlacementSchedulerRedis) * 100) / 100
      : null;
  const distributedCpuMsPerTask =
    outsideDatabases != null ? Math.round((outsideDatabases + (byGroup?.cassandra ?? 0) + (byGroup?.elasticsearch ?? 0)) * 100) / 100 : null;
  const conductorPgCpuMsPerTask = run.conductorPg?.ok ? cpuMsPerTask(run.conductorPg.server.cpuCores, run.conductorPg.result.throughput.tasksPerSecond) : null;
  const baselineTps = run.baseline?.distributedTasksPerSecond ?? null;
  const two = value(run.twoServers);
  const twoSum = (pick: (t: ThroughputResult) => number): number | null =>
    two ? Math.round(two.servers.reduce((a, x) => a + pick(x.throughput), 0) * 10) / 10 : null;
  const twoTasks = twoSum((t) => t.tasksPerSecond);
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
    rawHttpCeilingRps: raw?.requestsPerSecond ?? null,
    ratioToRawHttp: ratio(s3?.httpRequestsPerSecond, raw?.requestsPerSecond),
    updateV2ToClassic: ratio(v2?.tasksPerSecond, s3?.tasksPerSecond),
    conductorTasksPerSecond: cond?.throughput.tasksPerSecond ?? null,
    ratioToConductor: ratio(s3?.tasksPerSecond, cond?.throughput.tasksPerSecond),
    conductorStartP99Ms: cond?.latency?.startLatencyMs?.p99 ?? null,
    conductorUpdateP99Ms: cond?.latency?.updateLatencyMs?.p99 ?? null,
    conductorScheduleToPollP99Ms: cond?.latency?.scheduleToPollMs?.p99 ?? null,
    daprWorkflowsPerSecond: dwf?.workflowsPerSecond ?? null,
    ratioToDaprWorkflow: ratio(s3?.workflowsPerSecond, dwf?.workflowsPerSecond),
    conductorCpuMsPerTask: run.conductor?.ok ? cpuMsPerTask(run.conductor.server.cpuCores, run.conductor.result.throughput.tasksPerSecond) : null,
    conductorPgTasksPerSecond: condPg?.throughput.tasksPerSecond ?? null,
    ratioToConductorPg: ratio(s3?.tasksPerSecond, condPg?.throughput.tasksPerSecond),
    conductorPgCpuMsPerTask,
    restateWorkflowsPerSecond: rst?.workflowsPerSecond ?? null,
    ratioToRestate: ratio(s3?.workflowsPerSecond, rst?.workflowsPerSecond),
    restateP99Ms: rst?.completionLatencyMs?.p99 ?? null,
    restateCpuMsPerWorkflow,
    embeddedCpuMsPerWorkflow,
    cpuPerWorkflowToRestate: ratio(embeddedCpuMsPerWorkflow, restateCpuMsPerWorkflow),
    distributedTasksPerSecond: dist?.throughput.tasksPerSecond ?? null,
    sidecarCallsPerTask: dist?.sidecarCallsPerTask ?? null,
    sidecarDeliveriesPerTask: dist?.sidecarDeliveriesPerTask ?? null,
    cassandraRequestsPerTask: dist?.storeCallsPerTask.cassandra ?? null,
    cassandraLwtPerTask: dist?.storeCallsPerTask.cassandraLwt ?? null,
    redisCommandsPerTask: dist?.storeCallsPerTask.redisCommands ?? null,
    esDocumentsPerTask: dist?.storeCallsPerTask.esIndexedDocs ?? null,
    distributedReplicaCpuMsPerTask: dist?.cpuMsPerTaskByGroup.batonReplicas ?? null,
    distributedSidecarCpuMsPerTask: dist?.cpuMsPerTaskByGroup.daprdPlacementSchedulerRedis ?? null,
    embeddedCpuMsPerTask: run.simple3?.ok ? cpuMsPerTask(run.simple3.server.cpuCores, run.simple3.result.tasksPerSecond) : null,
    distributedTasksPerSecondUpdateV2: dist?.updateV2?.throughput.tasksPerSecond ?? null,
    sidecarCallsPerTaskUpdateV2: dist?.updateV2?.sidecarCallsPerTask ?? null,
    distributedStartP99Ms: dist?.latency?.startLatencyMs?.p99 ?? null,
    distributedUpdateP99Ms: dist?.latency?.updateLatencyMs?.p99 ?? null,
    distributedScheduleToPollP99Ms: dist?.latency?.scheduleToPollMs?.p99 ?? null,
    twoServersTasksPerSecond: twoTasks,
    twoServersToOne: ratio(twoTasks, two?.alone.throughput.tasksPerSecond),
    twoServersRatioToRawHttp: ratio(
      twoSum((t) => t.httpRequestsPerSecond),
      raw?.requestsPerSecond,
    ),
    twoServersRatioToBullmq: ratio(twoTasks, bull?.jobsPerSecond),
    scaleOut: scale
      ? Object.fromEntries(
          scale.points.map((p) => [
            String(p.replicas),
            { tasksPerSecond: p.tasksPerSecond, tasksPerReplicaCpuSecond: p.tasksPerReplicaCpuSecond, replicaCpuMsPerTask: p.replicaCpuMsPerTask },
          ]),
        )
      : null,
    scaleOutLimit: scale?.verdict?.reason ?? null,
    daprWorkflowCpuMsPerActivity,
    distributedCpuMsPerTask,
    distributedCpuToDaprWorkflow: ratio(outsideDatabases, daprWorkflowCpuMsPerActivity),
    distributedCpuToConductorPg: ratio(distributedCpuMsPerTask, conductorPgCpuMsPerTask),
    baselineDistributedTasksPerSecond: baselineTps,
    distributedTasksPerSecondToBaseline: ratio(dist?.throughput.tasksPerSecond, baselineTps),
  };
  const targets: Target[] = [
    atLeast('ratioToHttpCeiling', 0.5, latest.ratioToHttpCeiling),
    atLeast('tasksPerSecond (3-task)', 1500, latest.tasksPerSecond, '/s'),
    atLeast('ratioToConductor (tasks/s)', 3, latest.ratioToConductor),
    atLeast('ratioToDaprWorkflow (workflows/s)', 5, latest.ratioToDaprWorkflow),
    atLeast('ratioToRawHttp (HTTP requests)', 0.25, latest.ratioToRawHttp),
    atLeast('ratioToBullmq', 0.6, latest.ratioToBullmq),
    atLeast('ratioToBullmq, update-v2 workers', 0.6, latest.ratioToBullmqUpdateV2),
    atLeast('updateV2ToClassic', 1.3, latest.updateV2ToClassic),
    atMost('updateP99Ms at 70%', 20, latest.updateP99Ms, ' ms'),
    atMost('scheduleToPollP99Ms at 70%', 50, latest.scheduleToPollP99Ms, ' ms'),
    atMost('startP99Ms at 70%', 30, latest.startP99Ms, ' ms'),
    atMost('sidecarCallsPerTask (distributed)', 2, latest.sidecarCallsPerTask, ''),
    atMost('sidecarCallsPerTask (distributed, update-v2 workers)', 2, latest.sidecarCallsPerTaskUpdateV2, ''),
    atMost('distributedReplicaCpuMsPerTask', 1.5, latest.distributedReplicaCpuMsPerTask, ' ms'),
    atMost('distributedSidecarCpuMsPerTask', 1, latest.distributedSidecarCpuMsPerTask, ' ms'),
    atMost('redisCommandsPerTask', 6, latest.redisCommandsPerTask, ''),
    atMost('cassandraRequestsPerTask', 3, latest.cassandraRequestsPerTask, ''),
    atMost('cassandraLwtPerTask', 1, latest.cassandraLwtPerTask, ''),
    atMost('esDocumentsPerTask', 1.5, latest.esDocumentsPerTask, ''),
    atLeast('distributedTasksPerSecond vs the start commit', 3, latest.distributedTasksPerSecondToBaseline, '×'),
    atMost('distributed CPU per task outside the databases vs Dapr Workflow per activity', 1.5, latest.distributedCpuToDaprWorkflow, '×'),
    atLeast('ratioToConductorPg (tasks/s)', 3, latest.ratioToConductorPg),
    {
      name: 'distributed CPU per task vs Conductor on PostgreSQL',
      target: '< 1×',
      actual: latest.distributedCpuToConductorPg,
      met: latest.distributedCpuToConductorPg == null ? null : latest.distributedCpuToConductorPg < 1,
    },
    {
      name: 'RSS flat after 100k workflows',
      target: run.memory.trend?.rule ?? 'full mode only',
      actual: run.memory.trend && rssMbAfter100k !== null ? run.memory.trend.flat : null,
      met: run.memory.trend && rssMbAfter100k !== null ? run.memory.trend.flat : null,
    },
  ];
  const explained = withReasons(targets, {
    distributed: dist,
    profiles: run.profiles,
    profileModules: run.profileModules,
    distributedTasksPerSecond: latest.distributedTasksPerSecond,
    baselineDistributedTasksPerSecond: baselineTps,
    daprWorkflowCpuMsPerActivity,
    conductorPgCpuMsPerTask,
    tasksPerSecond: latest.tasksPerSecond,
    conductorPgTasksPerSecond: latest.conductorPgTasksPerSecond,
    embeddedCpuMsPerTask: latest.embeddedCpuMsPerTask,
  });
  return { ...latest, machine: run.machine, mode: run.mode, definitions: DEFINITIONS, targets: explained, details: run };
}
