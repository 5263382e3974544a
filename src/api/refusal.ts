import type { ServerResponse } from 'node:http';
import type { BatonError } from '../model/errors';
import { toErrorBody } from './errors';

// A refusal answered on node:http, ahead of express: a Conductor-style JSON error body. `error`
// carries a code the official SDKs act on (EXPIRED_TOKEN and INVALID_TOKEN make them fetch a new
// token and retry once).

/** Answers the error's status with its body; always false ("already answered"), for the callers' verdicts. */
export function refuse(res: ServerResponse, err: BatonError, error?: string): false {
  const { status } = err;
  const body = { ...toErrorBody(err), retryable: status >= 500, ...(error ? { error } : {}) };
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
  return false;
}
