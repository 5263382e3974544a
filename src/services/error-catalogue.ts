import { ZodError } from 'zod';
import { BatonError, codeOfStatus, type ErrorEntry } from '../model/errors';
import type { ValidationErrors } from '../model/responses';
import { cassandraUnavailable } from '../store/cassandra/unavailable';

// The one error catalogue: what status, code and message every error Baton knows answers with. Its
// own classes carry them (BatonError); the rows below cover classes that cannot derive from it.

/** Failures of the actor runtime's transport (placement moving, a sidecar stopping), matched by name: they come back from remote turns. */
const UNAVAILABLE = new Set(['DaprSidecarError', 'HostStopping']);

export function zodValidationErrors(e: ZodError, prefix = ''): ValidationErrors {
  return e.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message }));
}

const entry = (status: number, message: string, validationErrors?: ValidationErrors): ErrorEntry => ({
  status,
  code: codeOfStatus(status),
  message,
  retryable: status === 429 || status === 503,
  ...(validationErrors ? { validationErrors } : {}),
});

/** The catalogue entry of `err`; undefined for an error no one raised on purpose (a bug: 500). */
export function errorEntry(err: unknown): ErrorEntry | undefined {
  if (err instanceof BatonError)
    return {
      status: err.status,
      code: err.code,
      message: err.message,
      retryable: err.retryable,
      ...(err.validationErrors ? { validationErrors: err.validationErrors } : {}),
    };
  if (err instanceof ZodError) return entry(400, 'Validation failed, check below errors for detail.', zodValidationErrors(err));
  if (err instanceof Error && UNAVAILABLE.has(err.name)) return entry(503, err.message);
  if (cassandraUnavailable(err)) return entry(503, `Cassandra cannot serve this request now: ${(err as Error).message}`);
  return undefined;
}

/** `err` as a BatonError (itself when it is one), keeping its name; undefined when the catalogue does not know it. */
export function asBatonError(err: unknown): BatonError | undefined {
  if (err instanceof BatonError) return err;
  const e = errorEntry(err);
  if (!e) return undefined;
  const out = new BatonError(e.status, e.message, e.validationErrors, e.code);
  out.name = (err as Error).name;
  return out;
}
