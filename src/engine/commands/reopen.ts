import type { Task } from '../../model/execution';
import { isTerminalTask, isTerminalWorkflow } from '../../model/statuses';
import { Errors } from '../../model/named-errors';
import { dequeueEffect } from '../queue-effects';
import type { Turn } from '../state';
import { isQueuedType } from '../tasks/registry';

// What restart, retry and rerun share: an ended workflow made RUNNING again, tasks dropped.

/** Only an ended workflow can be restarted, retried or rerun. */
export function requireTerminal(turn: Turn, what: string): void {
  const wf = turn.state.workflow;
  if (!isTerminalWorkflow(wf.status)) throw Errors.WORKFLOW_STILL_RUNNING(wf.workflowId, wf.status, what);
}

/** The workflow is RUNNING again, without its end, output and failures; its timeout counts from now. */
export function reopen(turn: Turn): void {
  const wf = turn.state.workflow;
  wf.status = 'RUNNING';
  wf.endTime = 0;
  wf.reasonForIncompletion = undefined;
  wf.failedReferenceTaskNames = [];
  wf.failedTaskNames = [];
  wf.output = {};
  wf.lastRetriedTime = turn.env.now;
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
}

/** Drops every task `keep` refuses: deleted with the commit, and out of its queue if it was in one. */
export function deleteTasks(turn: Turn, keep: (t: Task) => boolean): void {
  const kept: Task[] = [];
  for (const t of turn.state.tasks) {
    if (keep(t)) kept.push(t);
    else {
      turn.log.deletedTaskIds.push(t.taskId);
      turn.log.changed.delete(t);
      if (isQueuedType(t.taskType) && !isTerminalTask(t.status)) turn.log.emit(dequeueEffect(t));
    }
  }
  turn.state.tasks = kept;
}
