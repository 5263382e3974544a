import type { ServerResponse } from 'node:http';
import { ApiError } from '../services/errors';
import { toErrorBody } from './errors';

// A refusal answered on node:http, ahead of express: a Conductor-style JSON error body. `error`
// carries a code the official SDKs act on (EXPIRED_TOKEN and INVALID_TOKEN make them fetch a new
// token and retry once).

/** Answers `status` with the error body; always false ("already answered"), for the callers' verdicts. */
export function refuse(res: ServerResponse, status: number, message: string, error?: string): false {
  const body = { ...toErrorBody(new ApiError(status, message)), retryable: status >= 500, ...(error ? { error } : {}) };
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
  return false;
}
