import type { TaskDef, WorkflowTask } from '../model/definitions';
import type { Task, WorkflowRecord } from '../model/execution';
import type { Effect } from './effects';
import type { ScriptEngine } from '../scripting/script-engine';

/** One execution in memory: the workflow row and its tasks in seq order. */
export interface ExecutionState {
  workflow: WorkflowRecord;
  tasks: Task[];
}

/** What the engine may ask of the world: data and ids, never I/O. Time is `now`. */
export interface EngineEnv {
  now: number;
  newId(): string;
  /** A name-based id, so that re-running an effect starts the same workflow once. */
  derivedId(seed: string): string;
  scripts: ScriptEngine;
  /** Registered task definition by name (a cached snapshot of the metadata store). */
  taskDef(name: string): TaskDef | undefined;
  /** Whether a worker polled (taskType, domain) recently (reference §4.13 domain fallback). */
  isDomainActive(taskType: string, domain: string): boolean;
  /** Host name reported as workerId of system tasks. */
  hostName: string;
}

/** What one turn changed: written by the actor in one commit, then the effects run. */
export class TurnLog {
  readonly changed = new Set<Task>();
  readonly deletedTaskIds: string[] = [];
  readonly effects: Effect[] = [];
  workflowChanged = false;

  touch(t: Task): void {
    this.changed.add(t);
  }
  emit(e: Effect): void {
    this.effects.push(e);
  }
}

export interface Turn {
  state: ExecutionState;
  env: EngineEnv;
  log: TurnLog;
}

/** Conductor's defaults for a task with no registered definition (reference §8.16, §4.1). */
export function adhocTaskDef(name: string, workerTask: boolean): TaskDef {
  return {
    name,
    retryCount: workerTask ? 3 : 0,
    timeoutSeconds: 0,
    inputKeys: [],
    outputKeys: [],
    timeoutPolicy: 'TIME_OUT_WF',
    retryLogic: 'FIXED',
    retryDelaySeconds: 60,
    responseTimeoutSeconds: workerTask ? 3600 : 0,
    inputTemplate: {},
    backoffScaleFactor: 1,
    maxRetryDelaySeconds: 0,
    totalTimeoutSeconds: 0,
    createTime: 0,
    updateTime: 0,
  } as TaskDef;
}

/** The effective definition of a task: inline definition first, then registered, then ad hoc. */
export function effectiveTaskDef(wt: WorkflowTask, taskDefName: string, env: EngineEnv, workerTask: boolean): TaskDef {
  return (wt.taskDefinition as TaskDef | undefined) ?? env.taskDef(taskDefName) ?? adhocTaskDef(taskDefName, workerTask);
}
