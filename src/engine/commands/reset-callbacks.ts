import { isTerminalWorkflow } from '../../model/statuses';
import { Errors } from '../../model/named-errors';
import { enqueueEffect } from '../queue-effects';
import type { Turn } from '../state';
import { isWorkerType } from '../tasks/registry';

/**
 * Scheduled worker tasks held back by `callbackAfterSeconds` become pollable now (`POST /api/workflow/{id}/resetcallbacks`).
 * Returns how many tasks were reset.
 */
export function resetCallbacks(turn: Turn): number {
  const { state, env } = turn;
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) throw Errors.WORKFLOW_TERMINAL(wf.status);
  let n = 0;
  for (const t of state.tasks) {
    if (t.status !== 'SCHEDULED' || t.retried || !isWorkerType(t.taskType) || t.callbackAfterSeconds <= 0) continue;
    t.callbackAfterSeconds = 0;
    t.updateTime = env.now;
    turn.log.touch(t);
    turn.log.emit(enqueueEffect(t, env.now));
    n++;
  }
  return n;
}
