import { z } from 'zod';
import { EmbeddedTaskDefSchema, WorkflowDefSchema, WorkflowTaskSchema } from './definitions';
import { TaskStatus, WorkflowStatus } from './statuses';

// Execution records exactly as Conductor serialises Workflow and Task.
const jsonObject = z.record(z.string(), z.unknown());

export const TaskExecLogSchema = z.object({
  log: z.string(),
  taskId: z.string().optional(),
  createdTime: z.number().optional(),
});
export type TaskExecLog = z.infer<typeof TaskExecLogSchema>;

/** A task as the API answers it (Conductor's Task). */
export const TaskSchema = z.object({
  taskId: z.string(),
  taskType: z.string(),
  taskDefName: z.string(),
  referenceTaskName: z.string(),
  status: TaskStatus,
  inputData: jsonObject,
  outputData: jsonObject,
  workflowInstanceId: z.string(),
  workflowType: z.string(),
  correlationId: z.string().optional(),
  workflowPriority: z.number().int(),
  retryCount: z.number().int(),
  seq: z.number().int(),
  pollCount: z.number().int(),
  scheduledTime: z.number(),
  startTime: z.number(),
  endTime: z.number(),
  updateTime: z.number(),
  startDelayInSeconds: z.number().int(),
  retriedTaskId: z.string().optional(),
  retried: z.boolean(),
  executed: z.boolean(),
  callbackFromWorker: z.boolean(),
  responseTimeoutSeconds: z.number(),
  callbackAfterSeconds: z.number(),
  reasonForIncompletion: z.string().optional(),
  workerId: z.string().optional(),
  workflowTask: WorkflowTaskSchema,
  domain: z.string().optional(),
  rateLimitPerFrequency: z.number().int(),
  rateLimitFrequencyInSeconds: z.number().int(),
  isolationGroupId: z.string().optional(),
  executionNameSpace: z.string().optional(),
  iteration: z.number().int(),
  subWorkflowId: z.string().optional(),
  subworkflowChanged: z.boolean().optional(),
  parentTaskId: z.string().optional(),
  firstStartTime: z.number().optional(),
  /** When a WAIT task with `duration`/`until` completes (epoch ms). */
  waitTimeout: z.number().optional(),
  queueWaitTime: z.number().optional(),
  loopOverTask: z.boolean().optional(),
  taskDefinition: EmbeddedTaskDefSchema.optional(),
  /** Where the input or output is kept when it is stored outside the row (then empty here as Conductor answers it). */
  externalInputPayloadStoragePath: z.string().optional(),
  externalOutputPayloadStoragePath: z.string().optional(),
});

/** A task as an execution holds and stores it: the API's Task plus Baton's internal bookkeeping, which no answer carries (withComputed). */
export const HeldTaskSchema = TaskSchema.extend({
  /** The id of the poll's claim that handed the task out: a repeat of that claim (its answer lost) answers the task on any activation. */
  claimId: z.string().optional(),
});
export type Task = z.infer<typeof HeldTaskSchema>;

/** A task as anything outside its execution sees it (answers, a failure workflow's input): without Baton's bookkeeping. */
export function outwardTask(t: Task): Task {
  const { claimId: _internal, ...task } = t;
  return task;
}

export const WorkflowSchema = z.object({
  workflowId: z.string(),
  status: WorkflowStatus,
  createTime: z.number(),
  startTime: z.number(),
  updateTime: z.number(),
  endTime: z.number(),
  lastRetriedTime: z.number(),
  input: jsonObject,
  output: jsonObject,
  tasks: z.array(TaskSchema),
  correlationId: z.string().optional(),
  parentWorkflowId: z.string().optional(),
  parentWorkflowTaskId: z.string().optional(),
  reRunFromWorkflowId: z.string().optional(),
  reasonForIncompletion: z.string().optional(),
  event: z.string().optional(),
  taskToDomain: z.record(z.string(), z.string()),
  failedReferenceTaskNames: z.array(z.string()),
  failedTaskNames: z.array(z.string()),
  workflowDefinition: WorkflowDefSchema,
  workflowName: z.string(),
  workflowVersion: z.number().int(),
  externalInputPayloadStoragePath: z.string().optional(),
  externalOutputPayloadStoragePath: z.string().optional(),
  priority: z.number().int(),
  variables: jsonObject,
  ownerApp: z.string().optional(),
  createdBy: z.string().optional(),
  /** The key the start claimed (scoped to workflowName); released when the execution is removed. */
  idempotencyKey: z.string().optional(),
  /** Baton's own: how many SUB_WORKFLOW levels sit above this execution (absent at the top), checked against BATON_MAX_SUBWORKFLOW_DEPTH. */
  subWorkflowDepth: z.number().int().optional(),
  /** Baton's own: the root execution this one descends from and its generation below it (both absent on a root), see model/lineage. */
  rootWorkflowId: z.string().optional(),
  generation: z.number().int().optional(),
  /** Baton's own: true when the execution was purged into the archive (docs/retention.md); it is read-only then. */
  archived: z.literal(true).optional(),
});
export type Workflow = z.infer<typeof WorkflowSchema>;

/** The stored execution: the workflow row without tasks, plus its tasks by id. */
export type WorkflowRecord = Omit<Workflow, 'tasks'>;
