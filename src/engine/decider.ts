import type { TaskDef, WorkflowDef, WorkflowTask } from '../model/definitions';
import type { Task, WorkflowRecord } from '../model/execution';
import type { StartWorkflowRequest, TaskResult } from '../model/requests';
import { isRetriableTask, isSuccessfulTask, isTerminalTask, isTerminalWorkflow, type TaskStatus, type WorkflowStatus } from '../model/statuses';
import { blueprintOf } from './blueprint';
import { latestByRef, latestWithRuntimeRef, lookupFor, resolveInput, taskById } from './context';
import type { ParentLink, QueueKey } from '../model/effects';
import { retryDelaySeconds } from './retry';
import { adhocTaskDef, effectiveTaskDef, TurnLog, type EngineEnv, type ExecutionState, type Turn } from './state';
import { BUILT_IN_TYPES, isQueuedType, isWorkerType, QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS, QUEUED_SYSTEM_TYPES } from './task-types';
import { runInlineTask, evaluateTask, finishScript, waitDeadline } from './system-tasks';
import { resolveValue } from './expressions';
import { ExpressionLimitError } from './jsonpath-budget';
import { jsonSize, taskPayloadProblem, workflowPayloadProblem } from './payload-size';
import type { ScriptOutcome, ScriptRequest } from './script-requests';

// The decider: pure functions over an in-memory execution. Every change is recorded in the turn's
// log (tasks touched, effects owed); the actor persists the log, then runs the effects.

const MAX_DECIDE_ROUNDS = 1000;
const REASON_LIMIT = 500;

