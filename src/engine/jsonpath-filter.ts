import jsep from 'jsep';
import jsepRegex from '@jsep-plugin/regex';
import { compileLinearRegex, RegexRefusedError, type LinearRegex } from '../lib/linear-regex';
import { ExpressionLimitError } from './jsonpath-budget';

// The filters (`?(...)`) and script steps (`(...)`) of full JSONPath, as jsonpath-plus hands them to its
// `eval` option. Its own "safe" evaluator calls any method of any value (`@.s.repeat(1e9)`,
// `@.s.match(@.pattern)`) and runs regex literals with backtracking on the event loop; this one runs
// a subset: comparisons, arithmetic, && || ! ?:, literals, `@` paths, a few linear string and array
// methods, and regex literals with RE2 semantics (`/^a+$/i.test(@.s)`; Conductor's Jayway writes `@.s =~ /^a+$/i`).
// Anything else is refused when the expression is first read, and the task or workflow fails saying why.

jsep.plugins.register(jsepRegex);
jsep.addUnaryOp('typeof');
jsep.addLiteral('undefined', undefined);

/** Where an evaluation charges its work: the JSONPath budget of the view it reads. */
export interface FilterWork {
  charge(steps: number): void;
}

/** The sandbox key under which jsonpath-plus passes an evaluation's FilterWork to the script. */
export const FILTER_WORK = Symbol('baton.jsonpath.filterWork');

/** Regex steps (characters × pattern instructions) per budget step: a budget step is one proxied read, far slower than one regex step. */
const REGEX_STEPS_PER_BUDGET_STEP = 16;
/** Characters a native string or array method goes through per budget step. */
const CHARS_PER_BUDGET_STEP = 256;

const STRING_METHODS = new Set([
  'startsWith',
  'endsWith',
  'includes',
  'indexOf',
  'lastIndexOf',
  'toLowerCase',
  'toUpperCase',
  'trim',
  'trimStart',
  'trimEnd',
  'charAt',
  'at',
  'slice',
  'substring',
]);
const ARRAY_METHODS = new Set(['includes', 'indexOf', 'lastIndexOf']);
const ALLOWED_METHODS = new Set(['test', ...STRING_METHODS, ...ARRAY_METHODS]);
const ALLOWED_LIST = [...ALLOWED_METHODS].sort().join(', ');

/** JavaScript's operators as jsonpath-plus's filters have them, loose equality included; the right side only when needed. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- operands of JavaScript's own operators: any value, as in the filter language
const BINARY: Readonly<Record<string, (a: any, b: () => any) => unknown>> = {
  '||': (a, b) => a || b(),
  '&&': (a, b) => a && b(),
  '??': (a, b) => a ?? b(),
  '==': (a, b) => a == b(),
  '!=': (a, b) => a != b(),
  '===': (a, b) => a === b(),
  '!==': (a, b) => a !== b(),
  '<': (a, b) => a < b(),
  '>': (a, b) => a > b(),
  '<=': (a, b) => a <= b(),
  '>=': (a, b) => a >= b(),
  '+': (a, b) => a + b(),
  '-': (a, b) => a - b(),
  '*': (a, b) => a * b(),
  '/': (a, b) => a / b(),
  '%': (a, b) => a % b(),
  '|': (a, b) => a | b(),
  '&': (a, b) => a & b(),
  '^': (a, b) => a ^ b(),
  '<<': (a, b) => a << b(),
  '>>': (a, b) => a >> b(),
  '>>>': (a, b) => a >>> b(),
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- as BINARY
const UNARY: Readonly<Record<string, (a: any) => unknown>> = {
  '!': (a) => !a,
  '-': (a) => -a,
  '+': (a) => +a,
  '~': (a) => ~a,
  typeof: (a) => typeof a,
};

/** A regex literal of a filter, compiled for RE2. */
class RegexLiteral {
  constructor(readonly re: LinearRegex) {}
  toString(): string {
    return this.re.toString();
  }
}

interface Scope {
  vars: Record<string, unknown>;
  work: FilterWork;
}
type Evaluate = (scope: Scope) => unknown;

/** The filter as its author wrote it: jsonpath-plus renames `@` to `_$_v`, `@root` to `_$_root`, … */
const asWritten = (code: string): string =>
  code.replace(/_\$_(v|root|parentProperty|parent|property|path)\b/g, (_, name: string) => (name === 'v' ? '@' : `@${name}`));

const refuse = (code: string, why: string): never => {
  const shown = asWritten(code);
  throw new ExpressionLimitError(`JSONPath filter '${shown.length > 120 ? `${shown.slice(0, 120)}…` : shown}' ${why}`);
};

/** `obj.prop` or `obj[prop]` of data: own properties only, so no prototype method is ever reached as a value. */
function readProperty(obj: unknown, prop: unknown, optional: boolean): unknown {
  if (obj === null || obj === undefined) {
    if (optional) return undefined;
    throw new TypeError(`Cannot read properties of ${obj} (reading '${String(prop)}')`);
  }
  const key = String(prop);
  return Object.hasOwn(obj as object, key) ? (obj as Record<string, unknown>)[key] : undefined;
}

