import { freeTextToEs, toEsQuery, toEsSearch, toEsSort, wildcardPattern } from '../../../src/search/elasticsearch/es-query';
import { MAPPINGS, indexTemplate } from '../../../src/search/elasticsearch/es-mappings';
import type { QueryAst } from '../../../src/search/ports';
import { parseFreeText, parseQuery, parseSort, QuerySyntaxError, TASK_SEARCH_FIELDS, WORKFLOW_SEARCH_FIELDS } from '../../../src/search/query';

const T = Date.UTC(2024, 0, 1);
const q = (text: string, target: 'workflow' | 'task' = 'workflow') => toEsQuery(parseQuery(text, target)!, target);

describe('toEsQuery', () => {
  it('translates = to a term query on keyword and number fields', () => {
    expect(q("status='RUNNING'")).toEqual({ term: { status: 'RUNNING' } });
    expect(q('version=2')).toEqual({ term: { version: 2 } });
  });

  it('translates = on a time field to a one-millisecond range in epoch millis', () => {
    expect(q("startTime='2024-01-01T00:00:00Z'")).toEqual({ range: { startTime: { gte: T, lte: T, format: 'epoch_millis' } } });
  });

  it('translates != to must_not, so documents without the field match too', () => {
    expect(q("correlationId!='x'")).toEqual({ bool: { must_not: [{ term: { correlationId: 'x' } }] } });
  });

  it.each([
    ['>', 'gt'],
    ['>=', 'gte'],
    ['<', 'lt'],
    ['<=', 'lte'],
  ])('translates %s to a %s range', (op, bound) => {
    expect(q(`startTime${op}${T}`)).toEqual({ range: { startTime: { [bound]: T, format: 'epoch_millis' } } });
    expect(q(`priority${op}5`)).toEqual({ range: { priority: { [bound]: 5 } } });
    expect(q(`workflowId${op}m`)).toEqual({ range: { workflowId: { [bound]: 'm' } } });
  });

  it('translates IN to terms, and IN on times to a should of exact ranges', () => {
    expect(q('status IN (RUNNING, PAUSED)')).toEqual({ terms: { status: ['RUNNING', 'PAUSED'] } });
    expect(q('version IN (1,2)')).toEqual({ terms: { version: [1, 2] } });
    expect(q(`endTime IN (${T})`)).toEqual({
      bool: { should: [{ range: { endTime: { gte: T, lte: T, format: 'epoch_millis' } } }], minimum_should_match: 1 },
    });
  });

  it('translates IS NULL / IS NOT NULL to (must_not) exists', () => {
    expect(q('correlationId IS NULL')).toEqual({ bool: { must_not: [{ exists: { field: 'correlationId' } }] } });
    expect(q('correlationId IS NOT NULL')).toEqual({ exists: { field: 'correlationId' } });
  });

  it('translates BETWEEN to an inclusive range', () => {
    expect(q(`startTime BETWEEN ${T} AND ${T + 5}`)).toEqual({ range: { startTime: { gte: T, lte: T + 5, format: 'epoch_millis' } } });
    expect(q('version BETWEEN 1 AND 3')).toEqual({ range: { version: { gte: 1, lte: 3 } } });
  });

  it('translates STARTS_WITH to a prefix query', () => {
    expect(q("workflowType STARTS_WITH 'ord'")).toEqual({ prefix: { workflowType: { value: 'ord' } } });
  });

  it('translates AND to a filter and OR to a should, flattening chains and keeping precedence', () => {
    expect(q('status=A AND status=B AND version=1')).toEqual({
      bool: { filter: [{ term: { status: 'A' } }, { term: { status: 'B' } }, { term: { version: 1 } }] },
    });
    expect(q('status=A AND status=B OR status=C OR status=D')).toEqual({
      bool: {
        should: [{ bool: { filter: [{ term: { status: 'A' } }, { term: { status: 'B' } }] } }, { term: { status: 'C' } }, { term: { status: 'D' } }],
        minimum_should_match: 1,
      },
    });
    expect(q('status=A AND (status=B OR status=C)')).toEqual({
      bool: {
        filter: [{ term: { status: 'A' } }, { bool: { should: [{ term: { status: 'B' } }, { term: { status: 'C' } }], minimum_should_match: 1 } }],
      },
    });
  });

  it('translates task fields for task searches', () => {
    expect(q("taskType='HTTP' AND queueWaitTime>10", 'task')).toEqual({
      bool: { filter: [{ term: { taskType: 'HTTP' } }, { range: { queueWaitTime: { gt: 10 } } }] },
    });
  });

  it('rejects a hand-built AST naming a field that is not searchable, or a value of the wrong kind', () => {
    expect(() => toEsQuery({ op: 'cmp', field: 'input', cmp: '=', value: 'x' })).toThrow(QuerySyntaxError);
    expect(() => toEsQuery({ op: 'cmp', field: 'taskType', cmp: '=', value: 'x' }, 'workflow')).toThrow(/unknown field 'taskType'/);
    expect(() => toEsQuery({ op: 'cmp', field: 'version', cmp: '=', value: 'two' } as QueryAst)).toThrow(/takes a number/);
    expect(toEsQuery({ op: 'cmp', field: 'startTime', cmp: '>', value: '2024-01-01' })).toEqual({
      range: { startTime: { gt: T, format: 'epoch_millis' } },
    });
  });
});