export class EngineError extends Error {
  constructor(
    readonly kind: 'conflict' | 'notFound' | 'invalid',
    message: string,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

const truncate = (s: string | undefined | null): string | undefined => (s == null ? undefined : s.length > REASON_LIMIT ? s.slice(0, REASON_LIMIT) : s);

// ---------------------------------------------------------------------------------------------
// Start

export interface StartArgs {
  workflowId: string;
  def: WorkflowDef;
  request: StartWorkflowRequest;
  parent?: ParentLink;
  event?: string;
}

export function newExecution(args: StartArgs, env: EngineEnv): { state: ExecutionState; log: TurnLog } {
  const { def, request } = args;
  const input: Record<string, unknown> = { ...(request.input ?? {}) };
  for (const [k, v] of Object.entries(def.inputTemplate ?? {})) if (!(k in input)) input[k] = v;
  const workflow: WorkflowRecord = {
    workflowId: args.workflowId,
    status: 'RUNNING',
    createTime: env.now,
    startTime: env.now,
    updateTime: env.now,
    endTime: 0,
    lastRetriedTime: 0,
    input,
    output: {},
    correlationId: request.correlationId ?? undefined,
    parentWorkflowId: args.parent?.workflowId,
    parentWorkflowTaskId: args.parent?.taskId,
    event: args.event,
    taskToDomain: request.taskToDomain ?? {},
    failedReferenceTaskNames: [],
    failedTaskNames: [],
    workflowDefinition: def,
    workflowName: def.name,
    workflowVersion: def.version,
    externalInputPayloadStoragePath: request.externalInputPayloadStoragePath ?? undefined,
    priority: request.priority ?? 0,
    variables: structuredClone(def.variables ?? {}),
    createdBy: request.createdBy ?? undefined,
    ...(args.parent ? { subWorkflowDepth: args.parent.depth ?? 1 } : {}),
  };
  const state: ExecutionState = { workflow, tasks: [] };
  const log = new TurnLog();
  log.workflowChanged = true;
  if (def.workflowStatusListenerEnabled) {
    log.emit({ kind: 'statusChange', eventId: `${workflow.workflowId}:RUNNING:${env.now}`, workflowId: workflow.workflowId, workflowName: def.name, status: 'RUNNING' });
  }
  decide({ state, env, log });
  return { state, log };
}

// ---------------------------------------------------------------------------------------------
// Scheduling

/** Runtime ref suffix of a task: `__N` parts added by enclosing loops. */
export function refSuffix(t: Task): string {
  return t.referenceTaskName.slice(t.workflowTask.taskReferenceName.length);
}

function domainFor(turn: Turn, taskType: string): string | undefined {
  const map = turn.state.workflow.taskToDomain ?? {};
  const spec = map[taskType] ?? map['*'];
  if (!spec) return undefined;
  const candidates = spec.split(',').map((s) => s.trim()).filter(Boolean);
  for (const c of candidates) {
    if (c === 'NO_DOMAIN') return undefined;
    if (turn.env.isDomainActive(taskType, c)) return c;
  }
  const last = candidates[candidates.length - 1];
  return last === 'NO_DOMAIN' ? undefined : last;
}

export function queueKeyOf(t: Task): QueueKey {
  return { taskType: t.taskType, domain: t.domain, isolationGroupId: t.isolationGroupId, executionNameSpace: t.executionNameSpace };
}

function nextSeq(state: ExecutionState): number {
  const last = state.tasks[state.tasks.length - 1];
  return last ? last.seq + 1 : 1;
}

interface NewTaskOptions {
  suffix: string;
  iteration: number;
  taskType?: string;
  taskDefName?: string;
  input?: Record<string, unknown>;
  status?: TaskStatus;
  delaySeconds?: number;
  retryOf?: Task;
}

function makeTask(turn: Turn, wt: WorkflowTask, o: NewTaskOptions): Task {
  const { state, env } = turn;
  const wf = state.workflow;
  const taskType = o.taskType ?? (wt.type === 'FORK_JOIN' || wt.type === 'FORK_JOIN_DYNAMIC' ? 'FORK' : wt.type === 'SIMPLE' ? wt.name : wt.type);
  const taskDefName = o.taskDefName ?? (wt.type === 'SIMPLE' || isWorkerType(wt.type) ? wt.name : wt.type === 'DYNAMIC' ? taskType : wt.name);
  const worker = isWorkerType(taskType);
  const def = effectiveTaskDef(wt, taskDefName, env, worker);
  const taskId = env.newId();
  const delay = o.delaySeconds ?? wt.startDelay ?? 0;
  let input = o.input;
  if (!input) {
    const params: Record<string, unknown> = { ...(wt.inputParameters ?? {}) };
    const template = def.inputTemplate ?? {};
    for (const k of Object.keys(template)) if (!(k in params)) params[k] = template[k];
    input = resolveInput(state, params, { CPEWF_TASK_ID: taskId }, turn.log.jsonPathBudget(env));
    for (const [k, v] of Object.entries(template)) if (input[k] == null) input[k] = v;
  }
  const task: Task = {
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
    responseTimeoutSeconds: worker ? def.responseTimeoutSeconds : QUEUED_SYSTEM_TYPES.has(taskType) ? def.responseTimeoutSeconds || QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS : 0,
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
  return task;
}

/** With the workflow's status listener on, every task status change is published too (issue: status listeners). */
export function noteTaskStatus(turn: Turn, t: Task): void {
  const wf = turn.state.workflow;
  if (!wf.workflowDefinition.workflowStatusListenerEnabled) return;
  turn.log.emit({
    kind: 'statusChange',
    eventId: `${t.taskId}:${t.status}:${t.updateTime}:${t.pollCount}`,
    workflowId: wf.workflowId,
    workflowName: wf.workflowName,
    status: t.status,
    task: { taskId: t.taskId, taskRef: t.referenceTaskName, taskType: t.taskType },
  });
}

function addTask(turn: Turn, task: Task): void {
  turn.state.tasks.push(task);
  turn.log.touch(task);
  noteTaskStatus(turn, task);
  if (task.status === 'SCHEDULED' && isQueuedType(task.taskType)) {
    turn.log.emit({
      kind: 'enqueue',
      taskId: task.taskId,
      workflowId: task.workflowInstanceId,
      queue: queueKeyOf(task),
      priority: task.workflowPriority,
      visibleAt: turn.env.now + task.callbackAfterSeconds * 1000,
    });
  }
}

/** Schedules `wt` (and, for control flow, what it opens) in the scope given by suffix/iteration. */
export function scheduleTask(turn: Turn, wt: WorkflowTask, suffix: string, iteration: number): void {
  if (isTerminalWorkflow(turn.state.workflow.status)) return; // e.g. a TERMINATE in an earlier fork branch
  const existing = latestWithRuntimeRef(turn.state.tasks, wt.taskReferenceName + suffix);
  if (existing) {
    // A skipped reference is never scheduled: the decider moves on to its successor.
    if (existing.status === 'SKIPPED' && !existing.executed) {
      existing.executed = true;
      turn.log.touch(existing);
      scheduleNext(turn, existing);
    }
    return;
  }
  if (turn.state.tasks.length >= turn.env.maxTasksPerExecution) {
    failInvalidTask(turn, wt, suffix, iteration, tooManyTasks(turn, wt.taskReferenceName + suffix));
    return;
  }
  switch (wt.type) {
    case 'DYNAMIC': {
      const input = resolvingInput(turn, wt, suffix, iteration, () => resolveInput(turn.state, wt.inputParameters, undefined, turn.log.jsonPathBudget(turn.env)));
      if (!input) return;
      const name = String(input[wt.dynamicTaskNameParam ?? 'taskToExecute'] ?? '');
      if (!name) {
        failInvalidTask(turn, wt, suffix, iteration, `Cannot map a dynamic task based on the parameter and input. Parameter= ${wt.dynamicTaskNameParam}, input= ${JSON.stringify(input)}`, input);
        return;
      }
      if (!wt.taskDefinition && !turn.env.taskDef(name)) {
        failInvalidTask(turn, wt, suffix, iteration, `Invalid task specified. Cannot find task by name ${name} in the task definitions`, input);
        return;
      }
      const t = makeTask(turn, wt, { suffix, iteration, input, taskType: name, taskDefName: name });
      failIfInputTooLarge(turn, t);
      addTask(turn, t);
      return;
    }
    case 'FORK_JOIN':
    case 'FORK_JOIN_DYNAMIC':
    case 'DO_WHILE':
    case 'SWITCH':
    case 'DECISION': {
      const t = resolvingInput(turn, wt, suffix, iteration, () => makeTask(turn, wt, { suffix, iteration }));
      if (t) addAndRun(turn, t);
      return;
    }
    default: {
      // A user-defined type runs like SIMPLE but needs a registered definition.
      if (wt.type !== 'SIMPLE' && isWorkerType(wt.type) && !wt.taskDefinition && !turn.env.taskDef(wt.name)) {
        failInvalidTask(turn, wt, suffix, iteration, `Invalid task specified. Cannot find task by name ${wt.name} in the task definitions`);
        return;
      }
      const t = resolvingInput(turn, wt, suffix, iteration, () => makeTask(turn, wt, { suffix, iteration }));
      if (t) addAndRun(turn, t);
    }
  }
}

/** Adds a new task and runs it if it is a system task, unless its input alone already failed it. */
function addAndRun(turn: Turn, t: Task): void {
  const failed = failIfInputTooLarge(turn, t);
  addTask(turn, t);
  if (!failed) runInlineTask(turn, t, controlFlowHooks);
}

/**
 * A new task whose resolved input is over the task payload limit fails at once, without that input, as
 * Conductor fails it; the decider then ends the workflow (or completes an optional task with errors).
 */
function failIfInputTooLarge(turn: Turn, t: Task): boolean {
  const problem = taskPayloadProblem(t, 'input', jsonSize(t.inputData), turn.env.taskPayloadMaxBytes);
  if (!problem) return false;
  t.inputData = {};
  t.status = 'FAILED_WITH_TERMINAL_ERROR';
  t.reasonForIncompletion = truncate(problem);
  t.endTime = turn.env.now;
  return true;
}

/** Why no more tasks are scheduled: the execution holds BATON_MAX_TASKS_PER_EXECUTION (Conductor has no such cap). */
function tooManyTasks(turn: Turn, runtimeRef: string): string {
  const wf = turn.state.workflow;
  return `Workflow ${wf.workflowId} holds ${turn.state.tasks.length} tasks, the limit of ${turn.env.maxTasksPerExecution} tasks per execution (BATON_MAX_TASKS_PER_EXECUTION); task ${runtimeRef} was not scheduled`;
}

/** Records a task that cannot be scheduled and fails the workflow, as Conductor's TerminateWorkflowException does. */
/** Runs an input resolution; one that went past the JSONPath budget fails the task and the workflow with the budget's reason. */
function resolvingInput<T>(turn: Turn, wt: WorkflowTask, suffix: string, iteration: number, resolve: () => T): T | undefined {
  try {
    return resolve();
  } catch (e) {
    if (!(e instanceof ExpressionLimitError)) throw e;
    failInvalidTask(turn, wt, suffix, iteration, e.message);
    return undefined;
  }
}

function failInvalidTask(turn: Turn, wt: WorkflowTask, suffix: string, iteration: number, reason: string, input?: Record<string, unknown>): void {
  const t = makeTask(turn, wt, { suffix, iteration, input: input ?? {}, taskType: wt.type === 'SIMPLE' ? wt.name : wt.type, taskDefName: wt.name, status: 'FAILED_WITH_TERMINAL_ERROR' });
  if (taskPayloadProblem(t, 'input', jsonSize(t.inputData), turn.env.taskPayloadMaxBytes)) t.inputData = {};
  t.reasonForIncompletion = truncate(reason);
  t.endTime = turn.env.now;
  t.executed = true;
  addTask(turn, t);
  endWorkflow(turn, 'FAILED', reason, { lastTask: t, failedTask: t });
}

/** Hooks the system-task module uses to schedule children without a circular import. */
export interface ControlFlowHooks {
  scheduleTask(turn: Turn, wt: WorkflowTask, suffix: string, iteration: number): void;
  scheduleNext(turn: Turn, t: Task): void;
  addTask(turn: Turn, t: Task): void;
  makeTask(turn: Turn, wt: WorkflowTask, o: NewTaskOptions): Task;
  endWorkflow(turn: Turn, status: WorkflowStatus, reason: string | undefined, opts?: EndOptions): void;
}

/** Schedules what follows a finished task in the blueprint, climbing out of SWITCH branches. */
export function scheduleNext(turn: Turn, t: Task): void {
  const bp = blueprintOf(turn.state.workflow.workflowDefinition);
  const suffix = refSuffix(t);
  let ref = t.workflowTask.taskReferenceName;
  // Dynamic fork branches are not in the blueprint: they end where they are.
  for (;;) {
    const loc = bp.find(ref);
    if (!loc) return;
    const next = loc.list[loc.index + 1];
    if (next) {
      scheduleTask(turn, next, suffix, t.iteration);
      return;
    }
    if (loc.kind !== 'switch' || !loc.parent) return; // root ends the workflow; fork/loop ends are watched by JOIN/DO_WHILE
    ref = loc.parent.taskReferenceName;
  }
}

export const controlFlowHooks: ControlFlowHooks = {
  scheduleTask,
  scheduleNext,
  addTask,
  makeTask,
  endWorkflow: (turn, status, reason, opts) => endWorkflow(turn, status, reason, opts),
};

// ---------------------------------------------------------------------------------------------
// Decide loop

function taskDefOf(turn: Turn, t: Task): TaskDef {
  return effectiveTaskDef(t.workflowTask, t.taskDefName, turn.env, isWorkerType(t.taskType));
}

function markTerminal(turn: Turn, t: Task, status: TaskStatus, reason?: string): void {
  t.status = status;
  if (reason !== undefined) t.reasonForIncompletion = truncate(reason);
  if (!t.endTime) t.endTime = turn.env.now;
  t.updateTime = turn.env.now;
  turn.log.touch(t);
  noteTaskStatus(turn, t);
  if (isQueuedType(t.taskType)) turn.log.emit({ kind: 'dequeue', taskId: t.taskId, queue: queueKeyOf(t) });
}

/** Applies task timeout, response timeout and poll timeout, as Conductor's DeciderService does. Returns true when it changed the task. */
function checkTaskTimeouts(turn: Turn, t: Task): 'none' | 'timedOut' | 'timeOutWorkflow' {
  if (isTerminalTask(t.status)) return 'none';
  const now = turn.env.now;
  const def = taskDefOf(turn, t);
  if (def.timeoutSeconds > 0 && t.startTime > 0 && def.timeoutPolicy !== 'ALERT_ONLY') {
    if (now - (t.startTime + t.startDelayInSeconds * 1000) >= def.timeoutSeconds * 1000) {
      markTerminal(turn, t, 'TIMED_OUT', `Task timed out after ${def.timeoutSeconds} seconds. Timeout configured as ${def.timeoutSeconds} seconds. Timeout policy configured to ${def.timeoutPolicy}`);
      return def.timeoutPolicy === 'TIME_OUT_WF' ? 'timeOutWorkflow' : 'timedOut';
    }
  }
  if (t.status === 'IN_PROGRESS' && isQueuedType(t.taskType) && t.responseTimeoutSeconds > 0) {
    if (now - t.updateTime >= (t.responseTimeoutSeconds + t.callbackAfterSeconds) * 1000) {
      markTerminal(turn, t, 'TIMED_OUT', `responseTimeout: ${t.responseTimeoutSeconds} exceeded for the taskId: ${t.taskId} with Task Status: ${t.status}`);
      return 'timedOut';
    }
  }
  const pollTimeout = def.pollTimeoutSeconds ?? 0;
  if (t.status === 'SCHEDULED' && isWorkerType(t.taskType) && pollTimeout > 0 && def.timeoutPolicy !== 'ALERT_ONLY') {
    if (now - (t.scheduledTime + t.startDelayInSeconds * 1000) >= (pollTimeout + t.callbackAfterSeconds) * 1000) {
      markTerminal(turn, t, 'TIMED_OUT', `Task poll timed out after ${pollTimeout} seconds. Timeout policy configured to ${def.timeoutPolicy}`);
      return def.timeoutPolicy === 'TIME_OUT_WF' ? 'timeOutWorkflow' : 'timedOut';
    }
  }
  return 'none';
}

function scheduleRetry(turn: Turn, t: Task, def: TaskDef, ignoreLimit = false): boolean {
  const expected = t.workflowTask.retryCount ?? def.retryCount ?? 0;
  if (!ignoreLimit && (!isRetriableTask(t.status) || BUILT_IN_TYPES.has(t.taskType) || t.retryCount >= expected)) return false;
  if (turn.state.tasks.length >= turn.env.maxTasksPerExecution) {
    t.reasonForIncompletion = truncate(`${t.reasonForIncompletion ? `${t.reasonForIncompletion}; ` : ''}not retried: ${tooManyTasks(turn, t.referenceTaskName)}`);
    turn.log.touch(t);
    return false;
  }
  const delay = ignoreLimit ? 0 : retryDelaySeconds(def, t.retryCount);
  let reresolved: Record<string, unknown>;
  try {
    reresolved = resolveInput(turn.state, t.workflowTask.inputParameters, undefined, turn.log.jsonPathBudget(turn.env));
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
  });
  copy.domain = t.domain;
  t.retried = true;
  turn.log.touch(t);
  addAndRun(turn, copy);
  return true;
}

/** Handles a terminal unsuccessful task: retry, optional, or end the workflow. Returns false when the workflow ended. */
function handleFailure(turn: Turn, t: Task): boolean {
  const def = taskDefOf(turn, t);
  if (scheduleRetry(turn, t, def)) return true;
  if (t.workflowTask.optional) {
    t.status = 'COMPLETED_WITH_ERRORS';
    turn.log.touch(t);
    return true;
  }
  const wfStatus: WorkflowStatus = t.status === 'CANCELED' ? 'TERMINATED' : t.status === 'TIMED_OUT' ? 'TIMED_OUT' : 'FAILED';
  endWorkflow(turn, wfStatus, `Task ${t.taskId} failed with status: ${wfStatus} and reason: '${t.reasonForIncompletion ?? ''}'`, { lastTask: t, failedTask: t });
  return false;
}

function checkWorkflowTimeout(turn: Turn): boolean {
  const wf = turn.state.workflow;
  const def = wf.workflowDefinition;
  if (wf.status !== 'RUNNING' || def.timeoutSeconds <= 0 || def.timeoutPolicy !== 'TIME_OUT_WF') return false;
  const since = wf.lastRetriedTime > 0 ? wf.lastRetriedTime : wf.createTime;
  if (turn.env.now - since < def.timeoutSeconds * 1000) return false;
  endWorkflow(turn, 'TIMED_OUT', `Workflow timed out after ${def.timeoutSeconds} seconds. Timeout configured as ${def.timeoutSeconds} seconds. Timeout policy configured to ${def.timeoutPolicy}`);
  return true;
}

export function decide(turn: Turn): void {
  const { state } = turn;
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) return;
  if (checkWorkflowTimeout(turn)) return;
  if (wf.status === 'PAUSED') return;
  if (state.tasks.length === 0) {
    const first = wf.workflowDefinition.tasks[0];
    if (first) scheduleTask(turn, first, '', 0);
  }
  let round = 0;
  for (; round < MAX_DECIDE_ROUNDS; round++) {
    if (isTerminalWorkflow(wf.status)) return;
    let progressed = false;
    // Iterate over a snapshot: scheduling appends new tasks, handled in the next round.
    const pending = state.tasks.filter((t) => !t.executed && !t.retried && t.status !== 'SKIPPED');
    for (const t of pending) {
      if (isTerminalWorkflow(wf.status)) return;
      const timeout = checkTaskTimeouts(turn, t);
      if (timeout === 'timeOutWorkflow') {
        endWorkflow(turn, 'TIMED_OUT', t.reasonForIncompletion, { lastTask: t, failedTask: t });
        return;
      }
      if (timeout === 'timedOut') progressed = true;
      if (!isTerminalTask(t.status)) {
        if (evaluateTask(turn, t, controlFlowHooks)) progressed = true;
        if (!isTerminalTask(t.status)) continue;
      }
      if (!isSuccessfulTask(t.status)) {
        if (!handleFailure(turn, t)) return;
        progressed = true;
        if (t.retried) continue;
      }
      t.executed = true;
      turn.log.touch(t);
      progressed = true;
      if (t.taskType === 'TERMINATE') continue; // ended the workflow already
      scheduleNext(turn, t);
    }
    if (!progressed) break;
  }
  if (!isTerminalWorkflow(wf.status) && isComplete(state)) endWorkflow(turn, 'COMPLETED', undefined);
  // Still progressing at the round limit: the actor carries on in a new turn rather than block longer.
  if (round === MAX_DECIDE_ROUNDS) turn.log.unfinished = true;
}

/** All tasks terminal and processed, and every top-level task of the definition has run (DeciderService.checkForWorkflowCompletion). */
function isComplete(state: ExecutionState): boolean {
  if (state.tasks.length === 0) return false;
  const ran = new Set<string>();
  for (const t of state.tasks) {
    ran.add(t.workflowTask.taskReferenceName);
    if (t.retried) continue;
    if (!isTerminalTask(t.status)) return false;
    if (!t.executed && t.status !== 'SKIPPED') return false;
  }
  return state.workflow.workflowDefinition.tasks.every((d) => ran.has(d.taskReferenceName));
}

// ---------------------------------------------------------------------------------------------
// Ending a workflow

export interface EndOptions {
  lastTask?: Task;
  failedTask?: Task;
  /** Output that replaces outputParameters (TERMINATE task). */
  output?: Record<string, unknown>;
  /** API termination does not start the failure workflow, as in Conductor. */
  byApi?: boolean;
}

function cancelPending(turn: Turn, reason: string): void {
  for (const t of turn.state.tasks) {
    if (isTerminalTask(t.status)) continue;
    markTerminal(turn, t, 'CANCELED');
    if (t.taskType === 'SUB_WORKFLOW' && t.subWorkflowId) {
      turn.log.emit({ kind: 'terminateWorkflow', workflowId: t.subWorkflowId, reason });
    }
  }
}

function workflowOutput(turn: Turn, opts: EndOptions): Record<string, unknown> {
  const { state } = turn;
  if (opts.output) return opts.output;
  const params = state.workflow.workflowDefinition.outputParameters ?? {};
  if (Object.keys(params).length > 0) return resolveInput(state, params, undefined, turn.log.jsonPathBudget(turn.env));
  const last = opts.lastTask ?? [...state.tasks].reverse().find((t) => !t.retried);
  return last ? { ...last.outputData } : {};
}

export function endWorkflow(turn: Turn, status: WorkflowStatus, reason: string | undefined, opts: EndOptions = {}): void {
  const { state, env, log } = turn;
  const wf = state.workflow;
  const wasTerminal = isTerminalWorkflow(wf.status);
  wf.status = status;
  wf.reasonForIncompletion = truncate(reason) ?? (status === 'COMPLETED' ? undefined : wf.reasonForIncompletion);
  cancelPending(turn, `Parent workflow has been terminated with status ${status}`);
  try {
    wf.output = workflowOutput(turn, opts);
  } catch (e) {
    if (!(e instanceof ExpressionLimitError)) throw e;
    // outputParameters past the JSONPath budget: no output, and a workflow that would have completed fails.
    wf.output = {};
    if (status === 'COMPLETED') {
      status = 'FAILED';
      wf.status = status;
      wf.reasonForIncompletion = truncate(e.message);
    }
  }
  const oversized = workflowPayloadProblem(wf, jsonSize(wf.output), env.workflowPayloadMaxBytes);
  if (oversized) {
    // Conductor fails the workflow; one already failing keeps its own reason, without the output.
    wf.output = {};
    if (status === 'COMPLETED') {
      status = 'FAILED';
      wf.status = status;
      wf.reasonForIncompletion = truncate(oversized);
    }
  }
  wf.endTime = env.now;
  wf.updateTime = env.now;
  const failed = state.tasks.filter((t) => t.status === 'FAILED' || t.status === 'FAILED_WITH_TERMINAL_ERROR');
  wf.failedReferenceTaskNames = [...new Set(failed.map((t) => t.referenceTaskName))];
  wf.failedTaskNames = [...new Set(failed.map((t) => t.taskDefName))];
  log.workflowChanged = true;
  if (wasTerminal) return;
  if (wf.parentWorkflowId && wf.parentWorkflowTaskId) {
    log.emit({ kind: 'notifyParent', parentWorkflowId: wf.parentWorkflowId, parentTaskId: wf.parentWorkflowTaskId, childWorkflowId: wf.workflowId });
  }
  if (wf.workflowDefinition.workflowStatusListenerEnabled) {
    log.emit({ kind: 'statusChange', eventId: `${wf.workflowId}:${status}:${env.now}`, workflowId: wf.workflowId, workflowName: wf.workflowName, status });
  }
  const failureWf = wf.workflowDefinition.failureWorkflow;
  if (failureWf && !opts.byApi && (status === 'FAILED' || status === 'TIMED_OUT' || status === 'TERMINATED')) {
    // Conductor's dynamic form is `$workflow.input.key` without braces (it reads the third `.`-separated part).
    let name: string | undefined = failureWf;
    if (failureWf.startsWith('$')) {
      const key = failureWf.split('.')[2];
      const v = key ? wf.input[key] : undefined;
      name = typeof v === 'string' ? v : undefined;
    }
    if (name) {
      const id = env.derivedId(`failure:${wf.workflowId}:${wf.endTime}`);
      log.emit({
        kind: 'startWorkflow',
        workflowId: id,
        request: {
          name,
          version: wf.workflowDefinition.failureWorkflowVersion ?? undefined,
          correlationId: wf.correlationId,
          taskToDomain: wf.taskToDomain,
          input: {
            ...wf.input,
            workflowId: wf.workflowId,
            reason: wf.reasonForIncompletion,
            failureStatus: status,
            ...(opts.failedTask ? { failureTaskId: opts.failedTask.taskId } : {}),
            failedWorkflow: { ...structuredClone(wf), tasks: structuredClone(state.tasks) },
          },
        },
      });
      wf.output = { ...wf.output, 'conductor.failure_workflow': id };
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Commands

export function findTask(state: ExecutionState, taskId: string): Task | undefined {
  return taskById(state.tasks, taskId);
}

export type UpdateOutcome = 'applied' | 'ignored';
/** Whether a script asked for in this turn still matters (its task may have been canceled meanwhile). */
export function scriptStillWanted(state: ExecutionState, request: ScriptRequest): boolean {
  const t = findTask(state, request.taskId);
  return !!t && t.status === 'IN_PROGRESS' && !t.retried && !isTerminalWorkflow(state.workflow.status);
}

/** The outcome of a script the turn asked for: the waiting task goes on, then the decider runs again. */
export function applyScriptOutcome(turn: Turn, request: ScriptRequest, outcome: ScriptOutcome): void {
  turn.log.settleScript(request);
  if (!scriptStillWanted(turn.state, request)) return;
  finishScript(turn, findTask(turn.state, request.taskId)!, request, outcome, controlFlowHooks);
  decide(turn);
}


/** A worker's (or system worker's, or external caller's) result for a task (Conductor's WorkflowExecutor.updateTask). */
export function applyTaskResult(turn: Turn, result: TaskResult): UpdateOutcome {
  const { state, env } = turn;
  const t = findTask(state, result.taskId);
  if (!t) throw new EngineError('notFound', `No such task found by id: ${result.taskId}`);
  if (result.extendLease) {
    if (!isTerminalTask(t.status)) {
      t.updateTime = env.now;
      turn.log.touch(t);
    }
    return 'applied';
  }
  if (isTerminalTask(t.status) || isTerminalWorkflow(state.workflow.status)) return 'ignored';
  if (QUEUED_SYSTEM_TYPES.has(t.taskType)) {
    // A result Baton's own system worker produced (an HTTP response) over the payload limit fails its task, and
    // the report of it succeeds. A worker's or caller's own oversized result is refused instead (the store's 413).
    const oversized = taskPayloadProblem(t, 'output', jsonSize(result.outputData), env.taskPayloadMaxBytes);
    if (oversized) {
      t.outputData = {};
      if (result.workerId) t.workerId = result.workerId;
      if (!t.startTime) t.startTime = env.now;
      markTerminal(turn, t, 'FAILED_WITH_TERMINAL_ERROR', oversized);
      decide(turn);
      return 'applied';
    }
  }
  t.outputData = result.outputData ?? {};
  t.reasonForIncompletion = truncate(result.reasonForIncompletion) ?? t.reasonForIncompletion;
  if (result.workerId) t.workerId = result.workerId;
  if (result.subWorkflowId) t.subWorkflowId = result.subWorkflowId;
  t.updateTime = env.now;
  turn.log.touch(t);
  const status = result.status === 'CANCELED' ? 'CANCELED' : result.status;
  if (status === 'IN_PROGRESS') {
    const callback = result.callbackAfterSeconds ?? 0;
    t.callbackAfterSeconds = callback;
    if (isWorkerType(t.taskType)) {
      // A worker's IN_PROGRESS puts the task back in its queue after callbackAfterSeconds, as in Conductor.
      t.status = 'SCHEDULED';
      noteTaskStatus(turn, t);
      turn.log.emit({ kind: 'enqueue', taskId: t.taskId, workflowId: t.workflowInstanceId, queue: queueKeyOf(t), priority: t.workflowPriority, visibleAt: env.now + callback * 1000 });
    } else {
      t.status = 'IN_PROGRESS';
      // A system task's own work is done (an asyncComplete HTTP call answered); what is left comes from outside.
      t.responseTimeoutSeconds = 0;
    }
    return 'applied';
  }
  markTerminal(turn, t, status as TaskStatus);
  if (!t.startTime) t.startTime = env.now;
  decide(turn);
  return 'applied';
}

/** Finds the first non-terminal task with this reference (a loop iteration `ref__N` matches too). */
export function pendingTaskByRef(state: ExecutionState, ref: string): Task | undefined {
  return state.tasks.find(
    (t) => !isTerminalTask(t.status) && !t.retried && (t.referenceTaskName === ref || t.workflowTask.taskReferenceName === ref),
  );
}

/** External completion of a task by reference or id, with the body merged into its output (`/api/tasks/{workflowId}/{ref}/{status}`, `/api/queue/update`). */
export function applyExternalUpdate(
  turn: Turn,
  a: { ref?: string; taskId?: string; status: TaskResult['status']; output: Record<string, unknown>; workerId?: string },
): Task | undefined {
  const t = a.taskId ? findTask(turn.state, a.taskId) : pendingTaskByRef(turn.state, a.ref ?? '');
  if (!t || isTerminalTask(t.status)) return undefined;
  applyTaskResult(turn, {
    workflowInstanceId: turn.state.workflow.workflowId,
    taskId: t.taskId,
    status: a.status,
    outputData: { ...t.outputData, ...a.output },
    workerId: a.workerId,
  });
  return t;
}

/** A poll handed the task to a worker: it becomes IN_PROGRESS (Conductor acks at poll time). Null when it is no longer pollable. */
export function claimTask(turn: Turn, taskId: string, workerId: string | undefined): Task | null {
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
  turn.log.touch(t);
  noteTaskStatus(turn, t);
  return t;
}

/**
 * Scheduled worker tasks held back by `callbackAfterSeconds` become pollable now (`POST /api/workflow/{id}/resetcallbacks`).
 * Returns how many tasks were reset.
 */
export function resetCallbacks(turn: Turn): number {
  const { state, env } = turn;
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) throw new EngineError('conflict', `Workflow is in terminal state. Status = ${wf.status}`);
  let n = 0;
  for (const t of state.tasks) {
    if (t.status !== 'SCHEDULED' || t.retried || !isWorkerType(t.taskType) || t.callbackAfterSeconds <= 0) continue;
    t.callbackAfterSeconds = 0;
    t.updateTime = env.now;
    turn.log.touch(t);
    turn.log.emit({ kind: 'enqueue', taskId: t.taskId, workflowId: wf.workflowId, queue: queueKeyOf(t), priority: t.workflowPriority, visibleAt: env.now });
    n++;
  }
  return n;
}

/** Reminder fired: timeouts, WAIT deadlines, re-evaluation. */
export function onTimer(turn: Turn): void {
  decide(turn);
}

export function pauseWorkflow(turn: Turn): void {
  const wf = turn.state.workflow;
  if (isTerminalWorkflow(wf.status)) throw new EngineError('conflict', `Workflow ${wf.workflowId} has ended, status cannot be updated.`);
  if (wf.status === 'PAUSED') return;
  wf.status = 'PAUSED';
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
}

export function resumeWorkflow(turn: Turn): void {
  const wf = turn.state.workflow;
  if (wf.status !== 'PAUSED') throw new EngineError('conflict', `The workflow ${wf.workflowId} is not paused, it is in ${wf.status} state.`);
  wf.status = 'RUNNING';
  wf.lastRetriedTime = turn.env.now;
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
  decide(turn);
}

export function terminateWorkflow(turn: Turn, reason: string | undefined): void {
  const wf = turn.state.workflow;
  if (wf.status === 'COMPLETED') throw new EngineError('conflict', `Cannot terminate a COMPLETED workflow ${wf.workflowId}`);
  if (wf.status === 'TERMINATED') return;
  endWorkflow(turn, 'TERMINATED', reason, { byApi: true });
}

function requireTerminal(turn: Turn, what: string): void {
  const wf = turn.state.workflow;
  if (!isTerminalWorkflow(wf.status)) throw new EngineError('conflict', `Workflow ${wf.workflowId} is still running (${wf.status}); it cannot be ${what}.`);
}

function reopen(turn: Turn): void {
  const wf = turn.state.workflow;
  wf.status = 'RUNNING';
  wf.endTime = 0;
  wf.reasonForIncompletion = undefined;
  wf.failedReferenceTaskNames = [];
  wf.failedTaskNames = [];
  wf.output = {};
  wf.lastRetriedTime = turn.env.now;
  wf.updateTime = turn.env.now;
  turn.log.workflowChanged = true;
}

function deleteTasks(turn: Turn, keep: (t: Task) => boolean): void {
  const kept: Task[] = [];
  for (const t of turn.state.tasks) {
    if (keep(t)) kept.push(t);
    else {
      turn.log.deletedTaskIds.push(t.taskId);
      turn.log.changed.delete(t);
      if (isQueuedType(t.taskType) && !isTerminalTask(t.status)) turn.log.emit({ kind: 'dequeue', taskId: t.taskId, queue: queueKeyOf(t) });
    }
  }
  turn.state.tasks = kept;
}

/** Restart from the first task with the same id (Conductor's WorkflowExecutor.restart). */
export function restartWorkflow(turn: Turn, latestDef?: WorkflowDef): void {
  requireTerminal(turn, 'restarted');
  const wf = turn.state.workflow;
  if (wf.status === 'COMPLETED' && wf.workflowDefinition.restartable === false) {
    throw new EngineError('notFound', `WorkflowId: ${wf.workflowId} is an instance of WorkflowDef: ${wf.workflowName} and version: ${wf.workflowVersion} and is non restartable`);
  }
  if (latestDef) {
    wf.workflowDefinition = latestDef;
    wf.workflowVersion = latestDef.version;
  }
  deleteTasks(turn, () => false);
  reopen(turn);
  wf.createTime = turn.env.now;
  wf.startTime = turn.env.now;
  wf.lastRetriedTime = 0;
  decide(turn);
}

/** Retry the last failed tasks (Conductor's WorkflowExecutor.retry). */
export function retryWorkflow(turn: Turn): Task[] {
  const wf = turn.state.workflow;
  if (!isTerminalWorkflow(wf.status)) throw new EngineError('notFound', `Workflow is still running.  status=${wf.status}`);
  if (turn.state.tasks.length === 0) throw new EngineError('conflict', `Workflow has not started yet`);
  const latest = new Map<string, Task>();
  for (const t of turn.state.tasks) if (!t.retried || !latest.has(t.referenceTaskName)) latest.set(t.referenceTaskName, t);
  for (const t of turn.state.tasks) if (!t.retried) latest.set(t.referenceTaskName, t);
  const toRetry = [...latest.values()].filter((t) => ['FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'TIMED_OUT', 'CANCELED'].includes(t.status));
  if (toRetry.length === 0 && wf.status !== 'TIMED_OUT') throw new EngineError('conflict', 'There are no retryable tasks! Use restart if you want to attempt entire workflow execution again.');
  reopen(turn);
  const retried: Task[] = [];
  for (const t of toRetry) {
    if (['JOIN', 'EXCLUSIVE_JOIN', 'DO_WHILE'].includes(t.taskType)) {
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
    if (t.status === 'CANCELED' && !t.retried && t.taskType === 'JOIN') {
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      turn.log.touch(t);
    }
  }
  decide(turn);
  return retried;
}

export interface RerunArgs {
  reRunFromTaskId?: string | null;
  workflowInput?: Record<string, unknown> | null;
  taskInput?: Record<string, unknown> | null;
  correlationId?: string | null;
}

/** Rerun from a task, or from the start (Conductor's WorkflowExecutor.rerun). */
export function rerunWorkflow(turn: Turn, args: RerunArgs): void {
  requireTerminal(turn, 'rerun');
  const wf = turn.state.workflow;
  if (args.workflowInput) wf.input = args.workflowInput;
  if (args.correlationId) wf.correlationId = args.correlationId;
  if (!args.reRunFromTaskId) {
    deleteTasks(turn, () => false);
    reopen(turn);
    decide(turn);
    return;
  }
  const from = findTask(turn.state, args.reRunFromTaskId);
  if (!from) throw new EngineError('invalid', `Task ${args.reRunFromTaskId} not found in workflow ${wf.workflowId}`);
  const bp = blueprintOf(wf.workflowDefinition);
  // A JOIN whose fork was scheduled before the rerun task still waits on it: keep it and reopen it below.
  const enclosingJoin = (t: Task): boolean => {
    if (t.taskType !== 'JOIN') return false;
    const fork = bp.forkBefore(t.workflowTask.taskReferenceName);
    const forkTask = fork && latestByRef(turn.state.tasks, fork.taskReferenceName + refSuffix(t));
    return !!forkTask && forkTask.seq < from.seq;
  };
  deleteTasks(turn, (t) => t.seq <= from.seq || enclosingJoin(t));
  reopen(turn);
  from.status = 'SCHEDULED';
  from.retried = false;
  from.executed = false;
  from.outputData = {};
  from.pollCount = 0;
  from.startTime = 0;
  from.endTime = 0;
  from.reasonForIncompletion = undefined;
  from.scheduledTime = turn.env.now;
  from.updateTime = turn.env.now;
  from.callbackAfterSeconds = 0;
  if (args.taskInput) from.inputData = args.taskInput;
  turn.log.touch(from);
  for (const t of turn.state.tasks) {
    const reopenable = t.status === 'CANCELED' || t.status === 'FAILED' || t.status === 'TIMED_OUT' || (t.taskType === 'JOIN' && t.seq > from.seq);
    if (t !== from && !t.retried && reopenable && ['JOIN', 'DO_WHILE', 'EXCLUSIVE_JOIN'].includes(t.taskType)) {
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      t.executed = false;
      turn.log.touch(t);
    }
  }
  if (isQueuedType(from.taskType)) {
    turn.log.emit({ kind: 'enqueue', taskId: from.taskId, workflowId: wf.workflowId, queue: queueKeyOf(from), priority: from.workflowPriority, visibleAt: turn.env.now });
  } else {
    runInlineTask(turn, from, controlFlowHooks, true);
  }
  decide(turn);
}

/** Skip a task that has not been scheduled yet (Conductor's WorkflowExecutor.skipTaskFromWorkflow). */
export function skipTask(turn: Turn, ref: string, input?: Record<string, unknown> | null, output?: Record<string, unknown> | null): void {
  const { state, env } = turn;
  const wf = state.workflow;
  if (wf.status !== 'RUNNING') throw new EngineError('conflict', `The workflow ${wf.workflowId} is not running, status: ${wf.status}`);
  const loc = blueprintOf(wf.workflowDefinition).find(ref);
  if (!loc) throw new EngineError('invalid', `The task ${ref} does not exist in the definition of workflow ${wf.workflowName}`);
  if (latestByRef(state.tasks, ref)) throw new EngineError('conflict', `The task ${ref} has already been scheduled in workflow ${wf.workflowId}; only a task not yet scheduled can be skipped`);
  const t = makeTask(turn, loc.task, { suffix: '', iteration: 0, input: input ?? {}, status: 'SKIPPED' });
  t.outputData = output ?? {};
  t.endTime = env.now;
  state.tasks.push(t);
  turn.log.touch(t);
  decide(turn);
}

/** A child workflow of a SUB_WORKFLOW task reached a new status. */
export function childChanged(turn: Turn, taskId: string, child: { workflowId: string; status: WorkflowStatus; output: Record<string, unknown>; reasonForIncompletion?: string; workflowName: string; workflowVersion: number }): void {
  const t = findTask(turn.state, taskId);
  if (!t || t.taskType !== 'SUB_WORKFLOW' || t.subWorkflowId !== child.workflowId) return;
  if (child.status === 'RUNNING' || child.status === 'PAUSED') {
    if (isTerminalTask(t.status)) {
      // The child was retried or restarted: the parent follows it, as in Conductor.
      t.status = 'IN_PROGRESS';
      t.endTime = 0;
      t.executed = false;
      t.retried = false;
      t.updateTime = turn.env.now;
      turn.log.touch(t);
      if (isTerminalWorkflow(turn.state.workflow.status)) reopen(turn);
    }
    return;
  }
  if (isTerminalTask(t.status) || isTerminalWorkflow(turn.state.workflow.status)) return;
  const output = { ...t.outputData, ...child.output, subWorkflowId: child.workflowId };
  // A workflow's output may be larger than a task's: over the task limit, the SUB_WORKFLOW task fails with the reason.
  const oversized = taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes);
  if (oversized) {
    t.outputData = { subWorkflowId: child.workflowId };
    markTerminal(turn, t, 'FAILED_WITH_TERMINAL_ERROR', oversized);
    decide(turn);
    return;
  }
  t.outputData = output;
  const map: Record<string, TaskStatus> = { COMPLETED: 'COMPLETED', FAILED: 'FAILED', TERMINATED: 'CANCELED', TIMED_OUT: 'TIMED_OUT' };
  const status = map[child.status] ?? 'FAILED';
  markTerminal(
    turn,
    t,
    status,
    status === 'COMPLETED' ? undefined : `Sub workflow ${child.workflowName}.${child.workflowVersion}/${child.workflowId} failure reason: ${child.reasonForIncompletion ?? ''}`,
  );
  decide(turn);
}

/** Earliest moment this execution needs to be looked at again; null when nothing is pending. */
export function nextDeadline(state: ExecutionState, env: Pick<EngineEnv, 'taskDef'>): number | null {
  const wf = state.workflow;
  if (isTerminalWorkflow(wf.status)) return null;
  let best = Infinity;
  const def = wf.workflowDefinition;
  if (wf.status === 'RUNNING' && def.timeoutSeconds > 0 && def.timeoutPolicy === 'TIME_OUT_WF') {
    best = Math.min(best, (wf.lastRetriedTime > 0 ? wf.lastRetriedTime : wf.createTime) + def.timeoutSeconds * 1000);
  }
  if (wf.status === 'PAUSED') return best === Infinity ? null : best;
  for (const t of state.tasks) {
    if (isTerminalTask(t.status) || t.retried) continue;
    const wait = waitDeadline(t);
    if (wait !== undefined) best = Math.min(best, wait);
    const worker = isWorkerType(t.taskType);
    if (t.status === 'IN_PROGRESS' && isQueuedType(t.taskType) && t.responseTimeoutSeconds > 0) best = Math.min(best, t.updateTime + (t.responseTimeoutSeconds + t.callbackAfterSeconds) * 1000);
    const td = t.workflowTask.taskDefinition ?? env.taskDef(t.taskDefName) ?? (worker ? adhocTaskDef(t.taskDefName, true) : undefined);
    if (!td) continue;
    if (td.timeoutSeconds > 0 && t.startTime > 0 && td.timeoutPolicy !== 'ALERT_ONLY') best = Math.min(best, t.startTime + t.startDelayInSeconds * 1000 + td.timeoutSeconds * 1000);
    const pt = td.pollTimeoutSeconds ?? 0;
    if (t.status === 'SCHEDULED' && worker && pt > 0 && td.timeoutPolicy !== 'ALERT_ONLY') best = Math.min(best, t.scheduledTime + t.startDelayInSeconds * 1000 + (pt + t.callbackAfterSeconds) * 1000);
  }
  return best === Infinity ? null : best;
}

/** Resolves a value against the execution (used by the API for signal payloads and tests). */
export function resolveAgainst(state: ExecutionState, value: unknown): unknown {
  return resolveValue(value, lookupFor(state));
}
