import { z } from 'zod';
import { nameProblem } from './definitions';
import { StartWorkflowRequestSchema } from './requests';

// Workflow schedules as Orkes Conductor's scheduler API speaks them (SaveScheduleRequest in,
// WorkflowSchedule out, WorkflowScheduleExecutionModel for each firing).

/** A schedule name is a URL segment and an actor id: letters, digits, `_`, `-` and `.` only. */
const SCHEDULE_NAME = /^[A-Za-z0-9_.-]+$/;

export const ScheduleTagSchema = z.looseObject({
  key: z.string().min(1, 'tag key cannot be empty').max(255),
  value: z.string().max(1024).nullish(),
  type: z.string().nullish(),
});
export type ScheduleTag = z.infer<typeof ScheduleTagSchema>;

const epochMs = z.number().int().min(0);

export const SaveScheduleRequestSchema = z.looseObject({
  name: z
    .string({ error: 'Schedule name cannot be null or empty' })
    .min(1, 'Schedule name cannot be null or empty')
    .refine(
      (n) => nameProblem(n) === undefined && SCHEDULE_NAME.test(n),
      'Schedule name may contain only letters, digits, _, - and . (at most 255 characters)',
    ),
  cronExpression: z.string({ error: 'Cron expression cannot be null or empty' }).min(1, 'Cron expression cannot be null or empty').max(512),
  zoneId: z.string().max(64).nullish(),
  startWorkflowRequest: StartWorkflowRequestSchema,
  scheduleStartTime: epochMs.nullish(),
  scheduleEndTime: epochMs.nullish(),
  paused: z.boolean().nullish(),
  runCatchupScheduleInstances: z.boolean().nullish(),
  description: z.string().max(4096).nullish(),
  createdBy: z.string().max(255).nullish(),
  updatedBy: z.string().max(255).nullish(),
});
export type SaveScheduleRequest = z.infer<typeof SaveScheduleRequestSchema>;

/** A schedule as stored and answered (WorkflowSchedule). */
export const WorkflowScheduleSchema = z.object({
  name: z.string(),
  cronExpression: z.string(),
  zoneId: z.string(),
  startWorkflowRequest: StartWorkflowRequestSchema,
  scheduleStartTime: epochMs.optional(),
  scheduleEndTime: epochMs.optional(),
  paused: z.boolean(),
  pausedReason: z.string().optional(),
  runCatchupScheduleInstances: z.boolean(),
  description: z.string().optional(),
  createdBy: z.string().optional(),
  updatedBy: z.string().optional(),
  createTime: epochMs,
  updatedTime: epochMs,
  tags: z.array(ScheduleTagSchema),
});
export type WorkflowSchedule = z.infer<typeof WorkflowScheduleSchema>;

/** The API's answer: the stored schedule and, when it will fire again, when. */
export const ScheduleViewSchema = WorkflowScheduleSchema.extend({ nextRunTime: epochMs.optional() });

export const SCHEDULE_EXECUTION_STATES = ['POLLED', 'FAILED', 'EXECUTED'] as const;

/** One firing of a schedule (WorkflowScheduleExecutionModel). */
export const ScheduleExecutionSchema = z.object({
  executionId: z.string(),
  scheduleName: z.string(),
  /** The slot: when the cron said the workflow was due. */
  scheduledTime: epochMs,
  /** When Baton started it. */
  executionTime: epochMs,
  workflowName: z.string(),
  workflowId: z.string().optional(),
  reason: z.string().optional(),
  stackTrace: z.string().optional(),
  state: z.enum(SCHEDULE_EXECUTION_STATES),
  zoneId: z.string(),
  startWorkflowRequest: StartWorkflowRequestSchema,
});
export type ScheduleExecution = z.infer<typeof ScheduleExecutionSchema>;
export type ScheduleExecutionState = ScheduleExecution['state'];

export const ScheduleExecutionSearchResultSchema = z.object({ totalHits: z.number().int(), results: z.array(ScheduleExecutionSchema) });
