import type { ErrorRequestHandler, RequestHandler } from 'express';
import os from 'node:os';
import { ZodError } from 'zod';
import { EngineError } from '../engine/errors';
import { QuerySyntaxError } from '../index/query';
import { ActorDeactivated } from '../runtime/ports';
import { PayloadTooLargeError, StaleWriteError } from '../store/ports';
import { ApiError } from '../services/errors';
import { ScriptError } from '../scripting/script-engine';

// Conductor's ErrorResponse body, with better status codes for client mistakes.

const INSTANCE = os.hostname();
const UNAVAILABLE = new Set(['DaprSidecarError', 'HostStopping']);

export interface ErrorBody {
  status: number;
  message: string;
  instance: string;
  retryable: boolean;
  validationErrors?: Array<{ path?: string; message: string; invalidValue?: unknown }>;
}

export function zodValidationErrors(e: ZodError, prefix = ''): NonNullable<ErrorBody['validationErrors']> {
  return e.issues.map((i) => ({ path: [prefix, ...i.path.map(String)].filter(Boolean).join('.'), message: i.message }));
}

export function toErrorBody(err: unknown): ErrorBody {
  const body = (status: number, message: string, extra: Partial<ErrorBody> = {}): ErrorBody => ({ status, message, instance: INSTANCE, retryable: false, ...extra });
  // 429 (a client over one of its limits) is worth retrying after a pause; other client mistakes are not.
  if (err instanceof ApiError) return body(err.status, err.message, { ...(err.validationErrors ? { validationErrors: err.validationErrors } : {}), retryable: err.status === 429 });
  if (err instanceof ZodError) return body(400, 'Validation failed, check below errors for detail.', { validationErrors: zodValidationErrors(err) });
  if (err instanceof EngineError) return body(err.kind === 'notFound' ? 404 : err.kind === 'conflict' ? 409 : 400, err.message);
  if (err instanceof QuerySyntaxError) return body(400, err.message);
  if (err instanceof ScriptError) return body(400, err.message);
  if (err instanceof PayloadTooLargeError) return body(413, err.message);
  if (err instanceof ActorDeactivated || err instanceof StaleWriteError) return body(503, err.message, { retryable: true });
  // The actor runtime could not finish the call (a replica or its sidecar stopping, placement moving):
  // unavailable for a moment, not a server bug. Matched by name: it may come back from a remote turn.
  if (err instanceof Error && UNAVAILABLE.has(err.name)) return body(503, err.message, { retryable: true });
  const e = err as { type?: string; status?: number; message?: string };
  if (e?.type === 'entity.parse.failed') return body(400, `Malformed JSON body: ${e.message}`);
  if (e?.type === 'entity.too.large') return body(413, 'Request body too large');
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
  res.status(404).json({ status: 404, message: `No resource found for ${req.method} ${req.path}`, instance: INSTANCE, retryable: false });
};
