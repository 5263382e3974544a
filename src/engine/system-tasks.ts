import type { WorkflowTask } from '../model/definitions';
import { walkTasks } from '../model/definitions';
import type { Task } from '../model/execution';
import { isSuccessfulTask, isTerminalTask, type WorkflowStatus } from '../model/statuses';
import { isConductorTrue } from '../scripting/truthy';
import { blueprintOf } from './blueprint';
import { latestByRef, latestWithRuntimeRef, resolveInput } from './context';
import type { ControlFlowHooks } from './decider';
import { parseWaitDuration, parseWaitUntil } from './durations';
import { ExpressionLimitError } from './jsonpath-budget';
import { jsonSize, taskPayloadProblem } from './payload-size';
import { describeScriptFailure, scriptTaskFailureReason, type ScriptCall, type ScriptOutcome, type ScriptRequest } from './script-requests';
import type { Turn } from './state';

// System task behaviour (Conductor's core/execution/tasks): what happens when a system task is scheduled
// (runInlineTask) and, for tasks that wait on others, at each decision (evaluateTask).

/** Ends a system task; an output over the task payload limit fails it instead, without that output. */
function complete(turn: Turn, t: Task, output: Record<string, unknown>, status: Task['status'] = 'COMPLETED', reason?: string): void {
  const oversized = taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes);
  if (oversized) {
    output = {};
    status = 'FAILED_WITH_TERMINAL_ERROR';
    reason = oversized;
  }
  t.status = status;
  t.outputData = output;
  if (reason !== undefined) t.reasonForIncompletion = reason.slice(0, 500);
  if (!t.startTime) t.startTime = turn.env.now;
  t.endTime = turn.env.now;
  t.updateTime = turn.env.now;
  t.workerId = turn.env.hostName;
  turn.log.touch(t);
}

function inProgress(turn: Turn, t: Task): void {
  t.status = 'IN_PROGRESS';
  if (!t.startTime) t.startTime = turn.env.now;
  t.updateTime = turn.env.now;
  turn.log.touch(t);
}

const errorMessage = (e: unknown): string => (e instanceof Error ? e.message : String(e));

const JAVASCRIPT_EVALUATORS = new Set(['javascript', 'graaljs']);

/** The task waits, IN_PROGRESS, for a script the actor evaluates off the event loop (finishScript takes the outcome). */
function awaitScript(turn: Turn, t: Task, purpose: ScriptRequest['purpose'], call: ScriptCall): void {
  inProgress(turn, t);
  turn.log.requestScript({ taskId: t.taskId, purpose, call });
}

/** A `${...}` input of a control-flow task that went past the JSONPath budget fails that task; other errors are bugs. */
function expressionLimitOf(e: unknown): string {
  if (e instanceof ExpressionLimitError) return e.message;
  throw e;
}

const caseKey = (v: unknown): string => (v === null || v === undefined ? 'null' : typeof v === 'object' ? JSON.stringify(v) : String(v));

function runBranch(turn: Turn, t: Task, branch: WorkflowTask[] | undefined, hooks: ControlFlowHooks): void {
  t.executed = true;
  turn.log.touch(t);
  const suffix = t.referenceTaskName.slice(t.workflowTask.taskReferenceName.length);
  if (branch && branch.length > 0) hooks.scheduleTask(turn, branch[0]!, suffix, t.iteration);
  else hooks.scheduleNext(turn, t);
}

/** A SWITCH or DECISION found its case value: it completes and its branch (or the default one) starts. */
function chooseCase(turn: Turn, t: Task, value: unknown, hooks: ControlFlowHooks): void {
  const wt = t.workflowTask;
  const key = caseKey(value);
  const chosen = wt.decisionCases?.[key];
  complete(turn, t, t.taskType === 'DECISION' ? { caseOutput: [key] } : { evaluationResult: [key], selectedCase: chosen ? key : 'defaultCase' });
  runBranch(turn, t, chosen ?? wt.defaultCase, hooks);
}

function failCase(turn: Turn, t: Task, message: string): void {
  complete(turn, t, { error: message }, 'FAILED', `Error evaluating the expression: ${message}`);
}

