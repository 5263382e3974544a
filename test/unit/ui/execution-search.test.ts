import { DEFAULT_FILTERS, countParams, filtersFromParams, paramsFromFilters, quoted, searchParams } from '../../../ui/src/model/execution-search';
import { parseQuery } from '../../../src/search/query';

// The executions page's URL <-> filters <-> API search parameters (pure).

const utc = (s: string): number | undefined => {
  const t = Date.parse(`${s}Z`);
  return Number.isNaN(t) ? undefined : t;
};

describe('execution search filters', () => {
  it('round-trips through the URL, keeping only what differs from the defaults', () => {
    const f = {
      ...DEFAULT_FILTERS,
      name: 'orders',
      statuses: ['RUNNING', 'FAILED'] as any,
      correlationId: 'c-1',
      sort: { field: 'endTime' as const, order: 'ASC' as const },
      page: 2,
      size: 50,
    };
    const p = paramsFromFilters(f);
    expect(p.toString()).toBe('name=orders&status=RUNNING%2CFAILED&correlationId=c-1&sort=endTime%3AASC&page=2&size=50');
    expect(filtersFromParams(p)).toEqual(f);
    expect(paramsFromFilters(DEFAULT_FILTERS).toString()).toBe('');
  });

  it('ignores what it does not know in a URL', () => {
    const f = filtersFromParams(new URLSearchParams('status=NOPE,RUNNING&sort=secret:ASC&page=-3&size=7'));
    expect(f.statuses).toEqual(['RUNNING']);
    expect(f.sort).toEqual(DEFAULT_FILTERS.sort);
    expect(f.page).toBe(0);
    expect(f.size).toBe(DEFAULT_FILTERS.size);
  });

  it('builds a query the API parses, quoting values and ANDing the user query', () => {
    const f = {
      ...DEFAULT_FILTERS,
      name: "o'brien",
      statuses: ['RUNNING'] as any,
      from: '2026-01-02T03:04',
      correlationId: 'x',
      query: 'priority > 5 OR priority < 1',
      text: 'hello',
      page: 1,
      size: 10,
    };
    const p = searchParams(f, utc);
    expect(p).toEqual({
      start: 10,
      size: 10,
      sort: 'startTime:DESC',
      freeText: 'hello',
      query: `workflowType = 'o\\'brien' AND status IN (RUNNING) AND startTime >= ${Date.UTC(2026, 0, 2, 3, 4)} AND correlationId = 'x' AND (priority > 5 OR priority < 1)`,
    });
    expect(() => parseQuery(p.query, 'workflow')).not.toThrow();
    const c = countParams(f, 'FAILED', utc);
    expect(c.size).toBe(0);
    expect(c.query).not.toContain('RUNNING');
    expect(c.query.endsWith('AND status = FAILED')).toBe(true);
    expect(() => parseQuery(c.query, 'workflow')).not.toThrow();
    expect(quoted('a\\b')).toBe("'a\\\\b'");
  });
});
