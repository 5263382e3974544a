import { JSONPath } from 'jsonpath-plus';
import { FILTER_WORK, FilterScript } from './jsonpath-filter';
import { ExpressionLimitError, JsonPathBudget } from './jsonpath-budget';

// `${...}` input resolution (Conductor's ParametersUtils). A value that is exactly one `${path}` keeps the
// resolved JSON type; inside a longer string it interpolates. Unresolvable paths resolve to null.
// Full JSONPath evaluations draw on a JsonPathBudget; past it they throw ExpressionLimitError. Without
// a budget argument, each top-level call gets a fresh one with the default limits.

/** Looks up the root of a path: `workflow` or a task reference name. */
export type RootLookup = (name: string) => unknown;

const SIMPLE_SEGMENT = /^[A-Za-z0-9_\-$]+$/;

interface ParsedPath {
  root: string;
  /** Plain property/index steps, or undefined when the path needs full JSONPath. */
  steps?: Array<string | number>;
  jsonPath: string;
}

const pathCache = new Map<string, ParsedPath>();

function parsePath(expr: string): ParsedPath {
  const cached = pathCache.get(expr);
  if (cached) return cached;
  const steps: Array<string | number> = [];
  let i = 0;
  let simple = true;
  const readName = (): string => {
    const start = i;
    while (i < expr.length && expr[i] !== '.' && expr[i] !== '[') i++;
    return expr.slice(start, i);
  };
  const root = readName();
  while (i < expr.length && simple) {
    if (expr[i] === '.') {
      i++;
      if (expr[i] === '.') {
        simple = false;
        break;
      }
      const name = readName();
      if (!SIMPLE_SEGMENT.test(name)) {
        simple = name === 'length()' && i === expr.length;
        if (simple) steps.push('length()');
        break;
      }
      steps.push(name);
    } else if (expr[i] === '[') {
      const close = expr.indexOf(']', i);
      if (close < 0) {
        simple = false;
        break;
      }
      const inner = expr.slice(i + 1, close).trim();
      i = close + 1;
      if (/^\d+$/.test(inner)) steps.push(Number(inner));
      else if (/^'[^']*'$/.test(inner) || /^"[^"]*"$/.test(inner)) steps.push(inner.slice(1, -1));
      else {
        simple = false;
        break;
      }
    } else {
      simple = false;
    }
  }
  const parsed: ParsedPath = { root, steps: simple ? steps : undefined, jsonPath: `$.${expr}` };
  if (pathCache.size > 10_000) pathCache.clear();
  pathCache.set(expr, parsed);
  return parsed;
}

/** jsonpath-plus keeps every expression it parsed in JSONPath.cache (a documented property): emptied now and then. */
const JSONPATH_CACHE_RESET_EVERY = 10_000;
let evaluationsSinceReset = 0;

/** Resolves one path like `workflow.input.a[0].b` or `t1.output..price` against the lookup. */
export function resolvePath(expr: string, lookup: RootLookup, budget: JsonPathBudget = new JsonPathBudget()): unknown {
  const p = parsePath(expr.trim());
  if (!p.root) return null;
  const rootValue = lookup(p.root);
  if (rootValue === undefined) return null;
  if (p.steps) {
    let cur: unknown = rootValue;
    for (const step of p.steps) {
      if (step === 'length()') {
        if (Array.isArray(cur) || typeof cur === 'string') return cur.length;
        if (cur && typeof cur === 'object') return Object.keys(cur).length;
        return null;
      }
      // Own entries only: `${workflow.input.constructor}` is null, as it is for any key the input lacks.
      if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, step)) return null;
      cur = (cur as Record<string | number, unknown>)[step];
      if (cur === undefined) return null;
    }
    return cur;
  }
  // Full JSONPath (deep scan, filters, wildcards) through a maintained library, over a view that counts its work.
  if (++evaluationsSinceReset >= JSONPATH_CACHE_RESET_EVERY) {
    evaluationsSinceReset = 0;
    JSONPath.cache = {};
  }
  const view = budget.view({ [p.root]: rootValue }, p.jsonPath);
  let result: unknown[];
  try {
    // Filters run in Baton's evaluator: regex literals with RE2 (linear time), no other method calls but a few linear ones.
    // The library's typings call the sandbox a Map; it reads (and writes `@`'s values into) a plain object.
    const sandbox = { [FILTER_WORK]: { charge: view.charge } } as unknown as Map<string, unknown>;
    result = JSONPath({ path: p.jsonPath, json: view.json, wrap: true, eval: FilterScript, sandbox }) as unknown[];
  } catch (e) {
    // A limit hit inside a filter reaches here wrapped in the library's own Error.
    const limit = view.failure() ?? (e instanceof ExpressionLimitError ? e : undefined);
    if (limit) throw limit;
    return null;
  }
  if (!Array.isArray(result) || result.length === 0) return null;
  const definite = !/\.\.|\*|\?\(|,|:/.test(expr);
  return definite ? view.unwrap(result[0]) : result.map(view.unwrap);
}

