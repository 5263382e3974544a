import { z } from 'zod';
import { WorkflowStatus } from './statuses';

export const FinalStatus = WorkflowStatus.extract(['COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED']);
export type FinalStatus = z.infer<typeof FinalStatus>;
export const FINAL_STATUSES: readonly FinalStatus[] = FinalStatus.options;

/**
 * A workflow definition's `retention` (a Baton field; Conductor's WorkflowDef has none): finished executions
 * with one of `statuses` (default: all four) are kept `days` days after their end, then archived when
 * `archive`, and removed. `days: 0` keeps them forever.
 */
export const RetentionPolicySchema = z.strictObject({
  days: z.number().int().min(0).max(36_500),
  archive: z.boolean().default(false),
  statuses: z.array(FinalStatus).min(1).optional(),
});
export type RetentionPolicy = z.infer<typeof RetentionPolicySchema>;
