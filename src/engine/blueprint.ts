import type { WorkflowDef, WorkflowTask } from '../model/definitions';
import { TaskTypeName } from './tasks/names';

// Where each task reference sits in a definition tree, so the decider can find "what comes next"
// without re-walking the tree (Conductor's WorkflowDef.getNextTask, precomputed).

export type ContainerKind = 'root' | 'switch' | 'fork' | 'loop';

export interface Location {
  task: WorkflowTask;
  list: WorkflowTask[];
  index: number;
  kind: ContainerKind;
  /** The SWITCH/DECISION, FORK_JOIN or DO_WHILE that holds the list; undefined at the root. */
  parent?: WorkflowTask;
}

export class Blueprint {
  private readonly byRef = new Map<string, Location>();

  constructor(readonly def: WorkflowDef) {
    this.index(def.tasks, 'root');
  }

  private index(list: WorkflowTask[], kind: ContainerKind, parent?: WorkflowTask): void {
    list.forEach((task, index) => {
      this.byRef.set(task.taskReferenceName, { task, list, index, kind, parent });
      for (const branch of Object.values(task.decisionCases ?? {})) this.index(branch, 'switch', task);
      if (task.defaultCase) this.index(task.defaultCase, 'switch', task);
      for (const branch of task.forkTasks ?? []) this.index(branch, 'fork', task);
      if (task.loopOver) this.index(task.loopOver, 'loop', task);
    });
  }

  find(ref: string): Location | undefined {
    return this.byRef.get(ref);
  }

  /** The task that directly follows `ref` in its own list, if any. */
  following(ref: string): WorkflowTask | undefined {
    const loc = this.byRef.get(ref);
    return loc ? loc.list[loc.index + 1] : undefined;
  }

  /** Last task of every branch of a FORK_JOIN (what an empty joinOn waits for). */
  branchEnds(forkRef: string): string[] {
    const fork = this.byRef.get(forkRef)?.task;
    return (fork?.forkTasks ?? []).filter((b) => b.length > 0).map((b) => b[b.length - 1]!.taskReferenceName);
  }

  /** The FORK_JOIN that directly precedes a JOIN in its list. */
  forkBefore(joinRef: string): WorkflowTask | undefined {
    const loc = this.byRef.get(joinRef);
    if (!loc || loc.index === 0) return undefined;
    const prev = loc.list[loc.index - 1]!;
    return prev.type === TaskTypeName.FORK_JOIN || prev.type === TaskTypeName.FORK_JOIN_DYNAMIC ? prev : undefined;
  }
}

const cache = new WeakMap<WorkflowDef, Blueprint>();
export function blueprintOf(def: WorkflowDef): Blueprint {
  let bp = cache.get(def);
  if (!bp) {
    bp = new Blueprint(def);
    cache.set(def, bp);
  }
  return bp;
}
