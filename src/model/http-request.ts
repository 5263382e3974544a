import { z } from 'zod';

// The HTTP task's request, read from its input: `http_request` or, as Conductor OSS allows, the same
// keys at the top level. Shared by registration checks, the engine (response timeout) and the worker.

/** Conductor's default connect and read timeouts (HttpTask: 3000 ms each). */
export const DEFAULT_HTTP_TIMEOUT_MS = 3000;
/** Conductor's timeouts are Java ints of milliseconds; anything larger was never a valid value. */
const MAX_TIMEOUT_VALUE = 2_147_483_647;

/** Checked by parseTimeout, which says what is wrong with a bad value. */
const timeoutValue = z.unknown().optional();

export const HttpRequestSpecSchema = z.looseObject({
  uri: z.string().optional(),
  method: z.string().optional(),
  headers: z.record(z.string(), z.unknown()).nullish(),
  body: z.unknown().optional(),
  accept: z.unknown().optional(),
  contentType: z.string().optional(),
  connectionTimeOut: timeoutValue,
  readTimeOut: timeoutValue,
  /** Baton: `false` turns redirect following off for this task (the 3xx then fails the task like any non-2xx). */
  followRedirects: z.union([z.boolean(), z.string()]).nullish(),
});
export type HttpRequestSpec = z.infer<typeof HttpRequestSpecSchema>;

/** The request spec from `http_request` or the top level of the input; keys of the wrong type are dropped. */
export function httpRequestOf(input: Record<string, unknown>): HttpRequestSpec {
  const raw = (input.http_request && typeof input.http_request === 'object' ? input.http_request : input) as Record<string, unknown>;
  const spec: Record<string, unknown> = { ...raw, contentType: raw.contentType ?? raw['content-Type'] ?? raw['Content-Type'] };
  const r = HttpRequestSpecSchema.safeParse(spec);
  if (r.success) return r.data;
  // Keep what is usable: each offending key is dropped, so the worker can name what is missing.
  for (const issue of r.error.issues) delete spec[String(issue.path[0])];
  return HttpRequestSpecSchema.parse(spec);
}

export type TimeoutParse = { ok: true; ms: number | undefined } | { ok: false; message: string };

/**
 * A timeout as written in the input: seconds (what Baton's clients send, often as a string), or
 * Conductor's milliseconds when above 1000. Absent means the default; 0 means "as long as Baton allows".
 */
export function parseTimeout(value: unknown): TimeoutParse {
  if (value === undefined || value === null || value === '') return { ok: true, ms: undefined };
  const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
  if (!Number.isFinite(n) || n < 0)
    return { ok: false, message: `must be a number of seconds (or milliseconds above 1000) at least 0, got ${JSON.stringify(value)}` };
  if (n > MAX_TIMEOUT_VALUE) return { ok: false, message: `must be at most ${MAX_TIMEOUT_VALUE} milliseconds, got ${JSON.stringify(value)}` };
  return { ok: true, ms: n > 1000 ? Math.round(n) : Math.round(n * 1000) };
}

/** A value still to be resolved at run time (`${...}`) is only checked when the task runs. */
const isExpression = (v: unknown): boolean => typeof v === 'string' && v.includes('${');

/** Registration-time problems of literal timeouts in one task's request spec, as messages. */
export function literalTimeoutIssues(spec: unknown): string[] {
  if (!spec || typeof spec !== 'object') return [];
  const out: string[] = [];
  for (const key of ['connectionTimeOut', 'readTimeOut'] as const) {
    const v = (spec as Record<string, unknown>)[key];
    if (isExpression(v)) continue;
    const r = parseTimeout(v);
    if (!r.ok) out.push(`${key} ${r.message}`);
  }
  return out;
}

/** Effective timeout: the default when absent, the cap when 0 or above it. */
export function effectiveTimeoutMs(parsed: number | undefined, capMs: number): number {
  if (parsed === undefined) return Math.min(DEFAULT_HTTP_TIMEOUT_MS, capMs);
  if (parsed === 0) return capMs;
  return Math.min(parsed, capMs);
}

/** Whether the task asks not to follow redirects (`followRedirects: false`, also as a string). */
export function redirectsOff(spec: HttpRequestSpec): boolean {
  return spec.followRedirects === false || (typeof spec.followRedirects === 'string' && spec.followRedirects.trim().toLowerCase() === 'false');
}