describe('freeTextToEs', () => {
  it('matches everything for *', () => {
    expect(freeTextToEs({ kind: 'all' })).toEqual({ match_all: {} });
  });

  it('translates field:value to an exact term, or to a case-insensitive wildcard when it has *', () => {
    expect(freeTextToEs(parseFreeText('workflowType:order_flow'))).toEqual({ term: { workflowType: 'order_flow' } });
    expect(freeTextToEs(parseFreeText('correlationId:ord?r-*'))).toEqual({
      wildcard: { correlationId: { value: 'ord\\?r-*', case_insensitive: true } },
    });
    expect(freeTextToEs(parseFreeText('version:2'))).toEqual({ term: { version: 2 } });
    expect(freeTextToEs(parseFreeText(`startTime:${T}`))).toEqual({ range: { startTime: { gte: T, lte: T, format: 'epoch_millis' } } });
  });

  it('matches a word by substring in keyword fields and as a phrase in input/output', () => {
    const wc = (field: string) => ({ wildcard: { [field]: { value: '*order-1*', case_insensitive: true } } });
    expect(freeTextToEs(parseFreeText('order-1'))).toEqual({
      bool: {
        should: [
          wc('workflowId'),
          wc('correlationId'),
          wc('workflowType'),
          wc('reasonForIncompletion'),
          { match_phrase: { input: 'order-1' } },
          { match_phrase: { output: 'order-1' } },
        ],
        minimum_should_match: 1,
      },
    });
  });

  it('turns a word with * into token patterns on input/output', () => {
    const query = freeTextToEs(parseFreeText('ali*')) as { bool: { should: unknown[] } };
    expect(query.bool.should).toContainEqual({ wildcard: { input: { value: 'ali*', case_insensitive: true } } });
    expect(query.bool.should).toContainEqual({ wildcard: { workflowId: { value: '*ali*', case_insensitive: true } } });
  });

  it('AND-s several terms as filters', () => {
    const query = freeTextToEs(parseFreeText('workflowType:x status:RUNNING')) as { bool: { filter: unknown[] } };
    expect(query).toEqual({ bool: { filter: [{ term: { workflowType: 'x' } }, { term: { status: 'RUNNING' } }] } });
  });

  it('looks for task words in task fields', () => {
    const query = freeTextToEs(parseFreeText('visa', 'task'), 'task') as { bool: { should: Array<Record<string, unknown>> } };
    const fields = query.bool.should.map((s) => Object.keys(Object.values(s)[0] as object)[0]);
    expect(fields).toEqual(['taskId', 'workflowId', 'taskType', 'taskDefName', 'correlationId', 'reasonForIncompletion', 'input', 'output']);
  });
});

describe('wildcardPattern', () => {
  it('escapes ? and backslash and keeps *', () => {
    expect(wildcardPattern('a?b\\c*')).toBe('a\\?b\\\\c*');
  });
});

describe('toEsSort', () => {
  it('defaults to newest first with the id as tiebreaker', () => {
    expect(toEsSort([])).toEqual([{ startTime: { order: 'desc', missing: '_last' } }, { workflowId: { order: 'asc' } }]);
    expect(toEsSort([], 'task')).toEqual([{ scheduledTime: { order: 'desc', missing: '_last' } }, { taskId: { order: 'asc' } }]);
  });

  it('keeps the requested keys in order, missing values last, and does not repeat the id', () => {
    expect(toEsSort(parseSort('workflowType:ASC|DESC:endTime'))).toEqual([
      { workflowType: { order: 'asc', missing: '_last' } },
      { endTime: { order: 'desc', missing: '_last' } },
      { workflowId: { order: 'asc' } },
    ]);
    expect(toEsSort(parseSort('workflowId:DESC'))).toEqual([{ workflowId: { order: 'desc', missing: '_last' } }]);
  });

  it('rejects a field that is not sortable', () => {
    expect(() => toEsSort([{ field: 'input', order: 'ASC' }])).toThrow(QuerySyntaxError);
  });
});

describe('toEsSearch', () => {
  it('filters by freeText and query together', () => {
    const req = { query: parseQuery("status='FAILED'"), freeText: parseFreeText('workflowType:x'), sort: [] };
    expect(toEsSearch('workflow', req).query).toEqual({ bool: { filter: [{ term: { workflowType: 'x' } }, { term: { status: 'FAILED' } }] } });
  });

  it('matches all when neither is given', () => {
    expect(toEsSearch('workflow', { freeText: { kind: 'all' }, sort: [] }).query).toEqual({ match_all: {} });
  });
});

describe('mappings', () => {
  const esType = { keyword: 'keyword', number: ['integer', 'long'], time: 'date' } as const;
  it.each([
    ['workflow', WORKFLOW_SEARCH_FIELDS],
    ['task', TASK_SEARCH_FIELDS],
  ] as const)('map every searchable %s field with a type that fits its kind', (target, fields) => {
    const properties = MAPPINGS[target].properties as Record<string, { type: string }>;
    for (const [field, kind] of Object.entries(fields)) {
      const expected = esType[kind];
      expect([field, properties[field]?.type]).toEqual([field, Array.isArray(expected) ? expect.stringMatching(/^(integer|long)$/) : expected]);
    }
    expect(properties.input!.type).toBe('text');
    expect(properties.output!.type).toBe('text');
  });

  it('builds a template for the versioned indices behind the alias', () => {
    const t = indexTemplate('baton', 'workflow', '1s');
    expect(t.name).toBe('baton_workflow_template');
    expect(t.index_patterns).toEqual(['baton_workflow_v*']);
    expect(t.template?.settings).toEqual({ index: { refresh_interval: '1s' } });
    expect(t.template?.mappings).toBe(MAPPINGS.workflow);
  });
});
