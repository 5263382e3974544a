import { secretSpellings } from './secret-spellings';

// `${workflow.secrets.NAME}` references in task inputs (pure). The engine keeps them literal in
// stored inputs (src/engine/expressions.ts); they are replaced only in what leaves Baton: the HTTP
// task's request and a polled task handed to a worker (as Conductor OSS does,
// core/src/main/java/com/netflix/conductor/core/utils/ParametersUtils.java substituteSecrets).

const REFERENCE = /\$\{workflow\.secrets\.([A-Za-z0-9_-]+)\}/g;
const PREFIX = '${workflow.secrets.';

/** Names referenced anywhere in `value` (strings inside maps and lists). */
export function secretNamesIn(value: unknown, into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (value.includes(PREFIX)) for (const m of value.matchAll(REFERENCE)) into.add(m[1]!);
  } else if (Array.isArray(value)) {
    for (const v of value) secretNamesIn(v, into);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) secretNamesIn(v, into);
  }
  return into;
}

/** `value` with every reference replaced by its secret (all names must be in `values`); shares what holds none. */
export function substituteSecrets<T>(value: T, values: ReadonlyMap<string, string>): T {
  if (typeof value === 'string') {
    if (!value.includes(PREFIX)) return value;
    return value.replace(REFERENCE, (whole, name: string) => values.get(name) ?? whole) as T;
  }
  if (Array.isArray(value)) return value.map((v) => substituteSecrets(v, values)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = substituteSecrets(v, values);
    return out as T;
  }
  return value;
}

export const SECRET_MASK = '***';

/**
 * `value` with every occurrence of a secret value in its strings (and keys) replaced by the mask, in
 * each of its spellings (src/secrets/secret-spellings.ts): what a call's outcome echoed back is not stored.
 */
export function redactSecrets<T>(value: T, secrets: readonly string[]): T {
  // Longest first across all secrets: one secret's spelling may contain another's.
  const live = [...new Set(secrets.flatMap(secretSpellings))].sort((a, b) => b.length - a.length);
  if (live.length === 0) return value;
  const scrub = (s: string): string => live.reduce((acc, spelling) => (acc.includes(spelling) ? acc.split(spelling).join(SECRET_MASK) : acc), s);
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return scrub(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) out[scrub(k)] = walk(x);
      return out;
    }
    return v;
  };
  return walk(value) as T;
}
