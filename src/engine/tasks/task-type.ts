import type { WorkflowTask } from '../../model/definitions';
import type { Task } from '../../model/execution';
import type { TaskStatus, WorkflowStatus } from '../../model/statuses';
import type { ScriptCall, ScriptOutcome, ScriptRequest } from '../script-requests';
import type { Turn } from '../state';
import type { TaskTypeName } from './names';

// One task type (Conductor's WorkflowSystemTask, with its TaskMapper's part): how its tasks run, start,
// are re-evaluated and end by themselves. A handler reads the turn and may set its own task's fields and
// owe effects; what the decider must do next it returns as a TaskOutcome, which the decide loop applies.

/**
 * How tasks of a type run:
 * - `worker`: a worker polls them from their queue (SIMPLE, user-defined, any type not known here);
 * - `queued`: Baton's own system-task worker polls them from a queue, as a worker would (HTTP);
 * - `system`: the decider runs them itself, when they are scheduled and at each decision while open.
 */
export type TaskKind = 'worker' | 'queued' | 'system';

/** Where a task of the type is scheduled: the loop suffix (`__N` parts) and iteration of its scope. */
export interface Scope {
  suffix: string;
  iteration: number;
}

/** What a handler decided for its task; the decide loop applies the parts in the order listed here. */
export interface TaskOutcome {
  /** The task ends with this status (COMPLETED unless said) and output; an output over the payload limit fails it instead. */
  end?: { status?: TaskStatus; output: Record<string, unknown>; reason?: string };
  /** The task waits IN_PROGRESS (for a script, its branches, a child workflow, a person, a timer). */
  wait?: boolean;
  /** A script the task waits for; the actor evaluates it off the event loop and hands the outcome to `finishScript`. */
  script?: { purpose: ScriptRequest['purpose']; call: ScriptCall; iteration?: number };
  /** The task has scheduled what follows it (a branch, the fork's branches): the decide loop does not. */
  ownsSuccessors?: boolean;
  /** Tasks built as given and started at once, without the scheduling checks (dynamic fork branches). */
  spawn?: Array<Scope & { task: WorkflowTask; input: Record<string, unknown> }>;
  /** Workflow tasks to schedule, in this order, each in its scope. */
  schedule?: Array<Scope & { task: WorkflowTask }>;
  /** Schedule now what follows the task in the definition (a SWITCH whose chosen case is empty). */
  scheduleSuccessor?: boolean;
  /** The workflow ends (TERMINATE); `failed`: the task is the failed one a failure workflow is told about. */
  endWorkflow?: { status: WorkflowStatus; reason: string | undefined; output: Record<string, unknown>; failed: boolean };
}

/** How a workflow task becomes a task when that differs from the plain way (Conductor's TaskMapper). */
export type TaskMapping =
  /** `startNow: false`: the task is only added, never started inline. */
  | { taskType?: string; taskDefName?: string; input?: Record<string, unknown>; startNow?: boolean }
  /** The workflow task cannot be scheduled: a task failed with this reason stands for it and the workflow fails. */
  | { invalid: string; input?: Record<string, unknown> };

export interface TaskType {
  /** The type names (workflow task `type`, task `taskType`) this module handles. */
  readonly types: readonly TaskTypeName[];
  readonly kind: TaskKind;
  /** The decider finishes its tasks without anything from outside: a test run needs no mocked result for them. */
  readonly selfCompleting?: boolean;
  /** Never retried automatically (Conductor's TaskType.isBuiltIn). */
  readonly builtIn?: boolean;
  /** An open task of the type is where an execution waits for a signal (execute and signal requests answer there). */
  readonly blocking?: boolean;
  /** A retried attempt stays SCHEDULED until its retry delay has passed (Conductor runs the type asynchronously, from a queue). */
  readonly startsAfterRetryDelay?: boolean;
  /** An open task of the type waits for something outside the turn and can be skipped (worker and queued types always can). */
  readonly skippableWhileOpen?: boolean;
  /** Waits on tasks scheduled before it: a retry or rerun that reschedules them reopens it instead of retrying it. */
  readonly reopenedWithPredecessors?: boolean;
  /** Joins the branches of the fork before it: canceled with them, it is reopened when they run again. */
  readonly joinsFork?: boolean;
  /** Its task ends the workflow: nothing is scheduled after it. */
  readonly endsWorkflow?: boolean;
  /** Its task ends in a turn of its own, once the effect it owes has run (a test run waits for that turn). */
  readonly endsAfterEffect?: boolean;
  /** Runs a child workflow (`subWorkflowParam`) and follows it: its id is the task's `subWorkflowId`. */
  readonly followsChildWorkflow?: boolean;
  /** The `taskType` of a task scheduled for the workflow task, when it is not the workflow task's `type`. */
  taskTypeName?(wt: WorkflowTask): string;
  /** What canceling an open task owes besides its status (Conductor's WorkflowSystemTask.cancel), `reason` told to what it started. */
  cancel?(turn: Turn, t: Task, reason: string): void;
  /** Entries Conductor's mapper adds to the declared input parameters before resolving them (EVENT's `sink`). */
  inputAdditions?(wt: WorkflowTask): Record<string, unknown>;
  /** Builds the task from its workflow task, when that is not the plain way; may throw ExpressionLimitError. */
  map?(turn: Turn, wt: WorkflowTask): TaskMapping;
  /** Runs when a task is scheduled (`rerun`: by a rerun from this task). Absent: the task stays SCHEDULED in its queue. */
  start?(turn: Turn, t: Task, rerun: boolean): TaskOutcome | undefined;
  /** Re-evaluates an open task at each decision; undefined when nothing changed. */
  evaluate?(turn: Turn, t: Task): TaskOutcome | undefined;
  /** Takes the outcome of a script the task asked for (the decider checked that the task still waits for it). */
  finishScript?(turn: Turn, t: Task, request: ScriptRequest, outcome: ScriptOutcome): TaskOutcome | undefined;
  /** When an open task ends by itself (a WAIT's timer), if it does. */
  deadline?(t: Task): number | undefined;
}

/** Runtime ref suffix of a task: the `__N` parts added by enclosing loops. */
export const refSuffix = (t: Task): string => t.referenceTaskName.slice(t.workflowTask.taskReferenceName.length);

/** A task's scope: where its children and successors are scheduled. */
export const scopeOf = (t: Task): Scope => ({ suffix: refSuffix(t), iteration: t.iteration });

export const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** Evaluator types run as JavaScript. */
export const JAVASCRIPT_EVALUATORS = new Set(['javascript', 'graaljs']);
