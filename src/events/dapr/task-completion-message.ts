import { z } from 'zod';
import { TaskResultStatus } from '../../model/statuses';

/** A task completion published by another service on the completion topic. */
export const TaskCompletionMessageSchema = z
  .looseObject({
    workflowId: z.string().min(1),
    taskRefName: z.string().min(1).optional(),
    taskId: z.string().min(1).optional(),
    status: TaskResultStatus,
    output: z.record(z.string(), z.unknown()).optional(),
    reasonForIncompletion: z.string().optional(),
    workerId: z.string().optional(),
  })
  .refine((m) => m.taskId !== undefined || m.taskRefName !== undefined, { message: 'taskId or taskRefName is required' });
export type TaskCompletionMessage = z.infer<typeof TaskCompletionMessageSchema>;
