import { types } from 'node:util';
import { resolveParams, resolvePath, resolveString, type RootLookup } from '../../../src/engine/expressions';
import { ExpressionLimitError, JsonPathBudget } from '../../../src/engine/jsonpath-budget';
import { Run, simple, useTestEnv, workflowDef } from './engine-harness';

// Full JSONPath (`..`, wildcards, filters) has a work and depth budget; simple paths never touch it.

/** `{a: {a: ... {leaf: 1}}}`, `levels` deep. */
function chain(levels: number): Record<string, unknown> {
  let v: Record<string, unknown> = { leaf: 1 };
  for (let i = 0; i < levels; i++) v = { a: v };
  return v;
}

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

describe('JSONPath budget', () => {
  it('stops an expression whose work explodes over a 200-level input (unbounded, it reads millions of nodes)', () => {
    // The case: the depth limit ends it before the work does.
    expect(limitOf(() => resolveString('${workflow.input..*..*..*}', over(chain(200)))).message).toBe(
      "JSONPath expression '$.workflow.input..*..*..*' reached the depth limit of 64 levels",
    );
    // Within the depth limit, the step budget ends it.
    expect(limitOf(() => resolveString('${workflow.input..*..*..*..*}', over(chain(60)))).message).toBe(
      "JSONPath expression '$.workflow.input..*..*..*..*' exceeded the evaluation budget of 1000000 steps",
    );
  });

  it('stops a deep scan below the depth limit', () => {
    const budget = new JsonPathBudget({ maxSteps: 1_000_000, maxDepth: 64 });
    const error = limitOf(() => resolvePath('workflow.input..leaf', over(chain(100)), budget));
    expect(error.message).toBe("JSONPath expression '$.workflow.input..leaf' reached the depth limit of 64 levels");
    // The same document within the limit resolves.
    expect(resolvePath('workflow.input..leaf', over(chain(50)))).toEqual([1]);
  });

  it('simple paths do not draw on it, however deep', () => {
    const budget = new JsonPathBudget({ maxSteps: 1000, maxDepth: 4 });
    const path = `workflow.input${'.a'.repeat(100)}.leaf`;
    expect(resolvePath(path, over(chain(100)), budget)).toBe(1);
    expect(budget.stepsUsed).toBe(0);
  });

  it('gives back the document values, not the counting view', () => {
    const input = { items: [{ price: 5, tags: ['x'] }, { nested: { price: { amount: 7 } } }] };
    const prices = resolvePath('workflow.input..price', over(input)) as unknown[];
    expect(prices).toEqual([5, { amount: 7 }]);
    expect(types.isProxy(prices[1])).toBe(false);
    expect(prices[1]).toBe((input.items[1] as { nested: { price: unknown } }).nested.price);
    const filtered = resolvePath('workflow.input.items[?(@.price > 1)]', over(input)) as unknown[];
    expect(filtered).toEqual([{ price: 5, tags: ['x'] }]);
    expect(types.isProxy(filtered[0])).toBe(false);
  });

  it('a limit hit inside a filter is reported, not taken for "no match"', () => {
    const wide = { list: Array.from({ length: 500 }, (_, i) => ({ v: i })) };
    const budget = new JsonPathBudget({ maxSteps: 2000, maxDepth: 64 });
    const error = limitOf(() => resolvePath('workflow.input.list[?(@.v > 10 && @.v < 20)]', over(wide), budget));
    expect(error.message).toMatch(/exceeded the evaluation budget of 2000 steps/);
  });

  it('long filters cost more per node, so a filter cannot multiply the work unseen', () => {
    const list = { list: Array.from({ length: 50 }, (_, i) => ({ v: i })) };
    const short = new JsonPathBudget();
    resolvePath('workflow.input.list[?(@.v > 1)]', over(list), short);
    const long = new JsonPathBudget();
    resolvePath(`workflow.input.list[?(${Array.from({ length: 20 }, () => '@.v > 1').join(' && ')})]`, over(list), long);
    expect(long.stepsUsed).toBeGreaterThan(short.stepsUsed * 20);
  });

  it('is shared by every expression of one resolution: many cheap ones add up', () => {
    const params = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, '${workflow.input..leaf}']));
    const budget = new JsonPathBudget({ maxSteps: 20_000, maxDepth: 64 });
    expect(() => resolveParams(params, over(chain(20)), budget)).toThrow(ExpressionLimitError);
    // Each alone fits.
    expect(resolveParams({ one: '${workflow.input..leaf}' }, over(chain(20)), new JsonPathBudget({ maxSteps: 20_000, maxDepth: 64 }))).toEqual({ one: [1] });
  });
});

