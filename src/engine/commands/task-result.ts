import type { Task } from '../../model/execution';
import type { TaskResult } from '../../model/requests';
import { isTerminalTask, isTerminalWorkflow, type TaskStatus } from '../../model/statuses';
import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import { jsonSize, taskPayloadProblem } from '../payload-size';
import { enqueueEffect } from '../queue-effects';
import type { Turn } from '../state';
import { findTask, pendingTaskByRef } from '../task-lookup';
import { markTerminal, noteTaskStatus, truncate } from '../task-status';
import { isWorkerType, taskTypeNamed } from '../tasks/registry';

// A task's result from its worker, Baton's own system-task worker, or an external caller (Conductor's
// WorkflowExecutor.updateTask), then a decision.

export type UpdateOutcome = 'applied' | 'ignored';

/** A worker's (or system worker's, or external caller's) result for a task (Conductor's WorkflowExecutor.updateTask). */
export function applyTaskResult(turn: Turn, result: TaskResult): UpdateOutcome {
  const { state, env } = turn;
  const t = findTask(state, result.taskId);
  if (!t) throw Errors.TASK_NOT_FOUND(result.taskId);
  // A skipped task's worker may still be at it: its late result (or lease extension) must not look accepted.
  if (t.status === 'SKIPPED') throw Errors.SKIPPED_TASK_RESULT(t.taskId, t.referenceTaskName, t.workflowInstanceId);
  if (result.extendLease) {
    if (!isTerminalTask(t.status)) {
      t.updateTime = env.now;
      turn.log.touch(t);
    }
    return 'applied';
  }
  if (isTerminalTask(t.status) || isTerminalWorkflow(state.workflow.status)) return 'ignored';
  if (taskTypeNamed(t.taskType).kind === 'queued') {
    // A result Baton's own system worker produced (an HTTP response) over the payload limit fails its task, and
    // the report of it succeeds. A worker's or caller's own oversized result is refused instead (the store's 413).
    const oversized = taskPayloadProblem(t, 'output', jsonSize(result.outputData), env.taskPayloadMaxBytes);
    if (oversized) {
      t.outputData = {};
      if (result.workerId) t.workerId = result.workerId;
      if (!t.startTime) t.startTime = env.now;
      markTerminal(turn, t, 'FAILED_WITH_TERMINAL_ERROR', oversized);
      decide(turn);
      return 'applied';
    }
  }
  t.outputData = result.outputData ?? {};
  // Where the worker stored this output (its content read from there at the API): the row keeps the path.
  if (result.externalOutputPayloadStoragePath?.trim()) t.externalOutputPayloadStoragePath = result.externalOutputPayloadStoragePath.trim();
  else delete t.externalOutputPayloadStoragePath;
  t.reasonForIncompletion = truncate(result.reasonForIncompletion) ?? t.reasonForIncompletion;
  if (result.workerId) t.workerId = result.workerId;
  if (result.subWorkflowId) t.subWorkflowId = result.subWorkflowId;
  t.updateTime = env.now;
  turn.log.touch(t);
  const status = result.status === 'CANCELED' ? 'CANCELED' : result.status;
  if (status === 'IN_PROGRESS') {
    const callback = result.callbackAfterSeconds ?? 0;
    t.callbackAfterSeconds = callback;
    if (isWorkerType(t.taskType)) {
      // A worker's IN_PROGRESS puts the task back in its queue after callbackAfterSeconds, as in Conductor.
      t.status = 'SCHEDULED';
      noteTaskStatus(turn, t);
      turn.log.emit(enqueueEffect(t, env.now + callback * 1000));
    } else {
      t.status = 'IN_PROGRESS';
      // A system task's own work is done (an asyncComplete HTTP call answered); what is left comes from outside.
      t.responseTimeoutSeconds = 0;
    }
    return 'applied';
  }
  markTerminal(turn, t, status as TaskStatus);
  if (!t.startTime) t.startTime = env.now;
  decide(turn);
  return 'applied';
}

/** External completion of a task by reference or id, with the body merged into its output (`/api/tasks/{workflowId}/{ref}/{status}`, `/api/queue/update`). */
export function applyExternalUpdate(
  turn: Turn,
  a: { ref?: string; taskId?: string; status: TaskResult['status']; output: Record<string, unknown>; workerId?: string },
): Task | undefined {
  const t = a.taskId ? findTask(turn.state, a.taskId) : pendingTaskByRef(turn.state, a.ref ?? '');
  if (!t || isTerminalTask(t.status)) return undefined;
  applyTaskResult(turn, {
    workflowInstanceId: turn.state.workflow.workflowId,
    taskId: t.taskId,
    status: a.status,
    outputData: { ...t.outputData, ...a.output },
    workerId: a.workerId,
  });
  return t;
}