/** An INLINE, LAMBDA or JSON_JQ_TRANSFORM task's script answered. */
function finishScriptTask(turn: Turn, t: Task, outcome: ScriptOutcome): void {
  if (t.taskType === 'JSON_JQ_TRANSFORM') {
    if (!outcome.ok) complete(turn, t, { error: outcome.message }, 'FAILED', outcome.message);
    else {
      const results = outcome.value as unknown[];
      complete(turn, t, { result: results[0] ?? null, resultList: results });
    }
    return;
  }
  if (outcome.ok) {
    complete(turn, t, { result: outcome.value });
    return;
  }
  const reason = scriptTaskFailureReason(outcome);
  // Conductor's INLINE fails for good when the script itself is at fault (TerminateWorkflowException);
  // one stopped at the time limit is FAILED and may be retried. LAMBDA is FAILED either way.
  const terminal = t.taskType === 'INLINE' && outcome.failure !== 'timeout' && outcome.failure !== 'busy';
  complete(turn, t, { error: reason }, terminal ? 'FAILED_WITH_TERMINAL_ERROR' : 'FAILED', reason);
}

/** Applies the outcome of a script the task asked for (the decider checked that the task still waits for it). */
export function finishScript(turn: Turn, t: Task, request: ScriptRequest, outcome: ScriptOutcome, hooks: ControlFlowHooks): void {
  switch (request.purpose) {
    case 'taskResult':
      return finishScriptTask(turn, t, outcome);
    case 'switchCase':
      return outcome.ok ? chooseCase(turn, t, outcome.value, hooks) : failCase(turn, t, describeScriptFailure(outcome));
    case 'loopCondition':
      if (request.iteration !== t.iteration) return; // the loop moved on (cannot happen within one turn; kept as a guard)
      if (!outcome.ok) {
        // Conductor (DoWhile): any error of the condition fails the loop for good, in these words.
        complete(turn, t, t.outputData ?? {}, 'FAILED_WITH_TERMINAL_ERROR', `Unable to evaluate condition ${t.workflowTask.loopCondition}, exception ${describeScriptFailure(outcome)}`);
        return;
      }
      return continueLoop(turn, t, isConductorTrue(outcome.value), hooks);
  }
}

