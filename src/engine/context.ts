import type { Task } from '../model/execution';
import type { ExecutionState } from './state';
import { resolveParams, type RootLookup } from './expressions';
import type { JsonPathBudget } from './jsonpath-budget';
import { latestByRef } from './task-lookup';

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

export function lookupFor(state: ExecutionState, extra?: Record<string, unknown>): RootLookup {
  const wf = state.workflow;
  return (name) => {
    if (extra && Object.hasOwn(extra, name)) return extra[name];
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

export function resolveInput(
  state: ExecutionState,
  params: Record<string, unknown> | undefined,
  extra?: Record<string, unknown>,
  budget?: JsonPathBudget,
): Record<string, unknown> {
  return resolveParams(params, lookupFor(state, extra), budget);
}
