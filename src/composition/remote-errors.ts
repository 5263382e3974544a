import { ZodError } from 'zod';
import { EngineError } from '../engine/errors';
import type { ErrorReviver } from '../runtime/dapr/actor-errors';
import { ScriptError } from '../scripting/script-error';
import { ApiError } from '../services/errors';
import { PayloadTooLargeError, StaleWriteError } from '../store/ports';

type Props = Record<string, unknown>;

const engineKinds = new Set(['conflict', 'notFound', 'invalid']);

/**
 * Turns an error a remote actor turn raised back into Baton's own class, so the API maps it to the
 * same status code as in the embedded profile (a bare RemoteActorError would answer 500).
 */
export const reviveBatonError: ErrorReviver = (e) => {
  const p: Props = e.props ?? {};
  switch (e.name) {
    case 'EngineError':
      return new EngineError(engineKinds.has(String(p.kind)) ? (p.kind as EngineError['kind']) : 'invalid', e.message);
    case 'ApiError':
      return new ApiError(typeof p.status === 'number' ? p.status : 500, e.message, Array.isArray(p.validationErrors) ? (p.validationErrors as ApiError['validationErrors']) : undefined);
    case 'PayloadTooLargeError':
      return new PayloadTooLargeError(e.message);
    case 'StaleWriteError':
      return Object.assign(new StaleWriteError(String(p.workflowId ?? ''), Number(p.expectedRev ?? 0)), { message: e.message });
    case 'ScriptError':
      return new ScriptError(p.failure as ScriptError['failure'], e.message);
    case 'ZodError':
      return Array.isArray(p.issues) ? new ZodError(p.issues as ZodError['issues']) : undefined;
    default:
      return undefined;
  }
};
