import { z } from 'zod';
import { TaskSchema } from './execution';
import { WorkflowStatus } from './statuses';

// What execute and signal requests answer (Conductor's SignalResponse) and how they choose it.

export const ReturnStrategySchema = z.enum(['TARGET_WORKFLOW', 'BLOCKING_WORKFLOW', 'BLOCKING_TASK', 'BLOCKING_TASK_INPUT']);
export type ReturnStrategy = z.infer<typeof ReturnStrategySchema>;

/** Conductor's SignalResponse: common fields, then WorkflowRun fields (workflow strategies) or TaskRun fields (task strategies). */
export const SignalResponseSchema = z.object({
  responseType: ReturnStrategySchema,
  targetWorkflowId: z.string(),
  targetWorkflowStatus: WorkflowStatus,
  requestId: z.string().optional(),
  signalTimeout: z.boolean(),
  workflowId: z.string().optional(),
  correlationId: z.string().optional(),
  input: z.record(z.string(), z.unknown()).optional(),
  output: z.record(z.string(), z.unknown()).optional(),
  createdBy: z.string().optional(),
  createTime: z.number().optional(),
  updateTime: z.number().optional(),
  status: z.string().optional(),
  tasks: z.array(TaskSchema).optional(),
  variables: z.record(z.string(), z.unknown()).optional(),
  priority: z.number().int().optional(),
  taskType: z.string().optional(),
  taskId: z.string().optional(),
  referenceTaskName: z.string().optional(),
  retryCount: z.number().int().optional(),
  taskDefName: z.string().optional(),
  workflowType: z.string().optional(),
});
export type SignalResponse = z.infer<typeof SignalResponseSchema>;
