import { outwardTask, type Task } from '../model/execution';
import { childLineage, lineageOf } from '../model/lineage';
import { isTerminalTask, isTerminalWorkflow, type WorkflowStatus } from '../model/statuses';
import { resolveInput } from './context';
import { ExpressionLimitError } from './jsonpath-budget';
import { jsonSize, workflowPayloadProblem } from './payload-size';
import type { Turn } from './state';
import { taskTypeOf } from './tasks/registry';
import { markTerminal, truncate } from './task-status';

// Ending a workflow: its open tasks are canceled, its output resolved, and the parent, listeners and
// failure workflow are told (Conductor's WorkflowExecutor completeWorkflow / terminateWorkflow).

export interface EndOptions {
  lastTask?: Task;
  failedTask?: Task;
  /** Output that replaces outputParameters (TERMINATE task). */
  output?: Record<string, unknown>;
  /** API termination does not start the failure workflow, as in Conductor. */
  byApi?: boolean;
}

function cancelPending(turn: Turn, reason: string): void {
  for (const t of turn.state.tasks) {
    if (isTerminalTask(t.status)) continue;
    markTerminal(turn, t, 'CANCELED');
    taskTypeOf(t).cancel?.(turn, t, reason);
  }
}

function workflowOutput(turn: Turn, opts: EndOptions): Record<string, unknown> {
  const { state } = turn;
  if (opts.output) return opts.output;
  const params = state.workflow.workflowDefinition.outputParameters ?? {};
  if (Object.keys(params).length > 0) return resolveInput(state, params, undefined, turn.log.jsonPathBudget(turn.env));
  const last = opts.lastTask ?? [...state.tasks].reverse().find((t) => !t.retried);
  return last ? { ...last.outputData } : {};
}

export function endWorkflow(turn: Turn, status: WorkflowStatus, reason: string | undefined, opts: EndOptions = {}): void {
  const { state, env, log } = turn;
  const wf = state.workflow;
  const wasTerminal = isTerminalWorkflow(wf.status);
  wf.status = status;
  wf.reasonForIncompletion = truncate(reason) ?? (status === 'COMPLETED' ? undefined : wf.reasonForIncompletion);
  // Conductor's SubWorkflow.cancel: the parent's reason when it has one (a TERMINATE task's), else its status.
  cancelPending(
    turn,
    wf.reasonForIncompletion
      ? `Parent workflow has been terminated with reason: ${wf.reasonForIncompletion}`
      : `Parent workflow has been terminated with status ${status}`,
  );
  try {
    wf.output = workflowOutput(turn, opts);
  } catch (e) {
    if (!(e instanceof ExpressionLimitError)) throw e;
    // outputParameters past the JSONPath budget: no output, and a workflow that would have completed fails.
    wf.output = {};
    if (status === 'COMPLETED') {
      status = 'FAILED';
      wf.status = status;
      wf.reasonForIncompletion = truncate(e.message);
    }
  }
  const oversized = workflowPayloadProblem(wf, jsonSize(wf.output), env.workflowPayloadMaxBytes);
  if (oversized) {
    // Conductor fails the workflow; one already failing keeps its own reason, without the output.
    wf.output = {};
    if (status === 'COMPLETED') {
      status = 'FAILED';
      wf.status = status;
      wf.reasonForIncompletion = truncate(oversized);
    }
  }
  wf.endTime = env.now;
  wf.updateTime = env.now;
  const failed = state.tasks.filter((t) => t.status === 'FAILED' || t.status === 'FAILED_WITH_TERMINAL_ERROR');
  wf.failedReferenceTaskNames = [...new Set(failed.map((t) => t.referenceTaskName))];
  wf.failedTaskNames = [...new Set(failed.map((t) => t.taskDefName))];
  log.workflowChanged = true;
  if (wasTerminal) return;
  if (wf.parentWorkflowId && wf.parentWorkflowTaskId) {
    log.emit({ kind: 'notifyParent', parentWorkflowId: wf.parentWorkflowId, parentTaskId: wf.parentWorkflowTaskId, childWorkflowId: wf.workflowId });
  }
  if (wf.workflowDefinition.workflowStatusListenerEnabled) {
    log.emit({
      kind: 'statusChange',
      eventId: `${wf.workflowId}:${status}:${env.now}`,
      workflowId: wf.workflowId,
      workflowName: wf.workflowName,
      status,
      lineage: lineageOf(wf),
    });
  }
  const failureWf = wf.workflowDefinition.failureWorkflow;
  if (failureWf && !opts.byApi && (status === 'FAILED' || status === 'TIMED_OUT' || status === 'TERMINATED')) {
    // Conductor's dynamic form is `$workflow.input.key` without braces (it reads the third `.`-separated part).
    let name: string | undefined = failureWf;
    if (failureWf.startsWith('$')) {
      const key = failureWf.split('.')[2];
      const v = key && Object.hasOwn(wf.input, key) ? wf.input[key] : undefined;
      name = typeof v === 'string' ? v : undefined;
    }
    if (name) {
      const id = env.derivedId(`failure:${wf.workflowId}:${wf.endTime}`);
      log.emit({
        kind: 'startWorkflow',
        workflowId: id,
        lineage: childLineage(lineageOf(wf)),
        request: {
          name,
          version: wf.workflowDefinition.failureWorkflowVersion ?? undefined,
          correlationId: wf.correlationId,
          taskToDomain: wf.taskToDomain,
          input: {
            ...wf.input,
            workflowId: wf.workflowId,
            reason: wf.reasonForIncompletion,
            failureStatus: status,
            ...(opts.failedTask ? { failureTaskId: opts.failedTask.taskId } : {}),
            failedWorkflow: { ...structuredClone(wf), tasks: structuredClone(state.tasks.map(outwardTask)) },
          },
        },
      });
      wf.output = { ...wf.output, 'conductor.failure_workflow': id };
    }
  }
}
