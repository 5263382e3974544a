import { z } from 'zod';
import { MAX_NAME_LENGTH, WorkflowDefSchema } from './definitions';
import { TaskExecLogSchema } from './execution';
import { TaskResultStatus } from './statuses';

// Request bodies the API accepts (TaskResult, StartWorkflowRequest, rerun and skip requests, EventHandler), zod-first.
const jsonObject = z.record(z.string(), z.unknown());

export const PrioritySchema = z
  .number({ error: 'priority must be an integer' })
  .int('priority must be an integer')
  .min(0, 'priority: must be greater than or equal to 0')
  .max(99, 'priority: must be less than or equal to 99');

/** What a start with an idempotency key already held does (Orkes' IdempotencyStrategy; FAIL when absent). */
export const IdempotencyStrategySchema = z.enum(['FAIL', 'RETURN_EXISTING', 'FAIL_ON_RUNNING'], {
  error: 'idempotencyStrategy must be one of FAIL, RETURN_EXISTING, FAIL_ON_RUNNING',
});
export type IdempotencyStrategy = z.infer<typeof IdempotencyStrategySchema>;

export const StartWorkflowRequestSchema = z.looseObject({
  // Only the length: a definition with this name cannot exist otherwise, and the start answers 404 for it.
  name: z
    .string({ error: 'Workflow name cannot be null or empty' })
    .min(1, 'Workflow name cannot be null or empty')
    .max(MAX_NAME_LENGTH, `Workflow name must be at most ${MAX_NAME_LENGTH} characters`),
  version: z.number().int().nullish(),
  correlationId: z.string().nullish(),
  input: jsonObject.nullish(),
  taskToDomain: z.record(z.string(), z.string()).nullish(),
  workflowDef: WorkflowDefSchema.nullish(),
  externalInputPayloadStoragePath: z.string().nullish(),
  priority: PrioritySchema.nullish(),
  createdBy: z.string().nullish(),
  idempotencyKey: z.string().max(1024, 'idempotencyKey must be at most 1024 characters').nullish(),
  idempotencyStrategy: IdempotencyStrategySchema.nullish(),
});
export type StartWorkflowRequest = z.infer<typeof StartWorkflowRequestSchema>;

/** The body of POST /api/workflow/execute/{name}/{version}: the path names the workflow, so a body's name and version are ignored. */
export const ExecuteWorkflowRequestSchema = StartWorkflowRequestSchema.omit({ name: true, version: true });

export const TaskResultSchema = z.looseObject({
  workflowInstanceId: z.string({ error: 'Workflow Id cannot be null or empty' }).min(1, 'Workflow Id cannot be null or empty'),
  taskId: z.string({ error: 'Task ID cannot be null or empty' }).min(1, 'Task ID cannot be null or empty'),
  status: TaskResultStatus,
  outputData: jsonObject.nullish(),
  reasonForIncompletion: z.string().nullish(),
  callbackAfterSeconds: z.number().int().min(0).nullish(),
  workerId: z.string().nullish(),
  logs: z.array(TaskExecLogSchema).nullish(),
  extendLease: z.boolean().nullish(),
  subWorkflowId: z.string().nullish(),
  externalOutputPayloadStoragePath: z.string().nullish(),
});
export type TaskResult = z.infer<typeof TaskResultSchema>;

export const RerunWorkflowRequestSchema = z.looseObject({
  reRunFromWorkflowId: z.string().nullish(),
  workflowInput: jsonObject.nullish(),
  reRunFromTaskId: z.string().nullish(),
  taskInput: jsonObject.nullish(),
  correlationId: z.string().nullish(),
});
export type RerunWorkflowRequest = z.infer<typeof RerunWorkflowRequestSchema>;

/** Orkes' body of POST /api/workflow/{workflowId}/upgrade: the version to move to, outputs of the tasks it adds SKIPPED, a new input. */
export const UpgradeWorkflowRequestSchema = z.looseObject({
  name: z.string().min(1),
  version: z.number().int(),
  taskOutput: z.record(z.string(), jsonObject).nullish(),
  workflowInput: jsonObject.nullish(),
});
export type UpgradeWorkflowRequest = z.infer<typeof UpgradeWorkflowRequestSchema>;

export const SkipTaskRequestSchema = z.looseObject({
  taskInput: jsonObject.nullish(),
  taskOutput: jsonObject.nullish(),
});
export type SkipTaskRequest = z.infer<typeof SkipTaskRequestSchema>;
