import { claimTask } from '../../../src/engine/commands/claim';
import { newExecution, type StartArgs } from '../../../src/engine/commands/start';
import { applyExternalUpdate, applyTaskResult } from '../../../src/engine/commands/task-result';
import { decide } from '../../../src/engine/decide';
import { nextDeadline } from '../../../src/engine/deadlines';
import type { Effect } from '../../../src/model/effects';
import { latestWithRuntimeRef } from '../../../src/engine/task-lookup';
import { TurnLog, type EngineEnv, type ExecutionState, type Turn } from '../../../src/engine/state';
import { TaskDefSchema, WorkflowDefSchema, type TaskDef, type WorkflowDef } from '../../../src/model/definitions';
import type { Task } from '../../../src/model/execution';
import type { StartWorkflowRequest, TaskResult } from '../../../src/model/requests';
import { createScriptEngine, type ScriptEngine, type ScriptEngineOptions } from '../../../src/scripting/script-engine';
import { settleScripts } from '../../../src/actors/script-evaluation';
import { DEFAULT_JSONPATH_LIMITS } from '../../../src/engine/jsonpath-budget';

// A deterministic world for the pure decider: time moves only when a test advances it.

export const T0 = 1_700_000_000_000;

export class TestEnv implements EngineEnv {
  now = T0;
  hostName = 'test';
  doWhileMaxIterations = 1000;
  jsonPathMaxSteps = DEFAULT_JSONPATH_LIMITS.maxSteps;
  jsonPathMaxDepth = DEFAULT_JSONPATH_LIMITS.maxDepth;
  maxSubWorkflowDepth = 32;
  maxWorkflowGenerations = 64;
  maxForkWidth = 1000;
  maxTasksPerExecution = 10_000;
  taskPayloadMaxBytes = 3 * 1024 * 1024;
  workflowPayloadMaxBytes = 10 * 1024 * 1024;
  private seq = 0;
  readonly defs = new Map<string, TaskDef>();
  /** Active pollers as `domain:taskType`. */
  readonly activeDomains = new Set<string>();

  constructor(readonly scripts: ScriptEngine) {}

  /** Back to a fresh world (time T0, no definitions, default limits), over these script workers. */
  reset(scripts: ScriptEngine): void {
    Object.assign(this, new TestEnv(scripts));
  }

  newId(): string {
    this.seq += 1;
    return `id-${this.seq}`;
  }
  derivedId(seed: string): string {
    return `derived(${seed})`;
  }
  taskDef(name: string): TaskDef | undefined {
    return this.defs.get(name);
  }
  isDomainActive(taskType: string, domain: string): boolean {
    return this.activeDomains.has(`${domain}:${taskType}`);
  }

  advance(seconds: number): this {
    this.now += Math.round(seconds * 1000);
    return this;
  }
  register(def: Record<string, unknown>): TaskDef {
    const parsed = TaskDefSchema.parse(def);
    this.defs.set(parsed.name, parsed);
    return parsed;
  }
}

export interface TestEnvOptions {
  /** Options of the real script workers started for the file; false: the file evaluates no script. */
  scripts?: ScriptEngineOptions | false;
  /** Wraps the script workers (to count evaluations, say). */
  wrapScripts?: (scripts: ScriptEngine) => ScriptEngine;
}

/**
 * The preamble of an engine test file (or describe block): real script workers started once and stopped
 * after the last test, and one TestEnv, fresh again before each test.
 */
export function useTestEnv(opts: TestEnvOptions = {}): TestEnv {
  const env = new TestEnv(undefined as never);
  let scripts: ScriptEngine | undefined;
  if (opts.scripts !== false) {
    const scriptOptions = opts.scripts;
    beforeAll(async () => {
      scripts = await createScriptEngine(scriptOptions);
    });
    afterAll(() => scripts?.dispose());
  }
  beforeEach(() => env.reset((scripts && opts.wrapScripts ? opts.wrapScripts(scripts) : scripts) as ScriptEngine));
  return env;
}

export function workflowDef(def: Record<string, unknown>): WorkflowDef {
  return WorkflowDefSchema.parse({ name: 'wf', ...def });
}

/** One execution driven through the decider's commands, one turn (and one log) per call. */
export class Run {
  readonly state: ExecutionState;
  log: TurnLog;