/** Runs a system task at scheduling time. Worker and queued system tasks are left SCHEDULED. */
export function runInlineTask(turn: Turn, t: Task, hooks: ControlFlowHooks, rerun = false): void {
  const wt = t.workflowTask;
  const input = t.inputData;
  switch (t.taskType) {
    case 'SWITCH':
    case 'DECISION': {
      if (t.taskType === 'DECISION') {
        if (wt.caseValueParam) chooseCase(turn, t, input[wt.caseValueParam], hooks);
        else awaitScript(turn, t, 'switchCase', { kind: 'expression', source: wt.caseExpression ?? 'null', input });
        return;
      }
      const evaluatorType = wt.evaluatorType ?? 'javascript';
      if (evaluatorType === 'value-param') chooseCase(turn, t, input[wt.expression ?? ''], hooks);
      else if (JAVASCRIPT_EVALUATORS.has(evaluatorType)) awaitScript(turn, t, 'switchCase', { kind: 'expression', source: wt.expression ?? '', input });
      else failCase(turn, t, `Evaluator type ${evaluatorType} is not supported`);
      return;
    }
    case 'FORK': {
      if (wt.type === 'FORK_JOIN_DYNAMIC') return runDynamicFork(turn, t, hooks);
      complete(turn, t, {});
      t.inputData = { ...t.inputData, forkedTasks: (wt.forkTasks ?? []).map((b) => b[0]?.taskReferenceName).filter(Boolean) };
      t.executed = true;
      const suffix = t.referenceTaskName.slice(wt.taskReferenceName.length);
      for (const branch of wt.forkTasks ?? []) if (branch[0]) hooks.scheduleTask(turn, branch[0], suffix, t.iteration); // scheduleTask stops once a branch ended the workflow
      const join = blueprintOf(turn.state.workflow.workflowDefinition).following(wt.taskReferenceName);
      if (join) hooks.scheduleTask(turn, join, suffix, t.iteration);
      return;
    }
    case 'DO_WHILE': {
      inProgress(turn, t);
      let items: unknown;
      try {
        items = loopItems(turn, t);
      } catch (e) {
        complete(turn, t, {}, 'FAILED_WITH_TERMINAL_ERROR', expressionLimitOf(e));
        return;
      }
      if (Array.isArray(items) && items.length === 0) {
        complete(turn, t, { iteration: 0 });
        return;
      }
      startIteration(turn, t, 1, hooks, Array.isArray(items) ? items : undefined);
      return;
    }
    case 'SET_VARIABLE': {
      const vars = { ...turn.state.workflow.variables, ...input };
      if (JSON.stringify(vars).length > 256 * 1024) {
        complete(turn, t, {}, 'FAILED_WITH_TERMINAL_ERROR', 'The variables payload size is above the limit of 256 KB');
        return;
      }
      turn.state.workflow.variables = vars;
      turn.log.workflowChanged = true;
      complete(turn, t, {});
      return;
    }
    case 'INLINE': {
      const evaluatorType = (input.evaluatorType as string | undefined) ?? 'javascript';
      const expression = String(input.expression ?? '');
      if (evaluatorType === 'value-param') complete(turn, t, { result: input[expression] });
      else if (JAVASCRIPT_EVALUATORS.has(evaluatorType)) awaitScript(turn, t, 'taskResult', { kind: 'expression', source: expression, input });
      else {
        const reason = `Evaluator type ${evaluatorType} is not supported`;
        complete(turn, t, { error: reason }, 'FAILED', reason);
      }
      return;
    }
    case 'LAMBDA':
      awaitScript(turn, t, 'taskResult', { kind: 'functionBody', source: String(input.scriptExpression ?? ''), input });
      return;
    case 'JSON_JQ_TRANSFORM':
      awaitScript(turn, t, 'taskResult', { kind: 'jq', query: String(input.queryExpression ?? '.'), input });
      return;
    case 'NOOP':
      complete(turn, t, {});
      return;
    case 'TERMINATE': {
      const status = String(input.terminationStatus ?? '');
      if (!['COMPLETED', 'FAILED', 'TERMINATED'].includes(status)) {
        complete(turn, t, {}, 'FAILED', `The termination status ${status} is not valid; use COMPLETED, FAILED or TERMINATED`);
        return;
      }
      const wo = input.workflowOutput;
      const output = wo && typeof wo === 'object' && !Array.isArray(wo) ? (wo as Record<string, unknown>) : wo === undefined ? {} : { output: wo };
      complete(turn, t, output);
      t.executed = true;
      const reason = (input.terminationReason as string | undefined) ?? `Workflow is ${status} by TERMINATE task: ${t.taskId}`;
      hooks.endWorkflow(turn, status as WorkflowStatus, status === 'COMPLETED' && input.terminationReason === undefined ? undefined : reason, { output, lastTask: t, ...(status === 'COMPLETED' ? {} : { failedTask: t }) });
      return;
    }
    case 'EVENT': {
      const wf = turn.state.workflow;
      const sink = wt.sink ?? '';
      const event = sink === 'conductor' ? `conductor:${wf.workflowName}:${t.referenceTaskName}` : sink.startsWith('conductor:') && sink.split(':').length === 2 ? `conductor:${wf.workflowName}:${sink.slice(10)}` : sink;
      const payload = { ...input, workflowInstanceId: wf.workflowId, workflowType: wf.workflowName, workflowVersion: wf.workflowVersion, correlationId: wf.correlationId };
      turn.log.emit({ kind: 'publish', eventId: t.taskId, sink: event, payload });
      if (wt.asyncComplete) inProgress(turn, t);
      else complete(turn, t, { ...payload, event_produced: event });
      return;
    }
    case 'START_WORKFLOW': {
      const req = input.startWorkflow as Record<string, unknown> | undefined;
      if (!req || typeof req !== 'object' || typeof req.name !== 'string') {
        complete(turn, t, {}, 'FAILED', 'Missing or invalid startWorkflow request in input');
        return;
      }
      const wf = turn.state.workflow;
      const id = turn.env.derivedId(`start:${wf.workflowId}:${t.taskId}`);
      turn.log.emit({
        kind: 'startWorkflow',
        workflowId: id,
        request: {
          name: req.name,
          version: typeof req.version === 'number' ? req.version : undefined,
          input: (req.input as Record<string, unknown>) ?? {},
          correlationId: (req.correlationId as string | undefined) ?? wf.correlationId,
          taskToDomain: (req.taskToDomain as Record<string, string> | undefined) ?? wf.taskToDomain,
          priority: typeof req.priority === 'number' ? req.priority : undefined,
        },
      });
      complete(turn, t, { workflowId: id });
      return;
    }
    case 'SUB_WORKFLOW': {
      const wf = turn.state.workflow;
      const p = wt.subWorkflowParam ?? {};
      // Without a cap a workflow that starts itself nests for ever (16,000 executions in 6 s); Conductor has none.
      const depth = (wf.subWorkflowDepth ?? 0) + 1;
      if (depth > turn.env.maxSubWorkflowDepth) {
        const reason = `Sub workflow ${p.name ?? wt.name} not started: it would be nested ${depth} levels deep, over the limit of ${turn.env.maxSubWorkflowDepth} (BATON_MAX_SUBWORKFLOW_DEPTH)`;
        complete(turn, t, {}, 'FAILED_WITH_TERMINAL_ERROR', reason);
        return;
      }
      const childId = turn.env.derivedId(`subworkflow:${wf.workflowId}:${t.taskId}:${t.retryCount}${rerun ? `:${turn.env.now}` : ''}`);
      const inlineDef = p.workflowDefinition && typeof p.workflowDefinition === 'object' ? (p.workflowDefinition as never) : undefined;
      t.subWorkflowId = childId;
      t.outputData = { subWorkflowId: childId };
      inProgress(turn, t);
      turn.log.emit({
        kind: 'startWorkflow',
        workflowId: childId,
        parent: { workflowId: wf.workflowId, taskId: t.taskId, depth },
        request: {
          name: p.name ?? (inlineDef as { name?: string } | undefined)?.name ?? wt.name,
          version: p.version ?? undefined,
          input: t.inputData,
          correlationId: wf.correlationId,
          taskToDomain: p.taskToDomain ?? wf.taskToDomain,
          priority: typeof p.priority === 'number' ? p.priority : wf.priority,
          workflowDef: inlineDef,
        },
      });
      return;
    }
    case 'WAIT': {
      inProgress(turn, t);
      try {
        if (input.duration !== undefined && input.duration !== null && input.duration !== '') {
          t.waitTimeout = turn.env.now + parseWaitDuration(String(input.duration)) * 1000;
        } else if (input.until !== undefined && input.until !== null && input.until !== '') {
          t.waitTimeout = parseWaitUntil(String(input.until));
        }
        if (t.waitTimeout !== undefined) t.callbackAfterSeconds = Math.max(0, Math.ceil((t.waitTimeout - turn.env.now) / 1000));
      } catch (e) {
        complete(turn, t, {}, 'FAILED_WITH_TERMINAL_ERROR', errorMessage(e));
      }
      return;
    }
    case 'HUMAN':
    case 'JOIN':
    case 'EXCLUSIVE_JOIN':
      inProgress(turn, t);
      return;
    default:
      return; // worker tasks and queued system tasks stay SCHEDULED in their queue
  }
}

