import { isTerminalWorkflow } from '../../model/statuses';
import { enqueueEffect } from '../queue-effects';
import type { Turn } from '../state';
import { findTask } from '../task-lookup';
import { noteTaskStatus } from '../task-status';
import { taskTypeOf } from '../tasks/registry';

/**
 * Baton's own worker gives back a queued system task (HTTP) it claimed but never started (it stops while the task
 * waited for its host): the task is SCHEDULED in its queue again, for another replica, instead of waiting out its
 * response timeout and failing. False when the task is not such a claim any more (ended, timed out, not queued).
 */
export function releaseClaim(turn: Turn, taskId: string): boolean {
  const { state, env } = turn;
  const t = findTask(state, taskId);
  if (!t || t.status !== 'IN_PROGRESS' || taskTypeOf(t).kind !== 'queued' || isTerminalWorkflow(state.workflow.status)) return false;
  t.status = 'SCHEDULED';
  t.updateTime = env.now;
  turn.log.touch(t);
  noteTaskStatus(turn, t);
  turn.log.emit(enqueueEffect(t, env.now));
  return true;
}
