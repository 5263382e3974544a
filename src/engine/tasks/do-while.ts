import { setOwn } from '../../lib/own-property';
import { walkTasks, type WorkflowTask } from '../../model/definitions';
import type { Task } from '../../model/execution';
import { isSuccessfulTask, isTerminalTask } from '../../model/statuses';
import { isConductorTrue } from '../../scripting/truthy';
import { resolveInput } from '../context';
import { ExpressionLimitError } from '../jsonpath-budget';
import { jsonSize, taskPayloadProblem } from '../payload-size';
import { describeScriptFailure } from '../script-requests';
import type { Turn } from '../state';
import { latestWithRuntimeRef } from '../task-lookup';
import { refSuffix, type TaskOutcome, type TaskType } from './task-type';

// DO_WHILE: runs its loopOver tasks as iterations `ref__N` while its loopCondition holds, or once per
// entry of its `items` list; its output keeps every iteration's outputs by iteration number.

/** A `${...}` input of the loop that went past the JSONPath budget fails it; other errors are bugs. */
function expressionLimitOf(e: unknown): string {
  if (e instanceof ExpressionLimitError) return e.message;
  throw e;
}

function loopBodyRefs(wt: WorkflowTask): Set<string> {
  return new Set([...walkTasks(wt.loopOver ?? [])].map((x) => x.taskReferenceName));
}

/** The list a DO_WHILE with `items` iterates over, resolved now (its `${...}` may read earlier iterations). */
function loopItems(turn: Turn, t: Task): unknown {
  const { items } = t.workflowTask;
  return items !== undefined ? resolveInput(turn.state, { items }, undefined, turn.log.jsonPathBudget(turn.env)).items : undefined;
}

function startIteration(turn: Turn, t: Task, iteration: number, items?: unknown[]): TaskOutcome {
  const wt = t.workflowTask;
  t.iteration = iteration;
  t.outputData = { ...t.outputData, iteration, ...(items ? { item: items[iteration - 1], index: iteration - 1 } : {}) };
  turn.log.touch(t);
  const first = wt.loopOver?.[0];
  return first ? { schedule: [{ task: first, suffix: `${refSuffix(t)}__${iteration}`, iteration }] } : {};
}

/**
 * After an iteration: completes the loop, or starts the next iteration unless that would pass
 * BATON_DO_WHILE_MAX_ITERATIONS (Conductor has no such cap; without it a condition that never turns
 * false runs for ever).
 */
function continueLoop(turn: Turn, t: Task, again: boolean, items?: unknown[]): TaskOutcome {
  if (!again) return { end: { output: t.outputData ?? {} } };
  const limit = turn.env.doWhileMaxIterations;
  if (t.iteration >= limit) {
    const why = items ? `its items list has ${items.length} entries` : 'its loopCondition still holds';
    return {
      end: {
        output: t.outputData ?? {},
        status: 'FAILED_WITH_TERMINAL_ERROR',
        reason: `DO_WHILE ${t.referenceTaskName} reached the limit of ${limit} iterations (BATON_DO_WHILE_MAX_ITERATIONS) and ${why}`,
      },
    };
  }
  return startIteration(turn, t, t.iteration + 1, items);
}

function startLoop(turn: Turn, t: Task): TaskOutcome {
  let items: unknown;
  try {
    items = loopItems(turn, t);
  } catch (e) {
    return { end: { output: {}, status: 'FAILED_WITH_TERMINAL_ERROR', reason: expressionLimitOf(e) } };
  }
  if (Array.isArray(items) && items.length === 0) return { end: { output: { iteration: 0 } } };
  return { ...startIteration(turn, t, 1, Array.isArray(items) ? items : undefined), wait: true };
}

/** At each decision: once every body task of the iteration has ended well, decides on the next one. */
function evaluateLoop(turn: Turn, t: Task): TaskOutcome | undefined {
  if (turn.log.awaitsScript(t.taskId)) return undefined; // its condition is being evaluated
  const wt = t.workflowTask;
  const iterSuffix = `${refSuffix(t)}__${t.iteration}`;
  // The latest attempt of each body task in this iteration, looked up by ref (not by scanning every task of
  // the execution, which made a long loop quadratic). Tasks of a nested loop are covered by that loop's task.
  const body: Task[] = [];
  for (const ref of loopBodyRefs(wt)) {
    const x = latestWithRuntimeRef(turn.state.tasks, ref + iterSuffix);
    if (x) body.push(x);
  }
  if (body.length === 0) return undefined;
  for (const x of body) {
    if (x.retried || !isTerminalTask(x.status) || !isSuccessfulTask(x.status)) return undefined;
    if (!x.executed && x.status !== 'SKIPPED') return undefined;
  }
  const iterationOutput: Record<string, unknown> = {};
  for (const x of body) setOwn(iterationOutput, x.workflowTask.taskReferenceName, x.outputData);
  const output: Record<string, unknown> = { ...t.outputData, [String(t.iteration)]: iterationOutput, iteration: t.iteration };
  // Every iteration adds to the loop's output: past the payload limit the loop fails (ending it says why).
  if (taskPayloadProblem(t, 'output', jsonSize(output), turn.env.taskPayloadMaxBytes)) return { end: { output } };
  t.outputData = output;
  turn.log.touch(t);
  let items: unknown;
  try {
    items = loopItems(turn, t);
  } catch (e) {
    return { end: { output, status: 'FAILED_WITH_TERMINAL_ERROR', reason: expressionLimitOf(e) } };
  }
  if (Array.isArray(items)) return continueLoop(turn, t, t.iteration < items.length, items);
  const bindings: Record<string, unknown> = { ...t.inputData, [wt.taskReferenceName]: output };
  for (const [ref, out] of Object.entries(iterationOutput)) setOwn(bindings, ref, out);
  return { script: { purpose: 'loopCondition', iteration: t.iteration, call: { kind: 'expression', source: wt.loopCondition ?? 'false', input: bindings } } };
}

export const doWhileTask: TaskType = {
  types: ['DO_WHILE'],
  kind: 'system',
  selfCompleting: true,
  builtIn: true,
  reopenedWithPredecessors: true,
  start: startLoop,
  evaluate: evaluateLoop,
  finishScript(turn, t, request, outcome) {
    if (request.iteration !== t.iteration) return undefined; // the loop moved on (cannot happen within one turn; kept as a guard)
    if (!outcome.ok) {
      // Conductor (DoWhile): any error of the condition fails the loop for good, in these words.
      return {
        end: {
          output: t.outputData ?? {},
          status: 'FAILED_WITH_TERMINAL_ERROR',
          reason: `Unable to evaluate condition ${t.workflowTask.loopCondition}, exception ${describeScriptFailure(outcome)}`,
        },
      };
    }
    return continueLoop(turn, t, isConductorTrue(outcome.value));
  },
};
