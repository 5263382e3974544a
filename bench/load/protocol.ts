/** Messages between the bench orchestrator and the load process (child_process.fork IPC). */
import type { LatencySummary } from '../stats/percentiles';

export interface Timing {
  warmupMs: number;
  windowMs: number;
}

export interface WorkerSettings {
  concurrencyPerType: number;
  pollTimeoutMs: number;
  pollIntervalMs: number;
  maxBackoffMs: number;
  /** Parallel workflow starters of the closed loop and of the pre-start phase. */
  starters: number;
}

export type ShapeKey = 'simple3' | 'steps13';

export type LoadCommand =
  | { kind: 'ceiling'; baseUrl: string; inFlight: number; timing: Timing }
  | { kind: 'bullmq'; redisPort: number; concurrency: number; inFlightChains: number; timing: Timing }
  | {
      kind: 'closed-loop';
      /** One server, or the replicas of one cluster (requests balanced over them). */
      baseUrl: string | string[];
      shape: ShapeKey;
      settings: WorkerSettings;
      inFlightWorkflows: number;
      timing: Timing;
      useUpdateV2: boolean;
      /** Keep going after the window until this many workflows completed (the RSS soak), 0 for none. */
      soakWorkflows: number;
      soakTimeoutMs: number;
    }
  | { kind: 'open-loop'; baseUrl: string | string[]; shape: ShapeKey; settings: WorkerSettings; ratePerSecond: number; timing: Timing }
  | { kind: 'in-flight'; baseUrl: string; shape: ShapeKey; settings: WorkerSettings; level: number; timeoutMs: number }
  | { kind: 'dapr-workflow'; daprGrpcPort: number; inFlightWorkflows: number; timing: Timing }
  | { kind: 'restate'; ingressSocket: string; inFlightWorkflows: number; timing: Timing };

export type LoadRequest = { type: 'run'; id: number; command: LoadCommand };

export type LoadEventName = 'window-start' | 'window-end' | 'progress' | 'prestarted' | 'drained';

export type LoadMessage =
  | { type: 'result'; id: number; ok: true; result: unknown }
  | { type: 'result'; id: number; ok: false; error: string }
  | { type: 'event'; name: LoadEventName; data: Record<string, number | string> };

export interface CeilingResult {
  requestsPerSecond: number;
  latencyMs: LatencySummary | null;
  errors: number;
  loadProcessCpuCores: number;
}

export interface DaprWorkflowResult {
  workflowsPerSecond: number;
  /** workflowsPerSecond × 3: the activity executions, the counterpart of Baton's worker tasks. */
  activitiesPerSecond: number;
  inFlightWorkflows: number;
  /** scheduleNewWorkflow, send to answer. */
  startLatencyMs: LatencySummary | null;
  /** scheduleNewWorkflow sent to waitForWorkflowCompletion answered. */
  completionLatencyMs: LatencySummary | null;
  loadProcessCpuCores: number;
  failedWorkflows: number;
  errors: ErrorTally;
}

export interface RestateResult {
  workflowsPerSecond: number;
  /** workflowsPerSecond × 3: the journaled steps, the counterpart of Baton's worker tasks. */
  stepsPerSecond: number;
  inFlightWorkflows: number;
  /** Invocation sent through the ingress to its answer (the handler's three steps done). */
  completionLatencyMs: LatencySummary | null;
  loadProcessCpuCores: number;
  errors: ErrorTally;
}

export interface BullmqResult {
  jobsPerSecond: number;
  chainsPerSecond: number;
  jobLatencyMs: LatencySummary | null;
  concurrencyPerQueue: number;
  inFlightChains: number;
  loadProcessCpuCores: number;
  errors: number;
}

export interface ErrorTally {
  count: number;
  samples: string[];
}

export interface Verification {
  checked: number;
  completed: number;
  statuses: Record<string, number>;
  indexCompletedTotal: number | null;
  indexError?: string;
}

export interface ThroughputResult {
  shape: ShapeKey;
  useUpdateV2: boolean;
  inFlightWorkflows: number;
  tasksPerSecond: number;
  workflowsPerSecond: number;
  startsPerSecond: number;
  httpRequestsPerSecond: number;
  pollsPerSecond: number;
  tasksPerPoll: number;
  startLatencyMs: LatencySummary | null;
  updateLatencyMs: LatencySummary | null;
  scheduleToPollMs: LatencySummary | null;
  loadProcessCpuCores: number;
  totalWorkflowsCompleted: number;
  soakSeconds: number | null;
  errors: ErrorTally;
  verification: Verification;
}

export interface LatencyResult {
  shape: ShapeKey;
  targetStartsPerSecond: number;
  achievedStartsPerSecond: number;
  tasksPerSecond: number;
  workflowsPerSecond: number;
  startsSkipped: number;
  pollsPerSecond: number;
  tasksPerPoll: number;
  /** Workflows started but not finished when the window opened (after the warm-up and settling). */
  backlogAtWindowStart: number;
  startLatencyMs: LatencySummary | null;
  startServiceTimeMs: LatencySummary | null;
  updateLatencyMs: LatencySummary | null;
  scheduleToPollMs: LatencySummary | null;
  loadProcessCpuCores: number;
  errors: ErrorTally;
}

export interface InFlightResult {
  shape: ShapeKey;
  level: number;
  prestartSeconds: number;
  startsPerSecond: number;
  startLatencyMs: LatencySummary | null;
  drainSeconds: number;
  drained: number;
  tasksPerSecond: number;
  workflowsPerSecond: number;
  updateLatencyMs: LatencySummary | null;
  scheduleToPollMs: LatencySummary | null;
  errors: ErrorTally;
}
