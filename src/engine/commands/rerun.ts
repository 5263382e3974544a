import type { Task } from '../../model/execution';
import { blueprintOf } from '../blueprint';
import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import { enqueueEffect } from '../queue-effects';
import { startTask } from '../scheduling';
import type { Turn } from '../state';
import { findTask, latestByRef } from '../task-lookup';
import { isQueuedType, taskTypeOf } from '../tasks/registry';
import { refSuffix } from '../tasks/task-type';
import { deleteTasks, reopen, requireTerminal } from './reopen';

export interface RerunArgs {
  reRunFromTaskId?: string | null;
  workflowInput?: Record<string, unknown> | null;
  taskInput?: Record<string, unknown> | null;
  correlationId?: string | null;
}

/** Rerun from a task, or from the start (Conductor's WorkflowExecutor.rerun). */
export function rerunWorkflow(turn: Turn, args: RerunArgs): void {
  requireTerminal(turn, 'rerun');
  const wf = turn.state.workflow;
  if (args.workflowInput) wf.input = args.workflowInput;
  if (args.correlationId) wf.correlationId = args.correlationId;
  if (!args.reRunFromTaskId) {
    deleteTasks(turn, () => false);
    reopen(turn);
    decide(turn);
    return;
  }
  const from = findTask(turn.state, args.reRunFromTaskId);
  if (!from) throw Errors.RERUN_TASK_NOT_FOUND(args.reRunFromTaskId, wf.workflowId);
  const bp = blueprintOf(wf.workflowDefinition);
  // A JOIN whose fork was scheduled before the rerun task still waits on it: keep it and reopen it below.
  const enclosingJoin = (t: Task): boolean => {
    if (!taskTypeOf(t).joinsFork) return false;
    const fork = bp.forkBefore(t.workflowTask.taskReferenceName);
    const forkTask = fork && latestByRef(turn.state.tasks, fork.taskReferenceName + refSuffix(t));
    return !!forkTask && forkTask.seq < from.seq;
  };
  deleteTasks(turn, (t) => t.seq <= from.seq || enclosingJoin(t));
  reopen(turn);
  from.status = 'SCHEDULED';
  from.retried = false;
  from.executed = false;
  from.outputData = {};
  from.pollCount = 0;
  from.startTime = 0;
  from.endTime = 0;
  from.reasonForIncompletion = undefined;
  from.scheduledTime = turn.env.now;
  from.updateTime = turn.env.now;
  from.callbackAfterSeconds = 0;
  if (args.taskInput) from.inputData = args.taskInput;
  turn.log.touch(from);
  for (const t of turn.state.tasks) {
    const type = taskTypeOf(t);
    const reopenable = t.status === 'CANCELED' || t.status === 'FAILED' || t.status === 'TIMED_OUT' || (type.joinsFork && t.seq > from.seq);
    if (t !== from && !t.retried && reopenable && type.reopenedWithPredecessors) {
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      t.executed = false;
      turn.log.touch(t);
    }
  }
  if (isQueuedType(from.taskType)) {
    turn.log.emit(enqueueEffect(from, turn.env.now));
  } else {
    startTask(turn, from, true);
  }
  decide(turn);
}
