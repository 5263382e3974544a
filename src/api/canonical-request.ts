import type { IncomingMessage, ServerResponse } from 'node:http';
import { Errors } from '../model/named-errors';
import { refuse } from './refusal';
import { readRequestTarget, type RequestTarget } from './request-target';

// The front of the request handler: reads the target once (request-target.ts), answers what it
// refuses, and leaves `req.url` in the canonical form express parses after the gate and hot path.

/** What `OPTIONS *` answers: the methods some route of Baton serves. */
const SERVER_METHODS = 'GET, HEAD, POST, PUT, DELETE, OPTIONS';

/** The canonical target of the request, or undefined after answering it (a 400, or `OPTIONS *`). */
export function takeRequestTarget(req: IncomingMessage, res: ServerResponse): RequestTarget | undefined {
  const reading = readRequestTarget(req.method, req.url ?? '', req.headers.host);
  if (reading.kind === 'refused') return void refuse(res, Errors.REQUEST_TARGET_INVALID(reading.message));
  if (reading.kind === 'asterisk') {
    res.statusCode = 204;
    res.setHeader('Allow', SERVER_METHODS);
    return void res.end();
  }
  req.url = reading.target.url;
  return reading.target;
}
