import { resolveParams, resolvePath, resolveString, resolveValue, type RootLookup } from '../../../src/engine/expressions';

// As Conductor's ParametersUtils: `${path}` against a document of `workflow` plus one entry per task reference.
const doc: Record<string, unknown> = {
  workflow: {
    input: {
      x: 7,
      name: 'ann',
      flag: false,
      nothing: null,
      order: {
        id: 'o-1',
        lines: [
          { sku: 'a', qty: 2 },
          { sku: 'b', qty: 1 },
        ],
      },
      tags: ['p', 'q'],
    },
    workflowId: 'wf-123',
    correlationId: 'corr-9',
    variables: { counter: 3, cfg: { mode: 'fast' } },
  },
  t1: {
    input: { x: 1, key: 'mode' },
    output: {
      a: { b: 'deep', n: 0 },
      list: [10, 20, 30],
      'a b': 'spaced',
      items: [{ price: 5, name: 'pen' }, { nested: { price: 7 } }, { name: 'free' }],
      empty: '',
    },
  },
  which: { output: { ref: 't1' } },
};
const lookup: RootLookup = (name) => doc[name];

describe('whole-value expressions keep the JSON type', () => {
  it.each([
    ['${t1.output.a}', { b: 'deep', n: 0 }],
    ['${t1.output.list}', [10, 20, 30]],
    ['${workflow.input.x}', 7],
    ['${workflow.input.flag}', false],
    ['${workflow.input.nothing}', null],
    ['${t1.output.empty}', ''],
    ['${t1.output.a.n}', 0],
  ])('%s', (expr, value) => {
    expect(resolveString(expr, lookup)).toEqual(value);
  });

  it('returns the value itself, not a string rendering', () => {
    expect(typeof resolveString('${workflow.input.x}', lookup)).toBe('number');
    expect(Array.isArray(resolveString('${workflow.input.tags}', lookup))).toBe(true);
  });
});

describe('interpolation inside strings', () => {
  it('renders scalars into the text', () => {
    expect(resolveString('order ${workflow.input.order.id} for ${workflow.input.name} x=${workflow.input.x} ${workflow.input.flag}', lookup)).toBe(
      'order o-1 for ann x=7 false',
    );
  });

  it('renders null and unresolvable paths as "null"', () => {
    expect(resolveString('a ${workflow.input.nothing} b ${workflow.input.missing} c', lookup)).toBe('a null b null c');
  });

  it('leaves text without expressions unchanged, and text after an unclosed ${ as is', () => {
    expect(resolveString('plain $ text {x}', lookup)).toBe('plain $ text {x}');
    expect(resolveString('x ${workflow.input.x', lookup)).toBe('x ${workflow.input.x');
  });

  // As in Conductor: non-strings inside text are rendered with Java toString (`{a=1}`, `[1, 2]`).
  // BUG (engine/expressions.ts stringify): renders JSON (`{"b":"deep","n":0}`, `[10,20,30]`) instead.
  test('renders maps and lists inside text as Java toString', () => {
    expect(resolveString('m=${t1.output.a} l=${t1.output.list}', lookup)).toBe('m={b=deep, n=0} l=[10, 20, 30]');
  });
});

describe('recursive walk of inputParameters', () => {
  it('resolves inside nested objects and arrays and passes other scalars through', () => {
    const params = {
      id: '${workflow.input.order.id}',
      nested: { deeper: ['${t1.output.a.b}', { qty: '${workflow.input.order.lines[0].qty}' }], n: 5, b: true, z: null },
      text: 'n=${t1.input.x}',
    };
    expect(resolveParams(params, lookup)).toEqual({
      id: 'o-1',
      nested: { deeper: ['deep', { qty: 2 }], n: 5, b: true, z: null },
      text: 'n=1',
    });
  });

  it('resolves undefined params to an empty object and does not mutate its input', () => {
    expect(resolveParams(undefined, lookup)).toEqual({});
    const params = { a: '${workflow.input.x}' };
    resolveParams(params, lookup);
    expect(params).toEqual({ a: '${workflow.input.x}' });
  });

  it('keeps numbers, booleans and null values untouched', () => {
    expect(resolveValue([1, true, null, 2.5], lookup)).toEqual([1, true, null, 2.5]);
  });
});