describe('JSONPath expression length', () => {
  // jsonpath-plus splits a path with regexes that rescan the rest of it at every '.': quadratic in its length.
  it('refuses a full expression longer than 4096 characters before the library splits it (200,000 characters held the event loop for about 20 s)', () => {
    const path = `workflow.input..${'a.'.repeat(100_000)}a`;
    expect(limitOf(() => resolvePath(path, over({}))).message).toMatch(
      /^JSONPath expression '\$\.workflow\.input\.\.a\.a.*' is 200019 characters long, more than the 4096 Baton reads$/,
    );
    // A plain path of any length never reaches the library.
    expect(resolvePath(`workflow.input${'.a'.repeat(100_000)}`, over({}))).toBeNull();
  });

  it('charges reading an expression by its length squared, so many long distinct ones add up to the budget', () => {
    const budget = new JsonPathBudget();
    const many = () => {
      for (let i = 0; i < 100; i++) resolvePath(`workflow.input..${'b.'.repeat(1990)}x${i}`, over({}), budget);
    };
    expect(limitOf(many).message).toMatch(/exceeded the evaluation budget of 1000000 steps/);
    expect(budget.stepsUsed).toBeGreaterThan(1_000_000);
  });
});

describe('the decider and the JSONPath budget', () => {
  const env = useTestEnv();

  it('a task whose input goes past the budget fails, and so does the workflow, with the reason', () => {
    const def = workflowDef({ tasks: [simple('t', 'task_t', { all: '${workflow.input..*..*..*..*}' })] });
    const run = new Run(env, def, { input: chain(60) });
    const reason = "JSONPath expression '$.workflow.input..*..*..*..*' exceeded the evaluation budget of 1000000 steps";
    expect(run.task('t')).toMatchObject({ status: 'FAILED_WITH_TERMINAL_ERROR', reasonForIncompletion: reason });
    expect(run.wf).toMatchObject({ status: 'FAILED', reasonForIncompletion: reason });
  });

  it('workflow outputParameters past the budget fail a workflow that would have completed', () => {
    env.jsonPathMaxSteps = 5000;
    const def = workflowDef({ outputParameters: { all: '${workflow.input..*..*}' }, tasks: [simple('t')] });
    const run = new Run(env, def, { input: chain(60) });
    run.complete('t');
    expect(run.wf).toMatchObject({
      status: 'FAILED',
      output: {},
      reasonForIncompletion: expect.stringMatching(/exceeded the evaluation budget of 5000 steps/),
    });
  });

  it('a DO_WHILE whose items go past the budget fails with the reason', () => {
    env.jsonPathMaxDepth = 8;
    const def = workflowDef({
      tasks: [
        {
          name: 'each',
          taskReferenceName: 'each',
          type: 'DO_WHILE',
          items: '${workflow.input..leaf}',
          loopCondition: 'true',
          loopOver: [simple('e')],
          inputParameters: {},
        },
      ],
    });
    const run = new Run(env, def, { input: chain(20) });
    expect(run.task('each')).toMatchObject({
      status: 'FAILED_WITH_TERMINAL_ERROR',
      reasonForIncompletion: "JSONPath expression '$.workflow.input..leaf' reached the depth limit of 8 levels",
    });
    expect(run.wf.status).toBe('FAILED');
  });
});

describe('nested ${...}', () => {
  const lookup: RootLookup = (name) => (name === 'workflow' ? { input: { x: 'x', key: 'x' } } : undefined);

  it('resolves a few levels, and refuses more than 32 with the reason instead of rescanning the string at every level', () => {
    expect(resolveString('${workflow.input.${workflow.input.key}}', lookup)).toBe('x');
    const deep = (n: number) => `${'${'.repeat(n)}workflow.input.x${'}'.repeat(n)}`;
    expect(() => resolveString(deep(32), lookup)).not.toThrow();
    // 8,000 levels overflowed the stack after half a second of rescanning.
    expect(limitOf(() => resolveString(deep(8000), lookup)).message).toBe('Expression nests ${...} more than 32 levels deep');
    expect(limitOf(() => resolveString(`a${deep(8000)}`, lookup)).message).toBe('Expression nests ${...} more than 32 levels deep');
  });
});
