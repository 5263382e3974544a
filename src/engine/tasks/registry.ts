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

const byName = new Map<string, TaskType>();
for (const type of TASK_TYPES) {
  for (const name of type.types) {
    if (byName.has(name)) throw new Error(`Task type ${name} is declared twice`);
    byName.set(name, type);
  }
}

/** The module of a task type name (a workflow task's `type` or a task's `taskType`). */
export const taskTypeNamed = (name: string): TaskType => byName.get(name) ?? simpleTask;

/** The module that runs a task: a FORK task is a dynamic one when its workflow task is FORK_JOIN_DYNAMIC. */
export const taskTypeOf = (t: Task): TaskType =>
  t.taskType === 'FORK' && t.workflowTask.type === 'FORK_JOIN_DYNAMIC' ? forkJoinDynamicTask : taskTypeNamed(t.taskType);

/** A task a worker takes from its queue. */
export const isWorkerType = (name: string): boolean => taskTypeNamed(name).kind === 'worker';
/** A task a worker or Baton's own system-task worker takes from a queue. */
export const isQueuedType = (name: string): boolean => taskTypeNamed(name).kind !== 'system';
/** Never retried automatically (Conductor's TaskType.isBuiltIn). */
export const isBuiltInType = (name: string): boolean => taskTypeNamed(name).builtIn === true;
/** Where an execution waits for a signal: execute and signal requests answer at an open task of this type. */
export const isBlockingType = (name: string): boolean => taskTypeNamed(name).blocking === true;
/** Finished by the decider without anything from outside: a test run needs no mocked result for it. */
export const isSelfCompletingType = (name: string): boolean => taskTypeNamed(name).selfCompleting === true;

/** Response timeout of a queued system task without a task definition; the worker heartbeats through longer calls. */
export const QUEUED_SYSTEM_RESPONSE_TIMEOUT_SECONDS = 60;
