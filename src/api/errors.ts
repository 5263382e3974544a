import type { ErrorRequestHandler, RequestHandler } from 'express';
import os from 'node:os';
import { errorEntry } from '../services/error-catalogue';
import { codeOfStatus } from '../model/errors';
import { Errors } from '../model/named-errors';
import type { ErrorBody } from '../model/responses';

export type { ErrorBody };
export { zodValidationErrors } from '../services/error-catalogue';

// Conductor's ErrorResponse body, with better status codes for client mistakes (from the error catalogue).

const INSTANCE = os.hostname();

export function toErrorBody(err: unknown): ErrorBody {
  const body = (status: number, message: string, extra: Partial<ErrorBody> = {}): ErrorBody => ({
    status,
    message,
    instance: INSTANCE,
    retryable: false,
    code: codeOfStatus(status),
    ...extra,
  });
  const known = errorEntry(err);
  if (known)
    return body(known.status, known.message, {
      retryable: known.retryable,
      code: known.code,
      ...(known.validationErrors ? { validationErrors: known.validationErrors } : {}),
    });
  // express's own (body parser) errors.
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.parse.failed') return toErrorBody(Errors.BODY_MALFORMED_JSON(e.message ?? ''));
  if (e?.type === 'entity.too.large') return toErrorBody(Errors.BODY_TOO_LARGE());
  if (typeof e?.status === 'number' && e.status >= 400 && e.status < 500) return body(e.status, e.message ?? 'Bad request');
  return body(500, (err as Error)?.message ?? 'Internal error', { retryable: true });
}

export const errorHandler =
  (log: { error(o: object, m: string): void }): ErrorRequestHandler =>
  (err, req, res, _next) => {
    const b = toErrorBody(err);
    if (b.status >= 500) log.error({ err, path: req.path, method: req.method }, 'request failed');
    res.status(b.status).json(b);
  };

export const notFoundHandler: RequestHandler = (req, res) => {
  res
    .status(404)
    .json({ status: 404, message: `No resource found for ${req.method} ${req.path}`, instance: INSTANCE, retryable: false, code: codeOfStatus(404) });
};
