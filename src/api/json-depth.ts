import type { RequestHandler } from 'express';
import type { BatonError } from '../model/errors';
import { Errors } from '../model/named-errors';

// A JSON body nested thousands deep parses (V8's parser is iterative), then overflows the stack of
// whatever walks it next (validation, structuredClone, JSON.stringify at commit): a 500 marked
// retryable for a client's mistake. Bodies deeper than BATON_MAX_JSON_DEPTH are refused with a 400.

/** Whether a parsed JSON value nests objects and arrays deeper than `max` (a top-level object is depth 1). */
export function jsonDepthExceeds(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  // Iterative, so that checking a body a million levels deep cannot overflow the stack either.
  const pending: Array<{ node: object; depth: number }> = [{ node: value, depth: 1 }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    if (next.depth > max) return true;
    const { node, depth } = next;
    if (Array.isArray(node)) {
      for (const child of node) if (child !== null && typeof child === 'object') pending.push({ node: child, depth: depth + 1 });
    } else {
      for (const key in node) {
        const child = (node as Record<string, unknown>)[key];
        if (child !== null && typeof child === 'object') pending.push({ node: child, depth: depth + 1 });
      }
    }
  }
  return false;
}

export const tooDeep = (max: number): BatonError => Errors.JSON_TOO_DEEP(max);

/** Throws the 400 when a parsed body nests deeper than `max`. */
export function checkJsonDepth(body: unknown, max: number): void {
  if (jsonDepthExceeds(body, max)) throw tooDeep(max);
}

/** Express middleware after the body parsers: refuses a JSON body nested deeper than `max`. */
export const jsonDepthGuard =
  (max: number): RequestHandler =>
  (req, _res, next) =>
    next(jsonDepthExceeds(req.body, max) ? tooDeep(max) : undefined);
