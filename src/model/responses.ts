import { z } from 'zod';

// Answers the API writes that are no domain object of their own.

/** Conductor's ErrorResponse body. */
export const ErrorResponseSchema = z.object({
  status: z.number().int(),
  message: z.string(),
  instance: z.string(),
  retryable: z.boolean(),
  /** Baton's stable name of the error (docs/errors.md); Conductor's body has no such field. */
  code: z.string(),
  validationErrors: z.array(z.object({ path: z.string().optional(), message: z.string(), invalidValue: z.unknown().optional() })).optional(),
});
export type ErrorBody = z.infer<typeof ErrorResponseSchema>;
export type ValidationErrors = NonNullable<ErrorBody['validationErrors']>;

/** The last poll of a queue by a worker. */
export const PollDataSchema = z.object({ queueName: z.string(), domain: z.string().optional(), workerId: z.string().optional(), lastPollTime: z.number() });
