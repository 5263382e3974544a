import { checkJsonDepth, jsonDepthExceeds } from '../../../src/api/json-depth';
import { ApiError } from '../../../src/services/errors';

// Request bodies nested deeper than BATON_MAX_JSON_DEPTH are refused before anything walks them.

const nested = (depth: number, wrap: (v: unknown) => unknown): unknown => {
  let v: unknown = 1;
  for (let i = 0; i < depth; i++) v = wrap(v);
  return v;
};

test('objects and arrays count alike; the top level is depth 1; scalars have none', () => {
  expect(
    jsonDepthExceeds(
      nested(3, (v) => ({ v })),
      3,
    ),
  ).toBe(false);
  expect(
    jsonDepthExceeds(
      nested(4, (v) => ({ v })),
      3,
    ),
  ).toBe(true);
  expect(
    jsonDepthExceeds(
      nested(4, (v) => [v]),
      3,
    ),
  ).toBe(true);
  // The object beside each array sits one level below it: three such arrays reach depth 4.
  expect(
    jsonDepthExceeds(
      nested(3, (v) => [{ a: 1 }, v]),
      4,
    ),
  ).toBe(false);
  expect(
    jsonDepthExceeds(
      nested(3, (v) => [{ a: 1 }, v]),
      3,
    ),
  ).toBe(true);
  for (const scalar of ['text', 5, null, true, undefined]) expect(jsonDepthExceeds(scalar, 1)).toBe(false);
  expect(jsonDepthExceeds({}, 1)).toBe(false);
});

test('the deepest branch counts, wherever it is', () => {
  const wide = { a: 1, b: [1, 2, { c: { d: [[{ e: 1 }]] } }], f: 'x' }; // b > [] > {} > c{} > d[] > [] > {}: depth 7
  expect(jsonDepthExceeds(wide, 7)).toBe(false);
  expect(jsonDepthExceeds(wide, 6)).toBe(true);
});

test('a body a million levels deep is checked without overflowing the stack', () => {
  const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
  expect(jsonDepthExceeds(deep, 128)).toBe(true);
  expect(() => checkJsonDepth(deep, 128)).toThrow(new ApiError(400, 'JSON body nested deeper than 128 levels (BATON_MAX_JSON_DEPTH)'));
});