/** Finds the end of the `${` ... `}` that starts at `open`, honouring nested `${...}`. */
function matchingBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    if (s[i] === '$' && s[i + 1] === '{') {
      depth++;
      i++;
    } else if (s[i] === '}') {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}

/** Renders a value inside a longer string as Conductor (Java toString) does: `{a=1, b=[x, y]}`. */
function stringify(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return v;
  if (Array.isArray(v)) return `[${v.map(stringify).join(', ')}]`;
  if (typeof v === 'object')
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}=${stringify(x)}`)
      .join(', ')}}`;
  return String(v);
}

/** `${workflow.secrets.NAME}` stays as written: revealed only where the input leaves Baton (src/secrets/secret-references.ts). */
const isSecretReference = (inner: string): boolean => /^\s*workflow\.secrets\./.test(inner);

/** How deep `${...}` may nest inside `${...}`: each level rescans the rest of the string, and recursion has a stack. */
export const MAX_EXPRESSION_NESTING = 32;

/** Resolves `${...}` occurrences in one string. */
export function resolveString(s: string, lookup: RootLookup, budget: JsonPathBudget = new JsonPathBudget()): unknown {
  return resolveNested(s, lookup, budget, 0);
}

function resolveNested(s: string, lookup: RootLookup, budget: JsonPathBudget, nesting: number): unknown {
  if (!s.includes('${')) return s;
  if (nesting > MAX_EXPRESSION_NESTING) throw new ExpressionLimitError(`Expression nests \${...} more than ${MAX_EXPRESSION_NESTING} levels deep`);
  // Whole-value form keeps the type.
  if (s.startsWith('${') && matchingBrace(s, 0) === s.length - 1) {
    const inner = s.slice(2, -1);
    if (isSecretReference(inner)) return s;
    const path = inner.includes('${') ? stringify(resolveNested(inner, lookup, budget, nesting + 1)) : inner;
    return path.trim() === '' ? '' : resolvePath(path, lookup, budget);
  }
  let out = '';
  let i = 0;
  while (i < s.length) {
    if (s[i] === '$' && s[i + 1] === '$' && s[i + 2] === '{') {
      out += '${'; // `$${` escapes a literal `${`
      i += 3;
      continue;
    }
    if (s[i] === '$' && s[i + 1] === '{') {
      const close = matchingBrace(s, i);
      if (close < 0) {
        out += s.slice(i);
        break;
      }
      const inner = s.slice(i + 2, close);
      if (isSecretReference(inner)) {
        out += s.slice(i, close + 1);
        i = close + 1;
        continue;
      }
      const path = inner.includes('${') ? stringify(resolveNested(inner, lookup, budget, nesting + 1)) : inner;
      out += path.trim() === '' ? '' : stringify(resolvePath(path, lookup, budget));
      i = close + 1;
      continue;
    }
    out += s[i];
    i++;
  }
  return out;
}

/** Walks maps and lists recursively, resolving every string; other scalars pass through. */
export function resolveValue(v: unknown, lookup: RootLookup, budget: JsonPathBudget = new JsonPathBudget()): unknown {
  if (typeof v === 'string') return resolveString(v, lookup, budget);
  if (Array.isArray(v)) return v.map((x) => resolveValue(x, lookup, budget));
  if (v && typeof v === 'object') {
    // fromEntries makes every key an own entry, `__proto__` too (an assignment would set the prototype).
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, resolveValue(x, lookup, budget)]));
  }
  return v;
}

export function resolveParams(
  params: Record<string, unknown> | undefined,
  lookup: RootLookup,
  budget: JsonPathBudget = new JsonPathBudget(),
): Record<string, unknown> {
  return (resolveValue(params ?? {}, lookup, budget) as Record<string, unknown>) ?? {};
}
