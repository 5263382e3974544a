import { setOwn } from '../../lib/own-property';
import type { WorkflowDef } from '../../model/definitions';
import type { WorkflowRecord } from '../../model/execution';
import type { StartWorkflowRequest } from '../../model/requests';
import { decide } from '../decide';
import type { ParentLink } from '../../model/effects';
import { lineageOf, type Lineage } from '../../model/lineage';
import { TurnLog, type EngineEnv, type ExecutionState } from '../state';

// Start: a new execution from its definition and request, decided once (its first tasks scheduled).

export interface StartArgs {
  workflowId: string;
  def: WorkflowDef;
  request: StartWorkflowRequest;
  parent?: ParentLink;
  /** Set when a workflow or an event handler acting on a workflow's event starts this one; absent: a root. */
  lineage?: Lineage;
  event?: string;
}

export function newExecution(args: StartArgs, env: EngineEnv): { state: ExecutionState; log: TurnLog } {
  const { def, request } = args;
  const input: Record<string, unknown> = { ...(request.input ?? {}) };
  for (const [k, v] of Object.entries(def.inputTemplate ?? {})) if (!Object.hasOwn(input, k)) setOwn(input, k, v);
  const workflow: WorkflowRecord = {
    workflowId: args.workflowId,
    status: 'RUNNING',
    createTime: env.now,
    startTime: env.now,
    updateTime: env.now,
    endTime: 0,
    lastRetriedTime: 0,
    input,
    output: {},
    correlationId: request.correlationId ?? undefined,
    parentWorkflowId: args.parent?.workflowId,
    parentWorkflowTaskId: args.parent?.taskId,
    event: args.event,
    taskToDomain: request.taskToDomain ?? {},
    failedReferenceTaskNames: [],
    failedTaskNames: [],
    workflowDefinition: def,
    workflowName: def.name,
    workflowVersion: def.version,
    externalInputPayloadStoragePath: request.externalInputPayloadStoragePath ?? undefined,
    priority: request.priority ?? 0,
    variables: structuredClone(def.variables ?? {}),
    createdBy: request.createdBy ?? undefined,
    ...(request.idempotencyKey ? { idempotencyKey: request.idempotencyKey } : {}),
    ...(args.parent ? { subWorkflowDepth: args.parent.depth ?? 1 } : {}),
    ...(args.lineage && args.lineage.generation > 0 ? { rootWorkflowId: args.lineage.rootWorkflowId, generation: args.lineage.generation } : {}),
  };
  const state: ExecutionState = { workflow, tasks: [] };
  const log = new TurnLog();
  log.workflowChanged = true;
  if (def.workflowStatusListenerEnabled) {
    log.emit({
      kind: 'statusChange',
      eventId: `${workflow.workflowId}:RUNNING:${env.now}`,
      workflowId: workflow.workflowId,
      workflowName: def.name,
      status: 'RUNNING',
      lineage: lineageOf(workflow),
    });
  }
  decide({ state, env, log });
  return { state, log };
}
