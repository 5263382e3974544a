import type { Task, WorkflowRecord } from '../model/execution';
import type { TaskSummary, WorkflowSummary } from '../model/summaries';
import { taskView, workflowView } from '../model/payload-view';

/**
 * The search records Conductor indexes and returns (WorkflowSummary, TaskSummary). Pure.
 * Input/output are serialised as JSON text, like Conductor with
 * `conductor.app.summary-input-output-json-serialization.enabled=true` (its default is Java's
 * `Map.toString()`, which no client can parse back).
 */

/** `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC, as Conductor's summaries format times. */
export const isoTime = (epochMillis: number): string => new Date(epochMillis).toISOString();

const serialize = (data: Record<string, unknown>): string => JSON.stringify(data);
const notBlank = (s: string | undefined): s is string => s !== undefined && s.trim() !== '';

export function summarizeWorkflow(whole: WorkflowRecord): WorkflowSummary {
  // A payload kept outside the row is summarised as Conductor does: empty, with its path.
  const w = workflowView(whole);
  const input = serialize(w.input);
  const output = serialize(w.output);
  const summary: WorkflowSummary = {
    workflowType: w.workflowName,
    version: w.workflowVersion,
    workflowId: w.workflowId,
    startTime: isoTime(w.startTime),
    updateTime: isoTime(w.updateTime),
    status: w.status,
    input,
    output,
    executionTime: w.endTime > 0 ? w.endTime - w.startTime : 0,
    failedReferenceTaskNames: w.failedReferenceTaskNames.join(','),
    failedTaskNames: [...w.failedTaskNames],
    priority: w.priority,
    inputSize: input.length,
    outputSize: output.length,
    parentWorkflowId: w.parentWorkflowId ?? '',
    taskToDomain: { ...w.taskToDomain },
  };
  // Null fields are omitted, as Conductor's NON_NULL serialisation does.
  if (w.correlationId !== undefined) summary.correlationId = w.correlationId;
  if (w.endTime > 0) summary.endTime = isoTime(w.endTime);
  if (w.reasonForIncompletion !== undefined) summary.reasonForIncompletion = w.reasonForIncompletion;
  if (w.event !== undefined) summary.event = w.event;
  if (w.createdBy !== undefined) summary.createdBy = w.createdBy;
  if (notBlank(w.externalInputPayloadStoragePath)) summary.externalInputPayloadStoragePath = w.externalInputPayloadStoragePath;
  if (notBlank(w.externalOutputPayloadStoragePath)) summary.externalOutputPayloadStoragePath = w.externalOutputPayloadStoragePath;
  return summary;
}

export function summarizeTask(whole: Task): TaskSummary {
  const t = taskView(whole);
  const summary: TaskSummary = {
    workflowId: t.workflowInstanceId,
    workflowType: t.workflowType,
    scheduledTime: isoTime(t.scheduledTime),
    startTime: isoTime(t.startTime),
    updateTime: isoTime(t.updateTime),
    endTime: isoTime(t.endTime),
    status: t.status,
    executionTime: t.endTime > 0 ? t.endTime - t.startTime : 0,
    queueWaitTime: t.startTime > 0 ? t.startTime - t.scheduledTime : 0,
    taskDefName: t.taskDefName,
    taskType: t.taskType,
    input: serialize(t.inputData),
    output: serialize(t.outputData),
    taskId: t.taskId,
    workflowPriority: t.workflowPriority,
  };
  if (t.correlationId !== undefined) summary.correlationId = t.correlationId;
  if (t.reasonForIncompletion !== undefined) summary.reasonForIncompletion = t.reasonForIncompletion;
  if (t.domain !== undefined) summary.domain = t.domain;
  if (notBlank(t.externalInputPayloadStoragePath)) summary.externalInputPayloadStoragePath = t.externalInputPayloadStoragePath;
  if (notBlank(t.externalOutputPayloadStoragePath)) summary.externalOutputPayloadStoragePath = t.externalOutputPayloadStoragePath;
  return summary;
}
