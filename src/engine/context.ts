import type { Task } from '../model/execution';
import type { ExecutionState } from './state';
import { resolveParams, type RootLookup } from './expressions';
import type { JsonPathBudget } from './jsonpath-budget';

// The document `${...}` expressions read (as Conductor's ParametersUtils builds it): `workflow` plus one entry per task reference.

export function taskView(t: Task): Record<string, unknown> {
  return {
    input: t.inputData,
    output: t.outputData,
    taskType: t.taskType,
    status: t.status,
    referenceTaskName: t.referenceTaskName,
    retryCount: t.retryCount,
    correlationId: t.correlationId,
    pollCount: t.pollCount,
    taskDefName: t.taskDefName,
    scheduledTime: t.scheduledTime,
    startTime: t.startTime,
    endTime: t.endTime,
    workflowInstanceId: t.workflowInstanceId,
    taskId: t.taskId,
    reasonForIncompletion: t.reasonForIncompletion,
    callbackAfterSeconds: t.callbackAfterSeconds,
    workerId: t.workerId,
    iteration: t.iteration,
  };
}

/** The latest task of every runtime ref and base ref, and every task by id, over one task list. */
interface TaskLookup {
  /** How many tasks of the list are in the maps. */
  seen: number;
  byRef: Map<string, Task>;
  byBaseRef: Map<string, Task>;
  byId: Map<string, Task>;
}

// Kept per list and extended as tasks are appended: the decider only appends to an execution's list
// or replaces the list, and a task's refs and id never change. Scanning the list at every lookup made
// a join over N branches cost N x tasks per evaluation (a 1,000-branch fork took seconds to finish).
const lookups = new WeakMap<Task[], TaskLookup>();

function lookupOf(tasks: Task[]): TaskLookup {
  let l = lookups.get(tasks);
  if (!l || l.seen > tasks.length) {
    l = { seen: 0, byRef: new Map(), byBaseRef: new Map(), byId: new Map() };
    lookups.set(tasks, l);
  }
  for (; l.seen < tasks.length; l.seen++) {
    const t = tasks[l.seen]!;
    l.byRef.set(t.referenceTaskName, t);
    l.byBaseRef.set(t.workflowTask.taskReferenceName, t);
    l.byId.set(t.taskId, t);
  }
  return l;
}

/** Latest attempt of a reference: exact runtime ref first, then the base ref (latest loop iteration). */
export function latestByRef(tasks: Task[], ref: string): Task | undefined {
  const l = lookupOf(tasks);
  return l.byRef.get(ref) ?? l.byBaseRef.get(ref);
}

/** Latest task with exactly this runtime reference name (`ref` plus its loop suffix). */
export function latestWithRuntimeRef(tasks: Task[], runtimeRef: string): Task | undefined {
  return lookupOf(tasks).byRef.get(runtimeRef);
}

export function taskById(tasks: Task[], taskId: string): Task | undefined {
  return lookupOf(tasks).byId.get(taskId);
}

export function lookupFor(state: ExecutionState, extra?: Record<string, unknown>): RootLookup {
  const wf = state.workflow;
  return (name) => {
    if (extra && name in extra) return extra[name];
    if (name === 'workflow') {
      return {
        input: wf.input,
        output: wf.output,
        status: wf.status,
        workflowId: wf.workflowId,
        parentWorkflowId: wf.parentWorkflowId,
        parentWorkflowTaskId: wf.parentWorkflowTaskId,
        workflowType: wf.workflowName,
        version: wf.workflowVersion,
        correlationId: wf.correlationId,
        reasonForIncompletion: wf.reasonForIncompletion,
        schemaVersion: wf.workflowDefinition.schemaVersion,
        variables: wf.variables,
        taskToDomain: wf.taskToDomain,
        priority: wf.priority,
      };
    }
    const t = latestByRef(state.tasks, name);
    if (t) return taskView(t);
    return undefined;
  };
}

export function resolveInput(state: ExecutionState, params: Record<string, unknown> | undefined, extra?: Record<string, unknown>, budget?: JsonPathBudget): Record<string, unknown> {
  return resolveParams(params, lookupFor(state, extra), budget);
}
