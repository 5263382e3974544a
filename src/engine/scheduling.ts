import type { WorkflowTask } from '../model/definitions';
import type { Task } from '../model/execution';
import { isTerminalWorkflow } from '../model/statuses';
import { blueprintOf } from './blueprint';
import { endWorkflow } from './end-workflow';
import { ExpressionLimitError } from './jsonpath-budget';
import { jsonSize, taskPayloadProblem } from './payload-size';
import type { Turn } from './state';
import { addTask, failIfInputTooLarge, makeTask, tooManyTasks } from './task-factory';
import { latestWithRuntimeRef } from './task-lookup';
import { finishSystemTask, startWaiting, truncate } from './task-status';
import { taskTypeNamed, taskTypeNameOf, taskTypeOf } from './tasks/registry';
import { refSuffix, type TaskOutcome } from './tasks/task-type';

// Scheduling: a workflow task becomes a task in its scope, a system task starts at once, and what a
// task type's handler decided (its TaskOutcome) is carried out.

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
  const type = taskTypeNamed(wt.type);
  const mapping = resolvingInput(turn, wt, suffix, iteration, () => type.map?.(turn, wt) ?? {});
  if (!mapping) return;
  if ('invalid' in mapping) {
    failInvalidTask(turn, wt, suffix, iteration, mapping.invalid, mapping.input);
    return;
  }
  const { startNow, ...given } = mapping;
  const t = resolvingInput(turn, wt, suffix, iteration, () => makeTask(turn, wt, { suffix, iteration, ...given }));
  if (!t) return;
  if (startNow === false) {
    failIfInputTooLarge(turn, t);
    addTask(turn, t);
    return;
  }
  addAndStart(turn, t);
}

/** Adds a new task and starts it if it is a system task, unless its input alone already failed it. */
export function addAndStart(turn: Turn, t: Task): void {
  const failed = failIfInputTooLarge(turn, t);
  addTask(turn, t);
  if (!failed) startTask(turn, t);
}

/** Starts a scheduled task by its type's handler (`rerun`: a rerun from this task). Worker and queued tasks stay SCHEDULED. */
export function startTask(turn: Turn, t: Task, rerun = false): void {
  const outcome = taskTypeOf(t).start?.(turn, t, rerun);
  if (outcome) applyOutcome(turn, t, outcome);
}

/** Carries out what a task's handler decided, in the order TaskOutcome lists. */
export function applyOutcome(turn: Turn, t: Task, o: TaskOutcome): void {
  if (o.end) finishSystemTask(turn, t, o.end.output, o.end.status, o.end.reason);
  if (o.wait) startWaiting(turn, t);
  if (o.script) turn.log.requestScript({ taskId: t.taskId, ...o.script });
  if (o.ownsSuccessors) {
    t.executed = true;
    turn.log.touch(t);
  }
  for (const s of o.spawn ?? []) {
    const child = makeTask(turn, s.task, { suffix: s.suffix, iteration: s.iteration, input: s.input });
    addTask(turn, child);
    startTask(turn, child);
  }
  for (const s of o.schedule ?? []) scheduleTask(turn, s.task, s.suffix, s.iteration);
  if (o.scheduleSuccessor) scheduleNext(turn, t);
  if (o.endWorkflow) {
    const e = o.endWorkflow;
    endWorkflow(turn, e.status, e.reason, { output: e.output, lastTask: t, ...(e.failed ? { failedTask: t } : {}) });
  }
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

/** Records a task that cannot be scheduled and fails the workflow, as Conductor's TerminateWorkflowException does. */
function failInvalidTask(turn: Turn, wt: WorkflowTask, suffix: string, iteration: number, reason: string, input?: Record<string, unknown>): void {
  const t = makeTask(turn, wt, {
    suffix,
    iteration,
    input: input ?? {},
    taskType: taskTypeNameOf(wt),
    taskDefName: wt.name,
    status: 'FAILED_WITH_TERMINAL_ERROR',
  });
  if (taskPayloadProblem(t, 'input', jsonSize(t.inputData), turn.env.taskPayloadMaxBytes)) t.inputData = {};
  t.reasonForIncompletion = truncate(reason);
  t.endTime = turn.env.now;
  t.executed = true;
  addTask(turn, t);
  endWorkflow(turn, 'FAILED', reason, { lastTask: t, failedTask: t });
}