/**
 * Why a dynamic fork of `width` branches may not start: wider than BATON_MAX_FORK_WIDTH, or more tasks than
 * BATON_MAX_TASKS_PER_EXECUTION once its branches and JOIN are added. Conductor has neither cap; a 50,000-branch
 * fork froze the server for seconds.
 */
function forkLimitProblem(turn: Turn, t: Task, width: number): string | undefined {
  const { maxForkWidth, maxTasksPerExecution } = turn.env;
  if (width > maxForkWidth) return `Dynamic fork ${t.referenceTaskName} has ${width} branches, over the limit of ${maxForkWidth} (BATON_MAX_FORK_WIDTH)`;
  const total = turn.state.tasks.length + width + 1;
  if (total > maxTasksPerExecution)
    return `Dynamic fork ${t.referenceTaskName} would bring workflow ${t.workflowInstanceId} to ${total} tasks, over the limit of ${maxTasksPerExecution} tasks per execution (BATON_MAX_TASKS_PER_EXECUTION)`;
  return undefined;
}

function runDynamicFork(turn: Turn, t: Task, hooks: ControlFlowHooks): void {
  const wt = t.workflowTask;
  const input = t.inputData;
  let tasks: WorkflowTask[] = [];
  let inputs: Record<string, unknown> = {};
  let limit: string | undefined;
  try {
    if ('forkTaskName' in input || 'forkTaskWorkflow' in input || 'forkTaskInputs' in input) {
      const list = Array.isArray(input.forkTaskInputs) ? input.forkTaskInputs : [];
      const name = String(input.forkTaskName ?? input.forkTaskWorkflow ?? '');
      const type = input.forkTaskWorkflow ? 'SUB_WORKFLOW' : String(input.forkTaskType ?? 'SIMPLE');
      tasks = list.map((_, i) => ({
        name,
        taskReferenceName: `_${name}_${i}`,
        type,
        inputParameters: {},
        ...(type === 'SUB_WORKFLOW' ? { subWorkflowParam: { name, version: (input.forkTaskWorkflowVersion as number | undefined) ?? undefined } } : {}),
      }));
      list.forEach((v, i) => (inputs[`_${name}_${i}`] = { ...(v && typeof v === 'object' && !Array.isArray(v) ? v : { input: v }), __index: i }));
    } else if (wt.dynamicForkJoinTasksParam) {
      const spec = input[wt.dynamicForkJoinTasksParam] as { dynamicTasks?: Array<Record<string, unknown>> } | undefined;
      for (const d of spec?.dynamicTasks ?? []) {
        const ref = String(d.referenceName);
        tasks.push({ name: String(d.taskName), taskReferenceName: ref, type: String(d.type ?? 'SIMPLE'), inputParameters: {}, ...(d.workflowName ? { subWorkflowParam: { name: String(d.workflowName) } } : {}) });
        inputs[ref] = d.input ?? {};
      }
    } else {
      const list = input[wt.dynamicForkTasksParam ?? ''];
      if (!Array.isArray(list)) throw new Error(`Input '${wt.dynamicForkTasksParam}' must be a list of tasks`);
      tasks = list.map((x) => {
        const w = x as WorkflowTask;
        return { ...w, type: w.type ?? 'SIMPLE', inputParameters: w.inputParameters ?? {} };
      });
      const m = input[wt.dynamicForkTasksInputParamName ?? ''];
      if (m !== undefined && (m === null || typeof m !== 'object' || Array.isArray(m))) throw new Error(`Input '${wt.dynamicForkTasksInputParamName}' must be a map of reference name to input`);
      inputs = (m as Record<string, unknown>) ?? {};
    }
    limit = forkLimitProblem(turn, t, tasks.length);
    if (!limit) {
      if (tasks.some((x) => !x.taskReferenceName)) throw new Error('Every dynamic fork task needs a taskReferenceName');
      const refs = new Set<string>();
      for (const { taskReferenceName: ref } of tasks) {
        if (refs.has(ref) || latestByRef(turn.state.tasks, ref)) throw new Error(`Duplicate task reference name ${ref} in dynamic fork`);
        refs.add(ref);
      }
    }
  } catch (e) {
    complete(turn, t, { error: errorMessage(e) }, 'FAILED', errorMessage(e));
    return;
  }
  if (limit) {
    complete(turn, t, { error: limit }, 'FAILED_WITH_TERMINAL_ERROR', limit);
    return;
  }
  complete(turn, t, {});
  t.inputData = { ...t.inputData, forkedTasks: tasks.map((x) => x.taskReferenceName), forkedTaskDefs: tasks };
  t.executed = true;
  const suffix = t.referenceTaskName.slice(wt.taskReferenceName.length);
  for (const dt of tasks) {
    const taskInput = (inputs[dt.taskReferenceName] as Record<string, unknown>) ?? {};
    hooks.addTask(turn, hooks.makeTask(turn, dt, { suffix, iteration: t.iteration, input: taskInput }));
    const added = turn.state.tasks[turn.state.tasks.length - 1]!;
    runInlineTask(turn, added, hooks);
  }
  const join = blueprintOf(turn.state.workflow.workflowDefinition).following(wt.taskReferenceName);
  if (join) hooks.scheduleTask(turn, { ...join, joinOn: tasks.map((x) => x.taskReferenceName) }, suffix, t.iteration);
}

