import { parseFreeText, parseQuery, parseSort, QuerySyntaxError, SEARCH_LIMITS } from '../../../src/search/query';

// A search's text, nesting and number of predicates are bounded (each past its bound a QuerySyntaxError, a 400).

const terms = (n: number, sep = ' AND ') => Array.from({ length: n }, (_, i) => `correlationId='c${i}'`).join(sep);

test('the bounds', () => {
  expect(SEARCH_LIMITS).toEqual({ maxTextLength: 4096, maxDepth: 16, maxPredicates: 100, maxValues: 1000, maxSortKeys: 16 });
});

test('query: parentheses nested 16 deep parse, 17 do not', () => {
  const nest = (d: number) => `${'('.repeat(d)}status='RUNNING'${')'.repeat(d)}`;
  expect(parseQuery(nest(16))).toEqual({ op: 'cmp', field: 'status', cmp: '=', value: 'RUNNING' });
  expect(() => parseQuery(nest(17))).toThrow(new QuerySyntaxError('parentheses nested deeper than 16', 16));
  // Depth is nesting, not how many groups there are.
  expect(() => parseQuery(Array.from({ length: 40 }, () => "(status='RUNNING')").join(' OR '))).not.toThrow();
});

test('query: 100 comparisons parse, 101 do not', () => {
  expect(() => parseQuery(terms(100))).not.toThrow();
  expect(() => parseQuery(terms(101, ' OR '))).toThrow(/more than 100 comparisons/);
});

test('query: IN lists hold 1,000 values together', () => {
  const list = (n: number) => Array(n).fill('c').join(',');
  expect(() => parseQuery(`correlationId IN (${list(600)}) OR workflowType IN (${list(400)})`)).not.toThrow();
  expect(() => parseQuery(`correlationId IN (${list(600)}) OR workflowType IN (${list(401)})`)).toThrow(/more than 1000 values in IN lists/);
});

test('query, freeText and sort: 4,096 characters at most', () => {
  expect(() => parseQuery(`correlationId='${'x'.repeat(4096 - 16)}'`)).not.toThrow();
  expect(() => parseQuery(`correlationId='${'x'.repeat(4096 - 15)}'`)).toThrow(new QuerySyntaxError('query is 4097 characters long, over the limit of 4096'));
  expect(() => parseFreeText('x'.repeat(4097))).toThrow(/freeText is 4097 characters long/);
  expect(() => parseSort(`startTime:${' '.repeat(4090)}`)).toThrow(/sort is 4100 characters long/);
});

test('freeText: 100 terms; sort: 16 keys', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i}`).join(' ');
  expect(parseFreeText(words(100))).toMatchObject({ kind: 'terms' });
  expect(() => parseFreeText(words(101))).toThrow(/freeText has more than 100 terms/);
  expect(parseSort(Array(16).fill('startTime').join(','))).toHaveLength(16);
  expect(() => parseSort(Array(17).fill('startTime').join(','))).toThrow(/sort has more than 16 keys/);
});
