import { z } from 'zod';
import { BULK_MAX } from './bulk';
import { TaskSchema } from './execution';
import { TaskResultStatus } from './statuses';

// Bodies and answers of the calls that change a running execution's state from outside: its variables,
// a task and its variables in one call (Orkes' WorkflowStateUpdate), and executions by correlation ids.

const jsonObject = z.record(z.string(), z.unknown());

/** A task result inside a state update: the task is named by `taskReferenceName`, so ids are optional. */
export const StateTaskResultSchema = z.looseObject({
  status: TaskResultStatus,
  outputData: jsonObject.nullish(),
  workerId: z.string().nullish(),
  workflowInstanceId: z.string().nullish(),
  taskId: z.string().nullish(),
});

export const WorkflowStateUpdateSchema = z.looseObject({
  taskReferenceName: z.string().min(1, 'taskReferenceName cannot be empty').nullish(),
  taskResult: StateTaskResultSchema.nullish(),
  variables: jsonObject.nullish(),
});
export type WorkflowStateUpdate = z.infer<typeof WorkflowStateUpdateSchema>;

/** POST /api/workflow/correlated/batch: the executions of these definitions with these correlation ids. */
export const CorrelationIdsSearchRequestSchema = z
  .looseObject({
    correlationIds: z.array(z.string(), { error: 'correlationIds must be a list of strings' }),
    workflowNames: z.array(z.string(), { error: 'workflowNames must be a list of strings' }),
  })
  // Every (name, id) pair is one store query: as many as a bulk request may name, no more.
  .refine((r) => new Set(r.correlationIds).size * new Set(r.workflowNames).size <= BULK_MAX, {
    message: `Cannot search more than ${BULK_MAX} (workflow name, correlation id) pairs. Please use multiple requests.`,
    path: ['correlationIds'],
  });
export type CorrelationIdsSearchRequest = z.infer<typeof CorrelationIdsSearchRequestSchema>;

/** Orkes' WorkflowRun: an execution as the state-update call answers it. */
export const WorkflowRunSchema = z.object({
  workflowId: z.string(),
  correlationId: z.string().optional(),
  input: jsonObject,
  output: jsonObject,
  createdBy: z.string().optional(),
  createTime: z.number(),
  updateTime: z.number(),
  status: z.string(),
  tasks: z.array(TaskSchema),
  variables: jsonObject,
  priority: z.number().int(),
  requestId: z.string().optional(),
});