function loopBodyRefs(wt: WorkflowTask): Set<string> {
  return new Set([...walkTasks(wt.loopOver ?? [])].map((x) => x.taskReferenceName));
}

/** The list a DO_WHILE with `items` iterates over, resolved now (its `${...}` may read earlier iterations). */
function loopItems(turn: Turn, t: Task): unknown {
  const { items } = t.workflowTask;
  return items !== undefined ? resolveInput(turn.state, { items }, undefined, turn.log.jsonPathBudget(turn.env)).items : undefined;
}

/**
 * After an iteration: completes the loop, or starts the next iteration unless that would pass
 * BATON_DO_WHILE_MAX_ITERATIONS (Conductor has no such cap; without it a condition that never turns
 * false runs for ever).
 */
function continueLoop(turn: Turn, t: Task, again: boolean, hooks: ControlFlowHooks, items?: unknown[]): void {
  if (!again) {
    complete(turn, t, t.outputData ?? {});
    return;
  }
  const limit = turn.env.doWhileMaxIterations;
  if (t.iteration >= limit) {
    const why = items ? `its items list has ${items.length} entries` : 'its loopCondition still holds';
    complete(turn, t, t.outputData ?? {}, 'FAILED_WITH_TERMINAL_ERROR', `DO_WHILE ${t.referenceTaskName} reached the limit of ${limit} iterations (BATON_DO_WHILE_MAX_ITERATIONS) and ${why}`);
    return;
  }
  startIteration(turn, t, t.iteration + 1, hooks, items);
}

