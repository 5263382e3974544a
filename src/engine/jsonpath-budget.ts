import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';

// Bounds on full JSONPath evaluation (`${a..b}`, wildcards, filters). jsonpath-plus has no limit of its
// own: `${x..*..*..*}` over a 200-level input reads millions of nodes, and the results it copies
// level by level can fill the heap. Every node it reads goes through a Proxy that counts the work.

export interface JsonPathLimits {
  /** Work units allowed to the JSONPath evaluations of one budget (one decision of an execution). */
  maxSteps: number;
  /** How deep below the document's root an evaluation may read. */
  maxDepth: number;
}

export const DEFAULT_JSONPATH_LIMITS: JsonPathLimits = { maxSteps: 1_000_000, maxDepth: 64 };

/** Longest full JSONPath expression read: the library splits a path with regexes that rescan its rest at every `.`, `[` or `'`. */
export const MAX_EXPRESSION_LENGTH = 4096;
/** That split costs about the square of the length: this many squared characters per step (4096 characters, ~33,000 steps). */
const SPLIT_CHARS_SQUARED_PER_STEP = 512;

/** A JSONPath evaluation went past its budget, or used what Baton does not run; the task or workflow that needed it fails with this message. */
export class ExpressionLimitError extends BatonError {
  constructor(message: string) {
    super(...namedArgs(Errors.EXPRESSION_LIMIT(message)));
  }
}

const shown = (expr: string): string => (expr.length > 120 ? `${expr.slice(0, 120)}…` : expr);

/** The total length of the `?(...)` filters of a path: the library runs each one at every node it tests. */
function filterLength(path: string): number {
  let total = 0;
  for (let at = path.indexOf('?('); at >= 0; at = path.indexOf('?(', at + 2)) {
    const close = path.indexOf(')]', at);
    total += (close < 0 ? path.length : close) - at;
  }
  return total;
}

/** A read-only view of a document for one evaluation, and the way back from its values to the document's own. */
export interface BoundedView {
  json: object;
  unwrap(value: unknown): unknown;
  /** Charges work done outside the view's reads (a filter's regex tests and string methods). */
  charge(steps: number): void;
  /** The limit the evaluation hit, if any (the library may wrap the error it saw). */
  failure(): ExpressionLimitError | undefined;
}

/**
 * Work allowed to several JSONPath evaluations. One read of a property costs its depth plus one (the
 * library copies the path at every level, so deep reads cost more) plus half the filter length of
 * the expression, and reading the expression costs its length squared over 512, so the count follows
 * the time spent; past maxSteps, or below maxDepth, the read throws ExpressionLimitError.
 */
export class JsonPathBudget {
  private used = 0;

  constructor(readonly limits: JsonPathLimits = DEFAULT_JSONPATH_LIMITS) {}

  get stepsUsed(): number {
    return this.used;
  }

  view(root: object, expr: string): BoundedView {
    const { maxSteps, maxDepth } = this.limits;
    const extra = Math.ceil(filterLength(expr) / 2);
    const depthOf = new WeakMap<object, number>();
    const proxyOf = new WeakMap<object, object>();
    const targetOf = new WeakMap<object, object>();
    let failure: ExpressionLimitError | undefined;
    const fail = (message: string): never => {
      failure ??= new ExpressionLimitError(message);
      throw failure;
    };
    const charge = (cost: number): void => {
      this.used += cost;
      if (this.used > maxSteps) fail(`JSONPath expression '${shown(expr)}' exceeded the evaluation budget of ${maxSteps} steps`);
    };
    if (expr.length > MAX_EXPRESSION_LENGTH)
      fail(`JSONPath expression '${shown(expr)}' is ${expr.length} characters long, more than the ${MAX_EXPRESSION_LENGTH} Baton reads`);
    charge(Math.ceil((expr.length * expr.length) / SPLIT_CHARS_SQUARED_PER_STEP));
    const wrap = (value: object, depth: number): object => {
      const known = proxyOf.get(value);
      if (known) return known;
      if (depth > maxDepth) fail(`JSONPath expression '${shown(expr)}' reached the depth limit of ${maxDepth} levels`);
      const proxy = new Proxy(value, handler);
      depthOf.set(value, depth);
      proxyOf.set(value, proxy);
      targetOf.set(proxy, value);
      return proxy;
    };
    const handler: ProxyHandler<object> = {
      get(target, key) {
        const depth = depthOf.get(target) ?? 0;
        charge(depth + 1 + extra);
        const value: unknown = Reflect.get(target, key);
        return value !== null && typeof value === 'object' ? wrap(value, depth + 1) : value;
      },
      ownKeys(target) {
        charge(1);
        return Reflect.ownKeys(target);
      },
      // The view is read-only: a filter cannot change the execution's data.
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
    };
    return {
      json: wrap(root, 0),
      unwrap: (value) => (value !== null && typeof value === 'object' ? (targetOf.get(value) ?? value) : value),
      charge,
      failure: () => failure,
    };
  }
}
