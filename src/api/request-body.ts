import type { z } from 'zod';
import { parseBody } from './params';

// A route's JSON body as its row of the route table declares it: the table's runner parses it before
// the handler (express and the hot path alike) and the OpenAPI document describes the same schema.

export interface JsonBody<T = unknown> {
  schema: z.ZodType<T>;
  /** Conductor's name for the body: validation errors' paths start with it, and a missing body's 400 names it. */
  name: string;
  /** The handler takes a missing body ('missing'), or also an empty text body ('missing-or-empty-text'), as `{}`. */
  optional?: 'missing' | 'missing-or-empty-text';
}

export const jsonBody = <S extends z.ZodType>(schema: S, name: string, optional?: JsonBody['optional']): JsonBody<z.output<S>> => ({
  schema: schema as z.ZodType<z.output<S>>,
  name,
  ...(optional ? { optional } : {}),
});

export const isJsonBody = (body: unknown): body is JsonBody => typeof body === 'object' && body !== null && 'schema' in body;

/** The body as the handler takes it, parsed by its schema; a 400 with validationErrors otherwise. */
export function readJsonBody<T>(decl: JsonBody<T>, raw: unknown): T {
  const empty = raw === undefined || (decl.optional === 'missing-or-empty-text' && raw === '');
  return parseBody(decl.schema, empty && decl.optional ? {} : raw, decl.name);
}
