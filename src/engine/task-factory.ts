import { ownValue, setOwn } from '../lib/own-property';
import type { TaskDef, WorkflowTask } from '../model/definitions';
import type { Task } from '../model/execution';
import type { TaskStatus } from '../model/statuses';
import { resolveInput } from './context';
import { jsonSize, taskPayloadProblem } from './payload-size';
import { enqueueEffect } from './queue-effects';
import { effectiveTaskDef, type ExecutionState, type Turn } from './state';
import { noteTaskStatus, truncate } from './task-status';
import { isQueuedType, isWorkerType, QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS, taskTypeNamed, taskTypeNameOf } from './tasks/registry';

// Building a task from its workflow task (Conductor's TaskMapper's common part) and adding it to the execution.

function domainFor(turn: Turn, taskType: string): string | undefined {
  const map = turn.state.workflow.taskToDomain ?? {};
  const spec = ownValue(map, taskType) ?? ownValue(map, '*');
  if (!spec) return undefined;
  const candidates = spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const c of candidates) {
    if (c === 'NO_DOMAIN') return undefined;
    if (turn.env.isDomainActive(taskType, c)) return c;
  }
  const last = candidates[candidates.length - 1];
  return last === 'NO_DOMAIN' ? undefined : last;
}

function nextSeq(state: ExecutionState): number {
  const last = state.tasks[state.tasks.length - 1];
  return last ? last.seq + 1 : 1;
}

export interface NewTaskOptions {
  suffix: string;
  iteration: number;
  taskType?: string;
  taskDefName?: string;
  /** Given: used as is; absent: resolved from the workflow task's inputParameters and the definition's inputTemplate. */
  input?: Record<string, unknown>;
  status?: TaskStatus;
  delaySeconds?: number;
  retryOf?: Task;
  /** The task's id when the caller needed it before the task existed (a retry resolving `${CPEWF_TASK_ID}`). */
  taskId?: string;
}

/** The effective definition of a task (inline, registered, or Conductor's ad-hoc one). */
export function taskDefOf(turn: Turn, t: Task): TaskDef {
  return effectiveTaskDef(t.workflowTask, t.taskDefName, turn.env, isWorkerType(t.taskType));
}

/** A new task for `wt` in the given scope; not yet part of the execution. */
export function makeTask(turn: Turn, wt: WorkflowTask, o: NewTaskOptions): Task {
  const { state, env } = turn;
  const wf = state.workflow;
  const taskType = o.taskType ?? taskTypeNameOf(wt);
  const taskDefName = o.taskDefName ?? wt.name;
  const worker = isWorkerType(taskType);
  const def = effectiveTaskDef(wt, taskDefName, env, worker);
  const taskId = o.taskId ?? env.newId();
  const delay = o.delaySeconds ?? wt.startDelay ?? 0;
  let input = o.input;
  if (!input) {
    const params: Record<string, unknown> = { ...(wt.inputParameters ?? {}), ...taskTypeNamed(taskType).inputAdditions?.(wt) };
    const template = def.inputTemplate ?? {};
    for (const [k, v] of Object.entries(template)) if (!Object.hasOwn(params, k)) setOwn(params, k, v);
    input = resolveInput(state, params, { CPEWF_TASK_ID: taskId }, turn.log.jsonPathBudget(env));
    for (const [k, v] of Object.entries(template)) if (ownValue(input, k) == null) setOwn(input, k, v);
  }
  return {
    taskId,
    taskType,
    taskDefName,
    referenceTaskName: wt.taskReferenceName + o.suffix,
    status: o.status ?? 'SCHEDULED',
    inputData: input,
    outputData: {},
    workflowInstanceId: wf.workflowId,
    workflowType: wf.workflowName,
    correlationId: wf.correlationId,
    workflowPriority: wf.priority,
    retryCount: o.retryOf ? o.retryOf.retryCount + 1 : 0,
    seq: nextSeq(state),
    pollCount: 0,
    scheduledTime: env.now,
    startTime: 0,
    endTime: 0,
    updateTime: env.now,
    startDelayInSeconds: delay,
    retriedTaskId: o.retryOf?.taskId,
    retried: false,
    executed: false,
    callbackFromWorker: true,
    // A queued system task (HTTP) is as lost as a worker's when Baton's own worker dies mid-call.
    responseTimeoutSeconds: worker
      ? def.responseTimeoutSeconds
      : taskTypeNamed(taskType).kind === 'queued'
        ? def.responseTimeoutSeconds || QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS
        : 0,
    callbackAfterSeconds: delay,
    reasonForIncompletion: o.retryOf?.reasonForIncompletion,
    workflowTask: wt,
    domain: worker ? domainFor(turn, taskType) : undefined,
    rateLimitPerFrequency: def.rateLimitPerFrequency ?? 0,
    rateLimitFrequencyInSeconds: def.rateLimitFrequencyInSeconds ?? 1,
    isolationGroupId: def.isolationGroupId ?? undefined,
    executionNameSpace: def.executionNameSpace ?? undefined,
    iteration: o.iteration,
  };
}

/** Appends the task to the execution; a SCHEDULED queued task owes its enqueue, visible after its delay. */
export function addTask(turn: Turn, task: Task): void {
  turn.state.tasks.push(task);
  turn.log.touch(task);
  noteTaskStatus(turn, task);
  if (task.status === 'SCHEDULED' && isQueuedType(task.taskType)) turn.log.emit(enqueueEffect(task, turn.env.now + task.callbackAfterSeconds * 1000));
}

/**
 * A new task whose resolved input is over the task payload limit fails at once, without that input, as
 * Conductor fails it; the decider then ends the workflow (or completes an optional task with errors).
 */
export function failIfInputTooLarge(turn: Turn, t: Task): boolean {
  const problem = taskPayloadProblem(t, 'input', jsonSize(t.inputData), turn.env.taskPayloadMaxBytes);
  if (!problem) return false;
  t.inputData = {};
  t.status = 'FAILED_WITH_TERMINAL_ERROR';
  t.reasonForIncompletion = truncate(problem);
  t.endTime = turn.env.now;
  return true;
}

/** Why no more tasks are scheduled: the execution holds BATON_MAX_TASKS_PER_EXECUTION (Conductor has no such cap). */
export function tooManyTasks(turn: Turn, runtimeRef: string): string {
  const wf = turn.state.workflow;
  return `Workflow ${wf.workflowId} holds ${turn.state.tasks.length} tasks, the limit of ${turn.env.maxTasksPerExecution} tasks per execution (BATON_MAX_TASKS_PER_EXECUTION); task ${runtimeRef} was not scheduled`;
}
