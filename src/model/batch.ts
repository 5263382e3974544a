import { z } from 'zod';

// Batch operations by query: one action over every execution a workflow search matched when the batch started.

export const BATCH_ACTIONS = ['terminate', 'retry', 'restart', 'rerun', 'pause', 'resume', 'remove'] as const;
export type BatchAction = (typeof BATCH_ACTIONS)[number];

/** POST /api/batch: the search (as GET /api/workflow/search reads it) and what to do with each match. */
export const BatchRequestSchema = z.strictObject({
  query: z.string().max(4096).default(''),
  freeText: z.string().max(4096).default('*'),
  action: z.enum(BATCH_ACTIONS),
  /** The reason a terminate records on each execution. */
  reason: z.string().max(1024).optional(),
});
export type BatchRequest = z.infer<typeof BatchRequestSchema>;

export const BATCH_STATES = ['RUNNING', 'COMPLETED', 'CANCELLED'] as const;
export type BatchState = (typeof BATCH_STATES)[number];

/**
 * A batch as stored. The matched ids are a snapshot in the store, numbered 0..matched-1; `cursor` is the next one to
 * act on and `acting` the one claimed before its action (so a crash mid-action is seen, and the id not acted on again).
 */
export const BatchRecordSchema = z.object({
  id: z.string(),
  action: z.enum(BATCH_ACTIONS),
  query: z.string(),
  freeText: z.string(),
  reason: z.string().optional(),
  createdAt: z.number().int(),
  matched: z.number().int().nonnegative(),
  state: z.enum(BATCH_STATES),
  cursor: z.number().int().nonnegative(),
  acting: z.number().int().nonnegative().nullable(),
  done: z.number().int().nonnegative(),
  failed: z.number().int().nonnegative(),
  finishedAt: z.number().int().optional(),
  /** Set by a cancel request; the runner stops before its next item. Stored apart from the runner's progress. */
  cancelRequested: z.boolean(),
});
export type BatchRecord = z.infer<typeof BatchRecordSchema>;

export const BatchFailureSchema = z.object({ workflowId: z.string(), reason: z.string() });
export type BatchFailure = z.infer<typeof BatchFailureSchema>;

/** GET /api/batch/{id}: the batch and the executions its action failed on, each with why. */
export const BatchViewSchema = BatchRecordSchema.extend({ failures: z.array(BatchFailureSchema) });
export type BatchView = z.infer<typeof BatchViewSchema>;

export const BatchStartedSchema = z.object({ id: z.string(), matched: z.number().int() });
