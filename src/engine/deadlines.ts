import type { TaskDef } from '../model/definitions';
import type { Task, WorkflowRecord } from '../model/execution';
import { isTerminalTask, isTerminalWorkflow } from '../model/statuses';
import { effectiveTaskDef, type EngineEnv, type ExecutionState } from './state';
import { delayedStartAt } from './delayed-start';
import { isQueuedType, isWorkerType, taskTypeOf } from './tasks/registry';

// When a task or a workflow times out: one formula each, read both by the timeout checks of the decide
// loop and by the next reminder of the execution (Conductor's DeciderService checkTaskTimeout,
// checkTaskPollTimeout, checkForWorkflowTimeout and the response timeout of its queue sweeper).

export type TaskTimeoutKind = 'timeout' | 'responseTimeout' | 'pollTimeout';

const NO_DEADLINES: readonly TaskDeadline[] = Object.freeze([]);

export interface TaskDeadline {
  kind: TaskTimeoutKind;
  /** Epoch ms from which the task is timed out. */
  at: number;
  /** The task's timeoutPolicy times the workflow out with it (TIME_OUT_WF). */
  timesOutWorkflow: boolean;
}

/**
 * The timeouts an open task is subject to, in the order they are checked: its timeoutSeconds once started,
 * its responseTimeoutSeconds while a worker holds it (queued tasks), its pollTimeoutSeconds while no worker
 * took it (worker tasks). ALERT_ONLY tasks never time out. Pure: `def` is the task's effective definition.
 */
export function taskDeadlines(t: Task, def: TaskDef): readonly TaskDeadline[] {
  // Read for every open task at every decision: most have none, and share one empty list.
  let deadlines: TaskDeadline[] | undefined;
  const timesOutWorkflow = def.timeoutPolicy === 'TIME_OUT_WF';
  if (def.timeoutSeconds > 0 && t.startTime > 0 && def.timeoutPolicy !== 'ALERT_ONLY') {
    (deadlines ??= []).push({ kind: 'timeout', at: t.startTime + t.startDelayInSeconds * 1000 + def.timeoutSeconds * 1000, timesOutWorkflow });
  }
  if (t.status === 'IN_PROGRESS' && t.responseTimeoutSeconds > 0 && isQueuedType(t.taskType)) {
    (deadlines ??= []).push({
      kind: 'responseTimeout',
      at: t.updateTime + (t.responseTimeoutSeconds + t.callbackAfterSeconds) * 1000,
      timesOutWorkflow: false,
    });
  }
  const pollTimeout = def.pollTimeoutSeconds ?? 0;
  if (t.status === 'SCHEDULED' && pollTimeout > 0 && def.timeoutPolicy !== 'ALERT_ONLY' && isWorkerType(t.taskType)) {
    (deadlines ??= []).push({
      kind: 'pollTimeout',
      at: t.scheduledTime + t.startDelayInSeconds * 1000 + (pollTimeout + t.callbackAfterSeconds) * 1000,
      timesOutWorkflow,
    });
  }
  return deadlines ?? NO_DEADLINES;
}

/** When a running workflow times out (timeoutSeconds with policy TIME_OUT_WF, counted from its last retry); undefined if never. */
export function workflowDeadline(wf: WorkflowRecord): number | undefined {
  const def = wf.workflowDefinition;
  if (wf.status !== 'RUNNING' || def.timeoutSeconds <= 0 || def.timeoutPolicy !== 'TIME_OUT_WF') return undefined;
  return (wf.lastRetriedTime > 0 ? wf.lastRetriedTime : wf.createTime) + def.timeoutSeconds * 1000;
}

/** Earliest moment this execution needs to be looked at again; null when nothing is pending. */
export function nextDeadline(state: ExecutionState, env: Pick<EngineEnv, 'taskDef'>): number | null {
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) return null;
  let best = workflowDeadline(wf) ?? Infinity;
  if (wf.status === 'PAUSED') return best === Infinity ? null : best;
  for (const t of state.tasks) {
    if (isTerminalTask(t.status) || t.retried) continue;
    const own = taskTypeOf(t).deadline?.(t) ?? delayedStartAt(t);
    if (own !== undefined) best = Math.min(best, own);
    for (const d of taskDeadlines(t, effectiveTaskDef(t.workflowTask, t.taskDefName, env, isWorkerType(t.taskType)))) best = Math.min(best, d.at);
  }
  return best === Infinity ? null : best;
}