describe('paths', () => {
  it.each([
    ['workflow.input.x', 7],
    ['workflow.workflowId', 'wf-123'],
    ['workflow.correlationId', 'corr-9'],
    ['workflow.variables.counter', 3],
    ['workflow.variables.cfg.mode', 'fast'],
    ['t1.output.a.b', 'deep'],
    ['t1.input.x', 1],
    ['t1.output.list[0]', 10],
    ['t1.output.list[2]', 30],
    ['workflow.input.order.lines[1].sku', 'b'],
    ["t1.output['a b']", 'spaced'],
    ['t1.output["a b"]', 'spaced'],
    ["workflow.input['order']['id']", 'o-1'],
  ])('%s', (path, value) => {
    expect(resolvePath(path, lookup)).toEqual(value);
  });

  it.each([
    'workflow.input.missing',
    'workflow.input.missing.deeper',
    'workflow.input.x.deeper',
    't1.output.list[9]',
    'unknownRef.output.a',
    'workflow.input.order.lines[5].sku',
    "t1.output['no such']",
  ])('%s is unresolvable ⇒ null', (path) => {
    expect(resolvePath(path, lookup)).toBeNull();
  });

  it('an unresolvable whole value is null, not undefined or the literal text', () => {
    expect(resolveString('${nobody.output.x}', lookup)).toBeNull();
    expect(resolveParams({ v: '${workflow.input.missing}' }, lookup)).toEqual({ v: null });
  });
});

describe('.length()', () => {
  it('counts list elements and map keys', () => {
    expect(resolveString('${t1.output.list.length()}', lookup)).toBe(3);
    expect(resolveString('${t1.output.a.length()}', lookup)).toBe(2);
  });

  it('is null on a missing path or a number', () => {
    expect(resolveString('${t1.output.none.length()}', lookup)).toBeNull();
    expect(resolveString('${workflow.input.x.length()}', lookup)).toBeNull();
  });

  it('interpolates into text', () => {
    expect(resolveString('count: ${t1.output.list.length()}', lookup)).toBe('count: 3');
  });
});

describe('full JSONPath through jsonpath-plus', () => {
  it('deep scan ..price collects every match into a list', () => {
    expect(resolveString('${t1.output..price}', lookup)).toEqual([5, 7]);
  });

  it('wildcards and filters return lists', () => {
    expect(resolveString('${workflow.input.order.lines[*].sku}', lookup)).toEqual(['a', 'b']);
    expect(resolveString('${workflow.input.order.lines[?(@.qty > 1)].sku}', lookup)).toEqual(['a']);
  });

  it('a deep scan without matches is null', () => {
    expect(resolveString('${t1.output..nope}', lookup)).toBeNull();
  });
});

describe('escapes, blanks and nesting', () => {
  it('$${ escapes a literal ${', () => {
    expect(resolveString('cost $${workflow.input.x} is ${workflow.input.x}', lookup)).toBe('cost ${workflow.input.x} is 7');
    expect(resolveString('$${literal}', lookup)).toBe('${literal}');
  });

  it('blank ${} resolves to an empty string', () => {
    expect(resolveString('${}', lookup)).toBe('');
    expect(resolveString('a${}b', lookup)).toBe('ab');
  });

  it('nested ${a.${b}} resolves the inner expression first', () => {
    expect(resolveString('${workflow.variables.cfg.${t1.input.key}}', lookup)).toBe('fast');
    expect(resolveString('${${which.output.ref}.output.a.b}', lookup)).toBe('deep');
    expect(resolveString('mode=${workflow.variables.cfg.${t1.input.key}}', lookup)).toBe('mode=fast');
  });
});
