import type { Config } from '../config';
import type { ExecutionCommit } from './ports';
import { PayloadTooLargeError } from './ports';
import { DEFAULT_TASK_LOG_LIMITS, type TaskLogLimits } from './task-log-limits';

// Hard caps on stored payloads, checked before any write so an oversized turn writes nothing.
// Defaults follow Conductor's thresholds (ConductorProperties): task 3 MB, workflow 10 MB.

export interface PayloadLimits {
  /** Largest inputData or outputData of one task, in bytes of UTF-8 JSON. */
  taskPayloadBytes: number;
  /** Largest input or output of a workflow, in bytes of UTF-8 JSON. */
  workflowPayloadBytes: number;
  /** Longest task log line and most lines per task. */
  taskLogs: TaskLogLimits;
}

/** The limits a commit is checked against. */
type PayloadSizes = Pick<PayloadLimits, 'taskPayloadBytes' | 'workflowPayloadBytes'>;

export const DEFAULT_PAYLOAD_LIMITS: PayloadLimits = {
  taskPayloadBytes: 3 * 1024 * 1024,
  workflowPayloadBytes: 10 * 1024 * 1024,
  taskLogs: DEFAULT_TASK_LOG_LIMITS,
};

/** The limits a store keeps, from the settings. */
export const payloadLimitsOf = (
  cfg: Pick<Config, 'BATON_TASK_PAYLOAD_MAX_BYTES' | 'BATON_WORKFLOW_PAYLOAD_MAX_BYTES' | 'BATON_TASK_LOG_MAX_LINE_BYTES' | 'BATON_TASK_LOG_MAX_LINES'>,
): PayloadLimits => ({
  taskPayloadBytes: cfg.BATON_TASK_PAYLOAD_MAX_BYTES,
  workflowPayloadBytes: cfg.BATON_WORKFLOW_PAYLOAD_MAX_BYTES,
  taskLogs: { lineBytes: cfg.BATON_TASK_LOG_MAX_LINE_BYTES, lines: cfg.BATON_TASK_LOG_MAX_LINES },
});

/** Size in bytes of a value serialised as JSON (UTF-8), as a store would write it. */
export const jsonBytes = (value: unknown): number => Buffer.byteLength(JSON.stringify(value ?? {}), 'utf8');

/** The first payload of the commit that is over its limit, as a message naming the field and the sizes; undefined when all fit. */
export function payloadLimitViolation(c: ExecutionCommit, limits: PayloadSizes = DEFAULT_PAYLOAD_LIMITS): string | undefined {
  const wf = c.workflow;
  for (const field of ['input', 'output'] as const) {
    const size = jsonBytes(wf[field]);
    if (size > limits.workflowPayloadBytes)
      return `workflow ${wf.workflowId} ${field} is ${size} bytes, over the limit of ${limits.workflowPayloadBytes} bytes for workflow payloads`;
  }
  for (const t of c.upsertTasks) {
    for (const field of ['inputData', 'outputData'] as const) {
      const size = jsonBytes(t[field]);
      if (size > limits.taskPayloadBytes)
        return `task ${t.referenceTaskName} (${t.taskId}) of workflow ${wf.workflowId} ${field} is ${size} bytes, over the limit of ${limits.taskPayloadBytes} bytes for task payloads`;
    }
  }
  return undefined;
}

/** Throws PayloadTooLargeError when any payload of the commit is over its limit. */
export function assertPayloadLimits(c: ExecutionCommit, limits: PayloadSizes = DEFAULT_PAYLOAD_LIMITS): void {
  const violation = payloadLimitViolation(c, limits);
  if (violation) throw new PayloadTooLargeError(violation);
}
