import { BatonError } from '../model/errors';
import type { ErrorReviver } from '../runtime/dapr/actor-errors';

/**
 * Turns an error a remote actor turn raised back into a BatonError with the status, message and
 * validation errors the catalogue gave it there (catalogueErrors wraps every actor turn on Dapr), so
 * the API answers as in the embedded profile (a bare RemoteActorError would answer 500). Its name and
 * other properties (an EngineError's kind, a StaleWriteError's workflowId) come along.
 */
export const reviveBatonError: ErrorReviver = (e) => {
  const { status, validationErrors, ...rest } = e.props ?? {};
  if (typeof status !== 'number') return undefined;
  const out = new BatonError(status, e.message, Array.isArray(validationErrors) ? (validationErrors as BatonError['validationErrors']) : undefined);
  return Object.assign(out, rest, { name: e.name });
};
