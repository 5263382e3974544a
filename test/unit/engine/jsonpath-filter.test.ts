import { resolvePath, resolveString, type RootLookup } from '../../../src/engine/expressions';
import { ExpressionLimitError, JsonPathBudget } from '../../../src/engine/jsonpath-budget';

// JSONPath filters run in Baton's evaluator: the JavaScript filters people write (comparisons, &&, ||,
// !, ?:, literals, `@` paths, a few linear string and array methods) answer as before; regex literals
// run with RE2 semantics (linear time); any other method call is refused with the reason.

const over =
  (input: unknown): RootLookup =>
  (name) =>
    name === 'workflow' ? { input } : undefined;

function limitOf(run: () => unknown): ExpressionLimitError {
  try {
    run();
  } catch (e) {
    if (e instanceof ExpressionLimitError) return e;
    throw e;
  }
  throw new Error('expected an ExpressionLimitError');
}

const items = [
  { sku: 'a1', qty: 2, name: 'Apple', tags: ['fruit', 'red'] },
  { sku: 'b2', qty: 0, name: 'banana', tags: ['fruit'] },
  { sku: 'c3', qty: 5, name: 'Carrot', tags: [], note: null },
];
const skus = (filter: string): unknown => resolveString(`\${workflow.input.items[?(${filter})].sku}`, over({ items, wanted: ['c3'], min: 1 }));

describe('JSONPath filters', () => {
  it('keep answering the filters written today', () => {
    expect(skus('@.qty > 1')).toEqual(['a1', 'c3']);
    expect(skus('@.qty >= 2 && @.sku !== "c3" || @.qty === 0')).toEqual(['a1', 'b2']);
    expect(skus('!(@.qty > 0)')).toEqual(['b2']);
    expect(skus('@.qty * 2 - 1 > 8')).toEqual(['c3']);
    expect(skus("@.qty > 1 ? @.name === 'Apple' : true")).toEqual(['a1', 'b2']);
    expect(skus('@.note === null')).toEqual(['c3']);
    expect(skus('@.note === undefined')).toEqual(['a1', 'b2']);
    expect(skus("typeof @.note === 'object'")).toEqual(['c3']);
    expect(skus('@.qty > @root.workflow.input.min')).toEqual(['a1', 'c3']);
    expect(skus('@root.workflow.input.wanted.includes(@.sku)')).toEqual(['c3']);
    expect(skus("@.tags.includes('red')")).toEqual(['a1']);
    expect(skus('@.tags.length === 0')).toEqual(['c3']);
    expect(skus("@.name.toLowerCase().startsWith('b')")).toEqual(['b2']);
    expect(skus("['a1', 'b2'].indexOf(@.sku) >= 0")).toEqual(['a1', 'b2']);
    expect(skus('@property === 2')).toEqual(['c3']);
    expect(resolvePath('workflow.input.items[(@.length-1)].sku', over({ items }))).toBe('c3');
  });

  it("run regex literals with RE2 semantics, as Conductor's =~ /regex/", () => {
    expect(skus('/^[ab]\\d$/.test(@.sku)')).toEqual(['a1', 'b2']);
    expect(skus('/^b/i.test(@.name)')).toEqual(['b2']);
    expect(skus('!/an/.test(@.name)')).toEqual(['a1', 'c3']);
  });

  it('an exponential pattern over 5,000 characters gets the right answer (backtracking would not end)', () => {
    const input = {
      items: [
        { id: 1, s: `${'a'.repeat(5000)}b` },
        { id: 2, s: 'a'.repeat(5000) },
      ],
    };
    expect(resolveString('${workflow.input.items[?(/^(a+)+$/.test(@.s))].id}', over(input))).toEqual([2]);
  });

  it('refuse a pattern that needs backtracking, saying why', () => {
    expect(limitOf(() => skus('/(a)\\1/.test(@.sku)')).message).toMatch(
      /^JSONPath filter '\/\(a\)\\1\/\.test\(@\.sku\)' is refused: .*cannot run in linear time/,
    );
    expect(limitOf(() => skus('/a(?=1)/.test(@.sku)')).message).toMatch(/cannot run in linear time/);
  });

  it('refuse every other method call, naming it: none runs', () => {
    for (const [filter, method] of [
      ['@.name.match(/^(a+)+$/)', 'match'],
      ['@.name.search(@.sku)', 'search'],
      ["@.name.replace('a', 'b') === 'x'", 'replace'],
      ['@.name.repeat(1e9).length > 0', 'repeat'],
      ["@.name.split('').length > 1", 'split'],
      ['@.tags.map(@.sku)', 'map'],
      ['/a/.exec(@.sku)', 'exec'],
    ]) {
      expect(limitOf(() => skus(filter!)).message).toMatch(new RegExp(`calls '${method}', which Baton does not run in filters \\(methods allowed: .*test`));
    }
    // No assignment either: not even parsed.
    expect(skus('@.qty = 3')).toBeNull();
  });

  it('charge regex tests to the JSONPath budget, so many long strings cannot add up to a stall', () => {
    const long = { items: Array.from({ length: 20 }, (_, id) => ({ id, s: 'a'.repeat(100_000) })) };
    const budget = new JsonPathBudget({ maxSteps: 100_000, maxDepth: 64 });
    expect(limitOf(() => resolvePath('workflow.input.items[?(/^[ab]+c?$/.test(@.s))].id', over(long), budget)).message).toMatch(
      /exceeded the evaluation budget of 100000 steps/,
    );
    const small = new JsonPathBudget();
    expect(resolvePath('workflow.input.items[?(/^[ab]+c?$/.test(@.s))].id', over({ items: long.items.slice(0, 2) }), small)).toEqual([0, 1]);
    expect(small.stepsUsed).toBeGreaterThan((2 * 100_000) / 16);
  });
});