  constructor(
    readonly env: TestEnv,
    def: WorkflowDef,
    request: Partial<StartWorkflowRequest> = {},
    extra: Partial<StartArgs> = {},
  ) {
    const started = newExecution({ workflowId: 'wf-1', def, request: { name: def.name, ...request }, ...extra }, env);
    this.state = started.state;
    this.log = started.log;
  }

  get wf() {
    return this.state.workflow;
  }
  get tasks(): Task[] {
    return this.state.tasks;
  }

  /** Runs one command in a fresh turn; its log replaces `log`. */
  turn<R>(fn: (turn: Turn) => R): R {
    this.log = new TurnLog();
    return fn({ state: this.state, env: this.env, log: this.log });
  }

  /**
   * Evaluates the scripts the last command asked for in the real script workers, as the actor does,
   * and applies their outcomes within the same turn (and log).
   */
  async settle(): Promise<this> {
    await settleScripts({ state: this.state, env: this.env, log: this.log }, this.env.scripts, () => this.env);
    return this;
  }

  /** A started execution whose start turn has run its scripts (INLINE, SWITCH, ... at the start). */
  static started(env: TestEnv, def: WorkflowDef, request: Partial<StartWorkflowRequest> = {}, extra: Partial<StartArgs> = {}): Promise<Run> {
    return new Run(env, def, request, extra).settle();
  }

  /** complete() and then the scripts that completion asked for (a loop condition, an INLINE after it). */
  async finish(ref: string, outputData: Record<string, unknown> = {}): Promise<void> {
    this.complete(ref, outputData);
    await this.settle();
  }

  /** Latest task with this runtime reference name. */
  task(ref: string): Task {
    const found = latestWithRuntimeRef(this.state.tasks, ref);
    if (!found) throw new Error(`no task ${ref}; have ${this.refs().join(', ')}`);
    return found;
  }
  has(ref: string): boolean {
    return this.state.tasks.some((t) => t.referenceTaskName === ref);
  }
  refs(): string[] {
    return this.state.tasks.map((t) => t.referenceTaskName);
  }
  /** `ref:STATUS` of every task in seq order. */
  summary(): string[] {
    return this.state.tasks.map((t) => `${t.referenceTaskName}:${t.taskType}:${t.status}`);
  }

  poll(ref: string, workerId = 'w'): Task | null {
    return this.turn((t) => claimTask(t, this.task(ref).taskId, workerId));
  }
  update(ref: string, result: Partial<TaskResult> & Pick<TaskResult, 'status'>) {
    const task = this.task(ref);
    return this.turn((t) => applyTaskResult(t, { workflowInstanceId: this.wf.workflowId, taskId: task.taskId, ...result }));
  }
  /** Poll then complete, as a worker would. */
  complete(ref: string, outputData: Record<string, unknown> = {}) {
    if (this.task(ref).status === 'SCHEDULED') this.poll(ref);
    return this.update(ref, { status: 'COMPLETED', outputData });
  }
  fail(ref: string, reasonForIncompletion = 'boom', status: 'FAILED' | 'FAILED_WITH_TERMINAL_ERROR' = 'FAILED') {
    if (this.task(ref).status === 'SCHEDULED') this.poll(ref);
    return this.update(ref, { status, reasonForIncompletion });
  }
  external(ref: string, status: TaskResult['status'], output: Record<string, unknown> = {}) {
    return this.turn((t) => applyExternalUpdate(t, { ref, status, output }));
  }
  timer(): void {
    this.turn((t) => decide(t));
  }
  deadline(): number | null {
    return nextDeadline(this.state, this.env);
  }
  effects<K extends Effect['kind']>(kind: K): Extract<Effect, { kind: K }>[] {
    return this.log.effects.filter((e): e is Extract<Effect, { kind: K }> => e.kind === kind);
  }
}

/** Shorthand for a worker task node. */
export const simple = (ref: string, name = `task_${ref}`, inputParameters: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name,
  taskReferenceName: ref,
  type: 'SIMPLE',
  inputParameters,
  ...extra,
});

/** Shorthand for a system task node named after its reference. */
export const sys = (type: string, ref: string, inputParameters: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => ({
  name: ref,
  taskReferenceName: ref,
  type,
  inputParameters,
  ...extra,
});
