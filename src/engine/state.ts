import type { TaskDef, WorkflowTask } from '../model/definitions';
import type { Task, WorkflowRecord } from '../model/execution';
import type { Effect } from '../model/effects';
import { JsonPathBudget } from './jsonpath-budget';
import type { ScriptRequest } from './script-requests';

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
  /** Most iterations a DO_WHILE may start; one more fails the loop (BATON_DO_WHILE_MAX_ITERATIONS). */
  doWhileMaxIterations: number;
  /** Work allowed to the full JSONPath evaluations of one turn, and how deep they may read. */
  jsonPathMaxSteps: number;
  jsonPathMaxDepth: number;
  /** Deepest nesting of sub-workflows below a top-level execution (BATON_MAX_SUBWORKFLOW_DEPTH). */
  maxSubWorkflowDepth: number;
  /** Most generations of starts below a root execution (BATON_MAX_WORKFLOW_GENERATIONS), see model/lineage. */
  maxWorkflowGenerations: number;
  /** Most branches of one dynamic fork (BATON_MAX_FORK_WIDTH). */
  maxForkWidth: number;
  /** Most tasks one execution may hold, retries and loop iterations included (BATON_MAX_TASKS_PER_EXECUTION). */
  maxTasksPerExecution: number;
  /** Largest task input or output, and workflow output, in bytes of UTF-8 JSON (BATON_TASK/WORKFLOW_PAYLOAD_MAX_BYTES). */
  taskPayloadMaxBytes: number;
  workflowPayloadMaxBytes: number;
  /** Registered task definition by name (a cached snapshot of the metadata store). */
  taskDef(name: string): TaskDef | undefined;
  /** Whether a worker polled (taskType, domain) recently (Conductor's taskToDomain fallback takes the first active domain). */
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
  /** The decide loop stopped at its round limit with work left: the actor continues in a new turn. */
  unfinished = false;
  /** Scripts asked for and not answered yet; `dispatched` ones are being evaluated. */
  private readonly scripts: Array<{ request: ScriptRequest; dispatched: boolean }> = [];
  private jsonPath?: JsonPathBudget;

  touch(t: Task): void {
    this.changed.add(t);
  }
  emit(e: Effect): void {
    this.effects.push(e);
  }

  requestScript(request: ScriptRequest): void {
    this.scripts.push({ request, dispatched: false });
  }
  /** Whether the task waits for a script's outcome in this turn (asked for, or being evaluated). */
  awaitsScript(taskId: string): boolean {
    return this.scripts.some((s) => s.request.taskId === taskId);
  }
  /** The requests not handed out yet, now marked as being evaluated. */
  dispatchScripts(): ScriptRequest[] {
    const fresh = this.scripts.filter((s) => !s.dispatched);
    for (const s of fresh) s.dispatched = true;
    return fresh.map((s) => s.request);
  }
  /** Forgets an answered (or abandoned) request. */
  settleScript(request: ScriptRequest): void {
    const at = this.scripts.findIndex((s) => s.request === request);
    if (at >= 0) this.scripts.splice(at, 1);
  }
  get pendingScripts(): number {
    return this.scripts.length;
  }

  /**
   * One JSONPath budget for the turn's synchronous stretch, so many expressions cannot add up to a
   * stall either; reset after each wait for scripts (the event loop was free meanwhile).
   */
  jsonPathBudget(env: Pick<EngineEnv, 'jsonPathMaxSteps' | 'jsonPathMaxDepth'>): JsonPathBudget {
    this.jsonPath ??= new JsonPathBudget({ maxSteps: env.jsonPathMaxSteps, maxDepth: env.jsonPathMaxDepth });
    return this.jsonPath;
  }
  resetJsonPathBudget(): void {
    this.jsonPath = undefined;
  }
}

export interface Turn {
  state: ExecutionState;
  env: EngineEnv;
  log: TurnLog;
}

/** Conductor's ad-hoc TaskDef for a task with no registered definition (MetadataMapperService). */
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
export function effectiveTaskDef(wt: WorkflowTask, taskDefName: string, env: Pick<EngineEnv, 'taskDef'>, workerTask: boolean): TaskDef {
  if (wt.taskDefinition) return { ...wt.taskDefinition, name: wt.taskDefinition.name || taskDefName } as TaskDef;
  return env.taskDef(taskDefName) ?? adhocTaskDef(taskDefName, workerTask);
}
