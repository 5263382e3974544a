import type { Task } from '../model/execution';
import type { Turn } from './state';
import { taskTypeNamed } from './tasks/registry';

// A retried asynchronous system task with a retry delay: Conductor queues the new attempt with that
// delay for its system-task worker, so it stays SCHEDULED until the delay has passed and only then
// starts. Baton's decider starts system tasks itself, so it holds these back here until then.
// Conductor's synchronous system tasks (INLINE, JSON_JQ_TRANSFORM, ...) start at once, delay or not.

/** When a system task held back by its retry delay is due to start; undefined for any other task. */
export function delayedStartAt(t: Task): number | undefined {
  if (t.status !== 'SCHEDULED' || !t.retriedTaskId || t.callbackAfterSeconds <= 0 || !taskTypeNamed(t.taskType).startsAfterRetryDelay) return undefined;
  return t.scheduledTime + t.callbackAfterSeconds * 1000;
}

/** Whether the task is a held-back system task whose delay has passed, so it starts now. */
export function isDueToStart(turn: Turn, t: Task): boolean {
  const at = delayedStartAt(t);
  return at !== undefined && turn.env.now >= at;
}
