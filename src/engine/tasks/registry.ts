import { walkTasks, type WorkflowTask } from '../../model/definitions';
import type { Task } from '../../model/execution';
import { decisionTask } from './decision';
import { doWhileTask } from './do-while';
import { dynamicTask } from './dynamic';
import { eventTask } from './event';
import { exclusiveJoinTask } from './exclusive-join';
import { forkJoinTask } from './fork-join';
import { forkJoinDynamicTask } from './fork-join-dynamic';
import { httpTask } from './http';
import { humanTask } from './human';
import { inlineTask } from './inline';
import { joinTask } from './join';
import { jsonJqTransformTask } from './json-jq-transform';
import { lambdaTask } from './lambda';
import { noopTask } from './noop';
import { setVariableTask } from './set-variable';
import { simpleTask } from './simple';
import { startWorkflowTask } from './start-workflow';
import { subWorkflowTask } from './sub-workflow';
import { switchTask } from './switch';
import { TaskTypeName } from './names';
import type { TaskType } from './task-type';
import { terminateTask } from './terminate';
import { waitTask } from './wait';
import { yieldTask } from './yield';

// Every task type Baton knows, by name; any other name is a worker task type (SIMPLE's module).

export const TASK_TYPES: readonly TaskType[] = [
  simpleTask,
  dynamicTask,
  yieldTask,
  httpTask,
  switchTask,
  decisionTask,
  forkJoinTask,
  forkJoinDynamicTask,
  joinTask,
  exclusiveJoinTask,
  doWhileTask,
  setVariableTask,
  inlineTask,
  lambdaTask,
  jsonJqTransformTask,
  noopTask,
  terminateTask,
  eventTask,
  startWorkflowTask,
  subWorkflowTask,
  waitTask,
  humanTask,
];

// Every entry has the same shape (all keys, in one order), so the lookups on the decider's hot path
// (every open task, every decision) stay monomorphic.
const uniform = (type: TaskType): TaskType => ({
  types: type.types,
  kind: type.kind,
  selfCompleting: type.selfCompleting ?? false,
  builtIn: type.builtIn ?? false,
  blocking: type.blocking ?? false,
  startsAfterRetryDelay: type.startsAfterRetryDelay ?? false,
  skippableWhileOpen: type.skippableWhileOpen ?? type.kind !== 'system',
  reopenedWithPredecessors: type.reopenedWithPredecessors ?? false,
  joinsFork: type.joinsFork ?? false,
  endsWorkflow: type.endsWorkflow ?? false,
  endsAfterEffect: type.endsAfterEffect ?? false,
  followsChildWorkflow: type.followsChildWorkflow ?? false,
  taskTypeName: type.taskTypeName,
  cancel: type.cancel,
  inputAdditions: type.inputAdditions,
  map: type.map,
  start: type.start,
  evaluate: type.evaluate,
  finishScript: type.finishScript,
  deadline: type.deadline,
});

const byName = new Map<string, TaskType>();
for (const type of TASK_TYPES) {
  const entry = uniform(type);
  for (const name of type.types) {
    if (byName.has(name)) throw new Error(`Task type ${name} is declared twice`);
    byName.set(name, entry);
  }
}
const fallback = byName.get(TaskTypeName.SIMPLE)!;
const forkJoinDynamic = byName.get(TaskTypeName.FORK_JOIN_DYNAMIC)!;
const namesWhere = (test: (t: TaskType) => boolean): Set<string> => new Set([...byName].filter(([, t]) => test(t)).map(([name]) => name));
const NOT_WORKER = namesWhere((t) => t.kind !== 'worker');
const SYSTEM = namesWhere((t) => t.kind === 'system');
const BUILT_IN = namesWhere((t) => t.builtIn === true);
const BLOCKING = namesWhere((t) => t.blocking === true);
const SELF_COMPLETING = namesWhere((t) => t.selfCompleting === true);

/** The module of a task type name (a workflow task's `type` or a task's `taskType`). */
export const taskTypeNamed = (name: string): TaskType => byName.get(name) ?? fallback;

/** The module that runs a task: a FORK task is a dynamic one when its workflow task is FORK_JOIN_DYNAMIC. */
export const taskTypeOf = (t: Task): TaskType =>
  t.taskType === TaskTypeName.FORK && t.workflowTask.type === TaskTypeName.FORK_JOIN_DYNAMIC ? forkJoinDynamic : taskTypeNamed(t.taskType);

/** The `taskType` of a task scheduled for a workflow task (SIMPLE: the task's name; a fork: FORK). */
export const taskTypeNameOf = (wt: WorkflowTask): string => taskTypeNamed(wt.type).taskTypeName?.(wt) ?? wt.type;

/** The child workflow an open task follows, when its type runs one and it started. */
export const childWorkflowOf = (t: Task): string | undefined => (taskTypeOf(t).followsChildWorkflow ? t.subWorkflowId || undefined : undefined);

/** A task a worker takes from its queue (any name not known here is one). */
export const isWorkerType = (name: string): boolean => !NOT_WORKER.has(name);
/**
 * The worker tasks of a definition tree that take their timeouts and retries from a registered task
 * definition (none is given inline): a start schedules them with whatever definitions its replica holds.
 * A DYNAMIC task's name is a placeholder; the one it runs is known when it is scheduled.
 */
export const registeredDefinitionsNamed = (tasks: WorkflowTask[]): string[] =>
  [...walkTasks(tasks)].filter((wt) => isWorkerType(wt.type) && wt.type !== TaskTypeName.DYNAMIC && !wt.taskDefinition).map((wt) => wt.name);

/** A task a worker or Baton's own system-task worker takes from a queue. */
export const isQueuedType = (name: string): boolean => !SYSTEM.has(name);
/** Never retried automatically (Conductor's TaskType.isBuiltIn). */
export const isBuiltInType = (name: string): boolean => BUILT_IN.has(name);
/** Where an execution waits for a signal: execute and signal requests answer at an open task of this type. */
export const isBlockingType = (name: string): boolean => BLOCKING.has(name);
/** Finished by the decider without anything from outside: a test run needs no mocked result for it. */
export const isSelfCompletingType = (name: string): boolean => SELF_COMPLETING.has(name);

/** Response timeout of a queued system task without a task definition; the worker heartbeats through longer calls. */
export const QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS = 60;
