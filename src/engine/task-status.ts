import type { Task } from '../model/execution';
import type { TaskStatus } from '../model/statuses';
import { lineageOf } from '../model/lineage';
import { jsonSize, taskPayloadProblem } from './payload-size';
import { dequeueEffect } from './queue-effects';
import type { Turn } from './state';
import { isQueuedType } from './tasks/registry';

// A task's status changes, recorded in the turn's log (the task touched, the effects it owes).

const REASON_LIMIT = 500;

/** A reason as stored: at most 500 characters. */
export const truncate = (s: string | undefined | null): string | undefined => (s == null ? undefined : s.length > REASON_LIMIT ? s.slice(0, REASON_LIMIT) : s);

/** With the workflow's status listener on, every task status change is published too (issue: status listeners). */
export function noteTaskStatus(turn: Turn, t: Task): void {
  const wf = turn.state.workflow;
  if (!wf.workflowDefinition.workflowStatusListenerEnabled) return;
  turn.log.emit({
    kind: 'statusChange',
    eventId: `${t.taskId}:${t.status}:${t.updateTime}:${t.pollCount}`,
    workflowId: wf.workflowId,
    workflowName: wf.workflowName,
    status: t.status,
    task: { taskId: t.taskId, taskRef: t.referenceTaskName, taskType: t.taskType },
    lineage: lineageOf(wf),
  });
}

/**
 * Ends a task from outside its own run (timeout, cancel, a result). A SCHEDULED task leaves its queue; an
 * IN_PROGRESS one has no entry left (the poll that claimed it removed it, or a lease of a leftover finds the
 * task ended and drops it), so its end costs no queue call, unless its definition limits concurrency: the
 * dequeue effect also frees the slot its poll took.
 */
export function markTerminal(turn: Turn, t: Task, status: TaskStatus, reason?: string): void {
  const queued = t.status === 'SCHEDULED';
  t.status = status;
  if (reason !== undefined) t.reasonForIncompletion = truncate(reason);
  if (!t.endTime) t.endTime = turn.env.now;
  t.updateTime = turn.env.now;
  turn.log.touch(t);
  noteTaskStatus(turn, t);
  const holdsSlot = (turn.env.taskDef(t.taskDefName)?.concurrentExecLimit ?? 0) > 0;
  if ((queued || holdsSlot) && isQueuedType(t.taskType)) turn.log.emit(dequeueEffect(t));
}

/** A system task ends as its handler decided; an output over the task payload limit fails it instead, without that output. */
export function finishSystemTask(turn: Turn, t: Task, output: Record<string, unknown>, status: TaskStatus = 'COMPLETED', reason?: string): void {
  const oversized = taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes);
  if (oversized) {
    output = {};
    status = 'FAILED_WITH_TERMINAL_ERROR';
    reason = oversized;
  }
  t.status = status;
  t.outputData = output;
  if (reason !== undefined) t.reasonForIncompletion = truncate(reason);
  if (!t.startTime) t.startTime = turn.env.now;
  t.endTime = turn.env.now;
  t.updateTime = turn.env.now;
  t.workerId = turn.env.hostName;
  turn.log.touch(t);
}

/** A system task waits IN_PROGRESS (for a script, its branches, a child, a person, a timer). */
export function startWaiting(turn: Turn, t: Task): void {
  t.status = 'IN_PROGRESS';
  if (!t.startTime) t.startTime = turn.env.now;
  t.updateTime = turn.env.now;
  turn.log.touch(t);
}
