import { z } from 'zod';
import { TaskStatus, WorkflowStatus } from './statuses';

// Search records (Conductor's WorkflowSummary, TaskSummary, SearchResult). Times are ISO-8601 strings in summaries, epoch ms elsewhere.
export const WorkflowSummarySchema = z.object({
  workflowType: z.string(),
  version: z.number().int(),
  workflowId: z.string(),
  correlationId: z.string().optional(),
  startTime: z.string(),
  updateTime: z.string(),
  endTime: z.string().optional(),
  status: WorkflowStatus,
  input: z.string(),
  output: z.string(),
  reasonForIncompletion: z.string().optional(),
  executionTime: z.number(),
  event: z.string().optional(),
  failedReferenceTaskNames: z.string(),
  failedTaskNames: z.array(z.string()),
  priority: z.number().int(),
  inputSize: z.number(),
  outputSize: z.number(),
  createdBy: z.string().optional(),
  parentWorkflowId: z.string(),
  taskToDomain: z.record(z.string(), z.string()).optional(),
  externalInputPayloadStoragePath: z.string().optional(),
  externalOutputPayloadStoragePath: z.string().optional(),
});
export type WorkflowSummary = z.infer<typeof WorkflowSummarySchema>;

export const TaskSummarySchema = z.object({
  workflowId: z.string(),
  workflowType: z.string(),
  correlationId: z.string().optional(),
  scheduledTime: z.string(),
  startTime: z.string(),
  updateTime: z.string(),
  endTime: z.string(),
  status: TaskStatus,
  reasonForIncompletion: z.string().optional(),
  executionTime: z.number(),
  queueWaitTime: z.number(),
  taskDefName: z.string(),
  taskType: z.string(),
  input: z.string(),
  output: z.string(),
  taskId: z.string(),
  workflowPriority: z.number().int(),
  domain: z.string().optional(),
  externalInputPayloadStoragePath: z.string().optional(),
  externalOutputPayloadStoragePath: z.string().optional(),
});
export type TaskSummary = z.infer<typeof TaskSummarySchema>;

export const searchResultSchema = <T extends z.ZodType>(item: T) => z.object({ totalHits: z.number().int(), results: z.array(item) });
export interface SearchResult<T> {
  totalHits: number;
  results: T[];
}
