import type { Task, WorkflowRecord } from '../model/execution';

// Payload limits as the engine applies them while it decides, so that a payload a system task produced
// (a JOIN's merged outputs, a script's or an HTTP call's result, a child workflow's output, the input
// resolved for a new task) fails that task with a reason, instead of failing the commit of the whole
// turn and with it whatever request triggered the turn. Reasons are Conductor's
// (ExternalPayloadStorageUtils.verifyAndUpload, which fails the task FAILED_WITH_TERMINAL_ERROR).

export type TaskPayload = 'input' | 'output';

/** Bytes of a value as UTF-8 JSON, as a store writes it; Infinity when it is nested too deeply to serialise at all. */
export function jsonSize(value: unknown): number {
  let text: string;
  try {
    text = JSON.stringify(value ?? {});
  } catch (e) {
    if (e instanceof RangeError) return Infinity; // maximum call stack: no store could write it either
    throw e;
  }
  return Buffer.byteLength(text, 'utf8');
}

/** Why a task payload of `size` bytes cannot be kept; undefined when it fits under `limit`. */
export function taskPayloadProblem(t: Pick<Task, 'taskId' | 'workflowInstanceId'>, payload: TaskPayload, size: number, limit: number): string | undefined {
  if (size <= limit) return undefined;
  if (size === Infinity) return `The ${payload} payload of task: ${t.taskId} in workflow: ${t.workflowInstanceId} is nested too deeply to be stored`;
  // Conductor's words, its two spaces before "is" included.
  return `The payload size: ${size} of task: ${t.taskId} in workflow: ${t.workflowInstanceId}  is greater than the permissible limit: ${limit} bytes`;
}

/** Why a workflow's output of `size` bytes cannot be kept; undefined when it fits under `limit`. */
export function workflowPayloadProblem(wf: Pick<WorkflowRecord, 'workflowId'>, size: number, limit: number): string | undefined {
  if (size <= limit) return undefined;
  if (size === Infinity) return `The output payload of workflow: ${wf.workflowId} is nested too deeply to be stored`;
  return `The payload size: ${size} of workflow: ${wf.workflowId} is greater than the permissible limit: ${limit} bytes`;
}