function startIteration(turn: Turn, t: Task, iteration: number, hooks: ControlFlowHooks, items?: unknown[]): void {
  const wt = t.workflowTask;
  t.iteration = iteration;
  t.outputData = { ...t.outputData, iteration, ...(items ? { item: items[iteration - 1], index: iteration - 1 } : {}) };
  turn.log.touch(t);
  const first = wt.loopOver?.[0];
  const loopSuffix = t.referenceTaskName.slice(wt.taskReferenceName.length);
  if (first) hooks.scheduleTask(turn, first, `${loopSuffix}__${iteration}`, iteration);
}

/** Re-evaluates a waiting system task. Returns true when it changed. */
export function evaluateTask(turn: Turn, t: Task, hooks: ControlFlowHooks): boolean {
  switch (t.taskType) {
    case 'JOIN':
      return evaluateJoin(turn, t);
    case 'EXCLUSIVE_JOIN':
      return evaluateExclusiveJoin(turn, t);
    case 'DO_WHILE':
      return evaluateLoop(turn, t, hooks);
    case 'WAIT':
      if (t.waitTimeout !== undefined && t.waitTimeout > 0 && turn.env.now >= t.waitTimeout) {
        complete(turn, t, t.outputData ?? {});
        return true;
      }
      return false;
    default:
      return false;
  }
}

function joinOnOf(turn: Turn, t: Task): string[] {
  const joinOn = t.workflowTask.joinOn ?? [];
  if (joinOn.length > 0) return joinOn;
  // An empty joinOn waits for the last task of every branch of the fork before it.
  const bp = blueprintOf(turn.state.workflow.workflowDefinition);
  const fork = bp.forkBefore(t.workflowTask.taskReferenceName);
  return fork ? bp.branchEnds(fork.taskReferenceName) : [];
}

function evaluateJoin(turn: Turn, t: Task): boolean {
  const suffix = t.referenceTaskName.slice(t.workflowTask.taskReferenceName.length);
  const joinOn = joinOnOf(turn, t);
  const branches: Task[] = new Array(joinOn.length);
  // Last branch first: workers take branches in the order they were queued, so the first one still open is
  // usually near the end, and a join of N branches costs O(1), not O(N), at each decision until the last one ends.
  for (let i = joinOn.length - 1; i >= 0; i--) {
    const x = latestByRef(turn.state.tasks, joinOn[i]! + suffix);
    if (!x || !isTerminalTask(x.status) || x.retried) return false;
    if (!isSuccessfulTask(x.status)) return false; // the failing branch ends or retries the workflow itself
    branches[i] = x;
  }
  const output: Record<string, unknown> = {};
  let withErrors = false;
  joinOn.forEach((ref, i) => {
    const x = branches[i]!;
    if (x.status === 'COMPLETED_WITH_ERRORS') withErrors = true;
    if (x.outputData && Object.keys(x.outputData).length > 0) output[ref] = x.outputData;
  });
  complete(turn, t, output, withErrors ? 'COMPLETED_WITH_ERRORS' : 'COMPLETED');
  return true;
}

