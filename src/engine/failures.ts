import type { TaskDef } from '../model/definitions';
import type { Task } from '../model/execution';
import { isRetriableTask, type WorkflowStatus } from '../model/statuses';
import { resolveInput } from './context';
import { endWorkflow } from './end-workflow';
import { ExpressionLimitError } from './jsonpath-budget';
import { retryDelaySeconds } from './retry';
import { addAndStart } from './scheduling';
import type { Turn } from './state';
import { addTask, failIfInputTooLarge, makeTask, taskDefOf, tooManyTasks } from './task-factory';
import { delayedStartAt } from './delayed-start';
import { truncate } from './task-status';
import { isBuiltInType } from './tasks/registry';
import { refSuffix } from './tasks/task-type';

// What a task that ended badly leads to: a retry, completion with errors (an optional task), or the end
// of the workflow (Conductor's DeciderService.retry and its callers).

/**
 * Schedules a new attempt of a failed task after its retry delay; `ignoreLimit`: the workflow's retry
 * command, which retries whatever the retry count and at once. False when no attempt was scheduled.
 */
export function scheduleRetry(turn: Turn, t: Task, def: TaskDef, ignoreLimit = false): boolean {
  const expected = t.workflowTask.retryCount ?? def.retryCount ?? 0;
  if (!ignoreLimit && (!isRetriableTask(t.status) || isBuiltInType(t.taskType) || t.retryCount >= expected)) return false;
  if (turn.state.tasks.length >= turn.env.maxTasksPerExecution) {
    t.reasonForIncompletion = truncate(
      `${t.reasonForIncompletion ? `${t.reasonForIncompletion}; ` : ''}not retried: ${tooManyTasks(turn, t.referenceTaskName)}`,
    );
    turn.log.touch(t);
    return false;
  }
  const delay = ignoreLimit ? 0 : retryDelaySeconds(def, t.retryCount);
  // The new attempt's id first: its input is resolved again, `${CPEWF_TASK_ID}` naming the new task.
  const taskId = turn.env.newId();
  let reresolved: Record<string, unknown>;
  try {
    reresolved = resolveInput(turn.state, t.workflowTask.inputParameters, { CPEWF_TASK_ID: taskId }, turn.log.jsonPathBudget(turn.env));
  } catch (e) {
    if (!(e instanceof ExpressionLimitError)) throw e;
    // No retry: the task fails (and ends the workflow) with the budget's reason.
    t.reasonForIncompletion = truncate(e.message);
    turn.log.touch(t);
    return false;
  }
  const input = { ...t.inputData, ...reresolved };
  const copy = makeTask(turn, t.workflowTask, {
    suffix: refSuffix(t),
    iteration: t.iteration,
    taskType: t.taskType,
    taskDefName: t.taskDefName,
    input,
    delaySeconds: delay,
    retryOf: t,
    taskId,
  });
  copy.domain = t.domain;
  t.retried = true;
  turn.log.touch(t);
  if (delayedStartAt(copy) === undefined) {
    addAndStart(turn, copy);
  } else {
    // A system task held back by its retry delay: the decider starts it once the delay has passed.
    failIfInputTooLarge(turn, copy);
    addTask(turn, copy);
  }
  return true;
}

/** Handles a terminal unsuccessful task: retry, optional, or end the workflow. Returns false when the workflow ended. */
export function handleFailure(turn: Turn, t: Task): boolean {
  if (scheduleRetry(turn, t, taskDefOf(turn, t))) return true;
  if (t.workflowTask.optional) {
    t.status = 'COMPLETED_WITH_ERRORS';
    turn.log.touch(t);
    return true;
  }
  // A permissive task stays failed and the workflow goes on: its JOIN, or the completion, fails it later.
  if (t.workflowTask.permissive) return true;
  const wfStatus: WorkflowStatus = t.status === 'CANCELED' ? 'TERMINATED' : t.status === 'TIMED_OUT' ? 'TIMED_OUT' : 'FAILED';
  endWorkflow(turn, wfStatus, `Task ${t.taskId} failed with status: ${wfStatus} and reason: '${t.reasonForIncompletion ?? ''}'`, {
    lastTask: t,
    failedTask: t,
  });
  return false;
}
