import type { Task } from '../../model/execution';
import { isTerminalWorkflow } from '../../model/statuses';
import type { Turn } from '../state';
import { findTask } from '../task-lookup';
import { noteTaskStatus } from '../task-status';

/**
 * A poll handed the task to a worker: it becomes IN_PROGRESS (Conductor acks at poll time), remembering the
 * poll's claim id. Null when it is no longer pollable.
 */
export function claimTask(turn: Turn, taskId: string, workerId: string | undefined, claimId?: string): Task | null {
  const { state, env } = turn;
  const t = findTask(state, taskId);
  if (!t || t.status !== 'SCHEDULED' || isTerminalWorkflow(state.workflow.status)) return null;
  t.status = 'IN_PROGRESS';
  if (!t.startTime) t.startTime = env.now;
  if (!t.firstStartTime) t.firstStartTime = env.now;
  t.callbackAfterSeconds = 0;
  t.pollCount += 1;
  t.updateTime = env.now;
  if (workerId) t.workerId = workerId;
  if (claimId !== undefined) t.claimId = claimId;
  else delete t.claimId;
  turn.log.touch(t);
  noteTaskStatus(turn, t);
  return t;
}
