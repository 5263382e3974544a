import type { ServerResponse } from 'node:http';
import { z } from 'zod';
import { nameProblem } from '../model/definitions';
import { Errors } from '../model/named-errors';

// Query-string readers that turn a bad value into a 400 naming the parameter. They read only
// `query`, so express requests and the hot path's parsed URLs share them.

export interface WithQuery {
  query: Record<string, unknown>;
}

// The spellings Conductor's Spring binding (StringToBooleanConverter) accepts, trimmed and in any
// case: the Python SDK sends `True`/`False`.
const TRUE_WORDS = new Set(['true', 'on', 'yes', '1']);
const FALSE_WORDS = new Set(['false', 'off', 'no', '0']);

/** A query-string boolean as Spring reads it; undefined for an empty value, null for no boolean at all. */
export function parseSpringBoolean(v: string): boolean | undefined | null {
  const word = v.trim().toLowerCase();
  if (word === '') return undefined;
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return null;
}

export function boolParam(req: WithQuery, name: string, def: boolean): boolean {
  const v = req.query[name];
  if (v === undefined) return def;
  const b = typeof v === 'string' ? parseSpringBoolean(v) : null;
  if (b === undefined) return def;
  if (b === null) throw Errors.QUERY_PARAM_NOT_BOOLEAN(name, v);
  return b;
}

export function intParam(req: WithQuery, name: string, def: number | undefined, min?: number, max?: number): number | undefined {
  const v = req.query[name];
  if (v === undefined || v === '') return def;
  const n = Number(v);
  if (typeof v !== 'string' || !Number.isInteger(n)) throw Errors.QUERY_PARAM_NOT_INTEGER(name, v);
  if (min !== undefined && n < min) throw Errors.QUERY_PARAM_TOO_SMALL(name, min, n);
  if (max !== undefined && n > max) throw Errors.QUERY_PARAM_TOO_LARGE(name, max, n);
  return n;
}

export function strParam(req: WithQuery, name: string): string | undefined {
  const v = req.query[name];
  if (v === undefined) return undefined;
  if (Array.isArray(v)) return v.map(String).join(',');
  return String(v);
}

/** A name given as a path or query parameter (task type, domain, worker id): 400 when too long or with control characters. */
export function checkName(param: string, value: string): void {
  const problem = nameProblem(value);
  if (problem) throw Errors.NAME_INVALID(param, problem);
}

export function listParam(req: WithQuery, name: string): string[] {
  const v = req.query[name];
  if (v === undefined) return [];
  return (Array.isArray(v) ? v : [v])
    .flatMap((x) => String(x).split(','))
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Parses a body with a zod schema; failures are 400s with validationErrors. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown, what: string): z.infer<S> {
  if (body === undefined) throw Errors.BODY_MISSING(what);
  const r = schema.safeParse(body);
  if (!r.success) {
    throw Errors.INVALID_INPUT(r.error.issues.map((i) => ({ path: [what, ...i.path.map(String)].join('.'), message: i.message })));
  }
  return r.data;
}

// The hot paths (start, poll, update) answer through these: plain `end` skips express's send
// machinery (type lookup, freshness checks), measurable at thousands of requests per second.
export const sendText = (res: ServerResponse, text: string): void => {
  res.statusCode = 200;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
};

export const sendJson = (res: ServerResponse, body: unknown): void => {
  const text = JSON.stringify(body);
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
};
