import { z } from 'zod';
import { StartWorkflowRequestSchema } from './requests';

// POST /api/workflow/test: a start request with mocked task results, per task reference.

const jsonObject = z.record(z.string(), z.unknown());

export const TaskMockSchema = z.looseObject({
  status: z.enum(['IN_PROGRESS', 'FAILED', 'FAILED_WITH_TERMINAL_ERROR', 'COMPLETED']).nullish(),
  output: jsonObject.nullish(),
  executionTime: z.number().nullish(),
  queueWaitTime: z.number().nullish(),
});
export type TaskMock = z.infer<typeof TaskMockSchema>;

export interface WorkflowTestRequest extends z.infer<typeof StartWorkflowRequestSchema> {
  taskRefToMockOutput?: Record<string, TaskMock[]> | null;
  subWorkflowTestRequest?: Record<string, WorkflowTestRequest> | null;
}

export const WorkflowTestRequestSchema: z.ZodType<WorkflowTestRequest> = StartWorkflowRequestSchema.extend({
  taskRefToMockOutput: z.record(z.string(), z.array(TaskMockSchema)).nullish(),
  get subWorkflowTestRequest() {
    return z.record(z.string(), WorkflowTestRequestSchema).nullish();
  },
}) as z.ZodType<WorkflowTestRequest>;
