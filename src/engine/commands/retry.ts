import type { Task } from '../../model/execution';
import { isTerminalWorkflow } from '../../model/statuses';
import { decide } from '../decide';
import { Errors } from '../../model/named-errors';
import { scheduleRetry } from '../failures';
import type { Turn } from '../state';
import { taskDefOf } from '../task-factory';
import { taskTypeOf } from '../tasks/registry';
import { reopen } from './reopen';

/** Retry the last failed tasks (Conductor's WorkflowExecutor.retry). */
export function retryWorkflow(turn: Turn): Task[] {
  const wf = turn.state.workflow;
  if (!isTerminalWorkflow(wf.status)) throw Errors.RETRY_OF_RUNNING_WORKFLOW(wf.status);
  if (turn.state.tasks.length === 0) throw Errors.WORKFLOW_NOT_STARTED();
  const latest = new Map<string, Task>();
  for (const t of turn.state.tasks) if (!t.retried || !latest.has(t.referenceTaskName)) latest.set(t.referenceTaskName, t);
  for (const t of turn.state.tasks) if (!t.retried) latest.set(t.referenceTaskName, t);
  const toRetry = [...latest.values()].filter((t) => ['FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'TIMED_OUT', 'CANCELED'].includes(t.status));
  if (toRetry.length === 0 && wf.status !== 'TIMED_OUT') throw Errors.NO_RETRYABLE_TASKS();
  reopen(turn);
  const retried: Task[] = [];
  for (const t of toRetry) {
    if (taskTypeOf(t).reopenedWithPredecessors) {
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      t.executed = false;
      turn.log.touch(t);
      continue;
    }
    const def = taskDefOf(turn, t);
    scheduleRetry(turn, t, def, true);
    retried.push(t);
  }
  // Tasks canceled by the failure (e.g. a sibling JOIN) are reopened by the decider as it goes.
  for (const t of turn.state.tasks) {
    if (t.status === 'CANCELED' && !t.retried && taskTypeOf(t).joinsFork) {
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      turn.log.touch(t);
    }
  }
  decide(turn);
  return retried;
}