function evaluateExclusiveJoin(turn: Turn, t: Task): boolean {
  const suffix = t.referenceTaskName.slice(t.workflowTask.taskReferenceName.length);
  for (const ref of t.workflowTask.joinOn ?? []) {
    const x = latestByRef(turn.state.tasks, ref + suffix);
    if (!x || x.status === 'SKIPPED') continue;
    if (!isTerminalTask(x.status) || x.retried) return false;
    complete(turn, t, { ...x.outputData }, isSuccessfulTask(x.status) ? 'COMPLETED' : 'FAILED', x.reasonForIncompletion);
    return true;
  }
  const pending = turn.state.tasks.some((x) => x !== t && !x.retried && !isTerminalTask(x.status));
  if (pending) return false;
  for (const ref of t.workflowTask.defaultExclusiveJoinTask ?? []) {
    const x = latestByRef(turn.state.tasks, ref + suffix);
    if (x && isTerminalTask(x.status)) {
      complete(turn, t, { ...x.outputData }, isSuccessfulTask(x.status) ? 'COMPLETED' : 'FAILED', x.reasonForIncompletion);
      return true;
    }
  }
  complete(turn, t, {});
  return true;
}

function evaluateLoop(turn: Turn, t: Task, hooks: ControlFlowHooks): boolean {
  if (turn.log.awaitsScript(t.taskId)) return false; // its condition is being evaluated
  const wt = t.workflowTask;
  const bodyRefs = loopBodyRefs(wt);
  const loopSuffix = t.referenceTaskName.slice(wt.taskReferenceName.length);
  const iterSuffix = `${loopSuffix}__${t.iteration}`;
  // The latest attempt of each body task in this iteration, looked up by ref (not by scanning every task of
  // the execution, which made a long loop quadratic). Tasks of a nested loop are covered by that loop's task.
  const body: Task[] = [];
  for (const ref of bodyRefs) {
    const x = latestWithRuntimeRef(turn.state.tasks, ref + iterSuffix);
    if (x) body.push(x);
  }
  if (body.length === 0) return false;
  for (const x of body) {
    if (x.retried || !isTerminalTask(x.status) || !isSuccessfulTask(x.status)) return false;
    if (!x.executed && x.status !== 'SKIPPED') return false;
  }
  const iterationOutput: Record<string, unknown> = {};
  for (const x of body) iterationOutput[x.workflowTask.taskReferenceName] = x.outputData;
  const output: Record<string, unknown> = { ...t.outputData, [String(t.iteration)]: iterationOutput, iteration: t.iteration };
  // Every iteration adds to the loop's output: past the payload limit the loop fails (complete() says why).
  if (taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes)) {
    complete(turn, t, output);
    return true;
  }
  t.outputData = output;
  turn.log.touch(t);
  let items: unknown;
  try {
    items = loopItems(turn, t);
  } catch (e) {
    complete(turn, t, output, 'FAILED_WITH_TERMINAL_ERROR', expressionLimitOf(e));
    return true;
  }
  if (Array.isArray(items)) {
    continueLoop(turn, t, t.iteration < items.length, hooks, items);
    return true;
  }
  const bindings: Record<string, unknown> = { ...t.inputData, [wt.taskReferenceName]: output };
  for (const [ref, out] of Object.entries(iterationOutput)) bindings[ref] = out;
  turn.log.requestScript({ taskId: t.taskId, purpose: 'loopCondition', iteration: t.iteration, call: { kind: 'expression', source: wt.loopCondition ?? 'false', input: bindings } });
  return true;
}

/** When a WAIT task ends by itself, if it does. */
export function waitDeadline(t: Task): number | undefined {
  return t.taskType === 'WAIT' && t.status === 'IN_PROGRESS' && t.waitTimeout ? t.waitTimeout : undefined;
}
