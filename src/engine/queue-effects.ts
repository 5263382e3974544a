import type { Task } from '../model/execution';
import type { Effect, QueueKey } from '../model/effects';

// The queue effects a task owes: one way to build each, wherever a task enters or leaves its queue.

export function queueKeyOf(t: Task): QueueKey {
  return { taskType: t.taskType, domain: t.domain, isolationGroupId: t.isolationGroupId, executionNameSpace: t.executionNameSpace };
}

/** Make the task pollable from its queue at `visibleAt` (epoch ms). */
export function enqueueEffect(t: Task, visibleAt: number): Extract<Effect, { kind: 'enqueue' }> {
  return { kind: 'enqueue', taskId: t.taskId, workflowId: t.workflowInstanceId, queue: queueKeyOf(t), priority: t.workflowPriority, visibleAt };
}

/** Drop the task's queue entry: it no longer needs a worker. */
export function dequeueEffect(t: Task): Extract<Effect, { kind: 'dequeue' }> {
  return { kind: 'dequeue', taskId: t.taskId, queue: queueKeyOf(t) };
}