function callMethod(receiver: unknown, method: string, args: unknown[], work: FilterWork): unknown {
  if (receiver instanceof RegexLiteral && method === 'test') {
    const input = String(args[0]);
    work.charge(Math.ceil(receiver.re.workFor(input) / REGEX_STEPS_PER_BUDGET_STEP));
    return receiver.re.test(input);
  }
  if (typeof receiver === 'string' && STRING_METHODS.has(method)) {
    work.charge(1 + Math.ceil(receiver.length / CHARS_PER_BUDGET_STEP));
    return (String.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!.apply(receiver, args);
  }
  // Array methods read each element through the budget's view, which charges them.
  if (Array.isArray(receiver) && ARRAY_METHODS.has(method))
    return (Array.prototype as unknown as Record<string, (...a: unknown[]) => unknown>)[method]!.apply(receiver, args);
  throw new TypeError(`${method} is not a function of ${receiver instanceof RegexLiteral ? 'a regular expression' : typeof receiver}`);
}

/** Compiles the parsed expression to a closure, refusing (ExpressionLimitError) whatever is outside the subset. */
function compileNode(node: jsep.Expression, code: string): Evaluate {
  switch (node.type) {
    case 'Literal': {
      const { value } = node as jsep.Literal;
      if (value instanceof RegExp) {
        try {
          const literal = new RegexLiteral(compileLinearRegex(value.source, value.flags));
          return () => literal;
        } catch (e) {
          if (e instanceof RegexRefusedError) refuse(code, `is refused: ${e.message}`);
          throw e;
        }
      }
      return () => value;
    }
    case 'Identifier': {
      const { name } = node as jsep.Identifier;
      return ({ vars }) => {
        if (Object.hasOwn(vars, name)) return vars[name];
        throw new ReferenceError(`${name} is not defined`);
      };
    }
    case 'MemberExpression': {
      const m = node as jsep.MemberExpression;
      const object = compileNode(m.object, code);
      const optional = m.optional === true;
      if (!m.computed) {
        const name = (m.property as jsep.Identifier).name;
        return (scope) => readProperty(object(scope), name, optional);
      }
      const property = compileNode(m.property, code);
      return (scope) => readProperty(object(scope), property(scope), optional);
    }
    case 'CallExpression': {
      const c = node as jsep.CallExpression;
      const callee = c.callee as jsep.MemberExpression;
      const method = callee.type === 'MemberExpression' && !callee.computed ? (callee.property as jsep.Identifier).name : undefined;
      if (method === undefined || !ALLOWED_METHODS.has(method)) {
        return refuse(code, `calls ${method ? `'${method}'` : 'a function'}, which Baton does not run in filters (methods allowed: ${ALLOWED_LIST})`);
      }
      const receiver = compileNode(callee.object, code);
      const args = c.arguments.map((a) => compileNode(a, code));
      return (scope) =>
        callMethod(
          receiver(scope),
          method,
          args.map((a) => a(scope)),
          scope.work,
        );
    }
    case 'BinaryExpression': {
      const b = node as jsep.BinaryExpression;
      const op = BINARY[b.operator];
      if (!op) return refuse(code, `uses the operator '${b.operator}', which Baton does not run in filters`);
      const left = compileNode(b.left, code);
      const right = compileNode(b.right, code);
      return (scope) => op(left(scope), () => right(scope));
    }
    case 'UnaryExpression': {
      const u = node as jsep.UnaryExpression;
      const op = UNARY[u.operator];
      if (!op) return refuse(code, `uses the operator '${u.operator}', which Baton does not run in filters`);
      const argument = compileNode(u.argument, code);
      return (scope) => op(argument(scope));
    }
    case 'ConditionalExpression': {
      const t = node as jsep.ConditionalExpression;
      const [test, consequent, alternate] = [compileNode(t.test, code), compileNode(t.consequent, code), compileNode(t.alternate, code)];
      return (scope) => (test(scope) ? consequent(scope) : alternate(scope));
    }
    case 'ArrayExpression': {
      const elements = (node as jsep.ArrayExpression).elements.map((e) => (e ? compileNode(e, code) : () => undefined));
      return (scope) => elements.map((e) => e(scope));
    }
    default:
      return refuse(code, `has a ${node.type}, which Baton does not run in filters`);
  }
}

/**
 * jsonpath-plus's `eval` class: built once per distinct script (the library caches it), run per node
 * with a sandbox holding `@`'s values and, under FILTER_WORK, where to charge the work.
 */
export class FilterScript {
  private readonly evaluate: Evaluate;

  // The library keys its cache with `eval + 'Script:' + code`: a short name instead of this class's source.
  static toString(): string {
    return 'baton-filter';
  }

  constructor(code: string) {
    let ast: jsep.Expression;
    try {
      ast = jsep(code);
    } catch (e) {
      // A syntax error, as the library's own evaluator reports one: the expression resolves to null.
      throw new SyntaxError(e instanceof Error ? e.message : String(e));
    }
    this.evaluate = compileNode(ast, code);
  }

  runInNewContext(context: Record<string | symbol, unknown>): unknown {
    const work = context[FILTER_WORK] as FilterWork | undefined;
    if (!work) throw new Error('a JSONPath filter runs only with a budget');
    return this.evaluate({ vars: context as Record<string, unknown>, work });
  }
}
