import { z } from 'zod';

// /api/workflow/bulk: up to BULK_MAX ids in, one outcome per id out.

export const BULK_MAX = 1000;

export const BulkIdsSchema = z
  .array(z.string().min(1, 'workflowId cannot be empty'))
  .min(1, 'Workflow ids list cannot be empty')
  .max(BULK_MAX, `Cannot process more than ${BULK_MAX} workflows. Please use multiple requests.`);

export const BulkResponseSchema = z.object({
  bulkErrorResults: z.record(z.string(), z.string()),
  bulkSuccessfulResults: z.array(z.string()),
});
export type BulkResponse = z.infer<typeof BulkResponseSchema>;
