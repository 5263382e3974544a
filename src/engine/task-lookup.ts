import type { Task } from '../model/execution';
import { isTerminalTask } from '../model/statuses';
import type { ExecutionState } from './state';

// Finding tasks of an execution: by id, and the latest task of a reference (the one place that knows
// how runtime references `ref__N` relate to the definition's `ref`).

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

/** A task of the execution by id. */
export function findTask(state: ExecutionState, taskId: string): Task | undefined {
  return taskById(state.tasks, taskId);
}

/** The first open task with this reference, not a retried one (a loop iteration `ref__N` matches its `ref` too). */
export function pendingTaskByRef(state: ExecutionState, ref: string): Task | undefined {
  return state.tasks.find((t) => !isTerminalTask(t.status) && !t.retried && (t.referenceTaskName === ref || t.workflowTask.taskReferenceName === ref));
}
