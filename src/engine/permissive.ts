import type { Task } from '../model/execution';
import { isSuccessfulTask, isTerminalTask } from '../model/statuses';

// Permissive tasks (Conductor OSS's WorkflowTask.permissive): a failure lets the workflow go on, and the
// JOIN that waits on the task, or the workflow's completion, fails instead once everything else has ended.

/** A failed permissive task the decider has moved past (its JOIN may count it as ended). */
export const isPassedPermissiveFailure = (t: Task): boolean =>
  !!t.workflowTask.permissive && !t.workflowTask.optional && t.executed && !t.retried && isTerminalTask(t.status) && !isSuccessfulTask(t.status);

/**
 * Why a workflow whose tasks have all ended cannot complete: the failed permissive tasks, latest attempt of each
 * reference (Conductor's DeciderService fails the workflow with these at completion); undefined when there are none.
 */
export function permissiveFailureReason(tasks: Task[]): string | undefined {
  const latest = new Map<string, Task>();
  for (const t of tasks) if (t.workflowTask.permissive && !t.workflowTask.optional) latest.set(t.referenceTaskName, t);
  const failed = [...latest.values()].filter((t) => isTerminalTask(t.status) && !isSuccessfulTask(t.status));
  if (failed.length === 0) return undefined;
  return failed.map((t) => `Task ${t.taskId} failed with status: ${t.status} and reason: '${t.reasonForIncompletion ?? ''}'`).join('. ');
}
