import { queueName } from '../../model/effects';
import type { Task } from '../../model/execution';
import type { TaskResult } from '../../model/requests';
import { isTerminalTask } from '../../model/statuses';
import { queueKeyOf } from '../queue-effects';
import type { Turn } from '../state';
import { findTask } from '../task-lookup';
import { claimTask } from './claim';
import { applyTaskResult, type UpdateOutcome } from './task-result';

/** What update-v2 learns from the execution: the outcome, the updated task's queue, and a task handed out at once. */
export interface UpdateAndClaim {
  outcome: UpdateOutcome;
  taskType?: string;
  domain?: string;
  /** The next task of the same queue that this very turn scheduled, already claimed for the worker. */
  next: Task | null;
}

/**
 * update-v2: applies a worker's result and, when that result scheduled the execution's next task on the
 * same queue, hands that task to the same worker in the same turn (Temporal's eager activity dispatch):
 * one commit instead of a queue push, a lease, a claim and a removal. Only for tasks that are visible at
 * once and whose definition has no concurrency or rate limit (those are admitted at the queue).
 */
export function applyTaskResultAndClaimNext(turn: Turn, result: TaskResult): UpdateAndClaim {
  const outcome = applyTaskResult(turn, result);
  const done = findTask(turn.state, result.taskId);
  if (!done) return { outcome, next: null };
  const located = { outcome, taskType: done.taskType, domain: done.domain };
  if (outcome !== 'applied' || !isTerminalTask(done.status)) return { ...located, next: null };
  const next = eagerCandidate(turn, done);
  if (!next) return { ...located, next: null };
  const claimed = claimTask(turn, next.taskId, result.workerId ?? undefined);
  if (claimed) dropEnqueue(turn, claimed.taskId);
  return { ...located, next: claimed };
}

/** A task this turn scheduled on the finished task's queue, pollable now, without admission limits. */
function eagerCandidate(turn: Turn, done: Task): Task | undefined {
  const queue = queueName(queueKeyOf(done));
  const enqueuedNow = new Set(
    turn.log.effects.flatMap((e) => (e.kind === 'enqueue' && e.visibleAt <= turn.env.now && queueName(e.queue) === queue ? [e.taskId] : [])),
  );
  if (enqueuedNow.size === 0) return undefined;
  return turn.state.tasks.find((t) => {
    if (!enqueuedNow.has(t.taskId) || t.status !== 'SCHEDULED') return false;
    const def = turn.env.taskDef(t.taskDefName);
    return !((def?.concurrentExecLimit ?? 0) > 0 || (def?.rateLimitPerFrequency ?? 0) > 0);
  });
}

function dropEnqueue(turn: Turn, taskId: string): void {
  const effects = turn.log.effects;
  for (let i = effects.length - 1; i >= 0; i--) {
    const e = effects[i]!;
    if (e.kind === 'enqueue' && e.taskId === taskId) effects.splice(i, 1);
  }
}
