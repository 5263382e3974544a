import { likePattern, orderByOf, whereOf, whereOfFreeText, whereOfQuery } from '../../../src/search/sqlite/sql-query';
import { parseFreeText, parseQuery, parseSort, QuerySyntaxError } from '../../../src/search/query';

const T = Date.UTC(2024, 0, 1);
const w = (text: string, target: 'workflow' | 'task' = 'workflow') => whereOfQuery(parseQuery(text, target)!, target);

describe('whereOfQuery', () => {
  it('binds every value as a parameter and maps fields to columns', () => {
    expect(w(`workflowType="x'; DROP TABLE idx_workflow; --" AND version>=2`)).toEqual({
      sql: '(workflow_type = ? AND version >= ?)',
      params: ["x'; DROP TABLE idx_workflow; --", 2],
    });
  });

  it('translates each operator', () => {
    expect(w("correlationId!='c'")).toEqual({ sql: '(correlation_id IS NULL OR correlation_id <> ?)', params: ['c'] });
    expect(w('status IN (A, B)')).toEqual({ sql: 'status IN (?, ?)', params: ['A', 'B'] });
    expect(w('endTime IS NULL')).toEqual({ sql: 'end_time IS NULL', params: [] });
    expect(w('endTime IS NOT NULL')).toEqual({ sql: 'end_time IS NOT NULL', params: [] });
    expect(w(`startTime BETWEEN ${T} AND '2024-01-02'`)).toEqual({ sql: 'start_time BETWEEN ? AND ?', params: [T, T + 86_400_000] });
    expect(w("workflowId STARTS_WITH 'ab%'")).toEqual({ sql: 'instr(workflow_id, ?) = 1', params: ['ab%'] });
    expect(w('status=A OR status=B AND version<3')).toEqual({
      sql: '(status = ? OR (status = ? AND version < ?))',
      params: ['A', 'B', 3],
    });
  });

  it('uses task columns for task searches', () => {
    expect(w("taskDefName='d' AND queueWaitTime>0", 'task')).toEqual({ sql: '(task_def_name = ? AND queue_wait_time > ?)', params: ['d', 0] });
  });

  it('rejects fields that are not searchable, whatever built the AST', () => {
    expect(() => whereOfQuery({ op: 'isNull', field: 'summary; --', negated: false }, 'workflow')).toThrow(QuerySyntaxError);
  });
});

describe('whereOfFreeText', () => {
  it('matches all for *', () => {
    expect(whereOfFreeText({ kind: 'all' }, 'workflow')).toEqual({ sql: '1', params: [] });
  });

  it('uses equality for plain field terms and LIKE for wildcards', () => {
    expect(whereOfFreeText(parseFreeText('workflowType:a_b status:RUN*'), 'workflow')).toEqual({
      sql: "workflow_type = ? AND status LIKE ? ESCAPE '\\'",
      params: ['a_b', 'RUN%'],
    });
  });

  it('looks for words in every text column', () => {
    const where = whereOfFreeText(parseFreeText('50%'), 'task');
    expect(where.sql.match(/LIKE \?/g)).toHaveLength(8);
    expect(new Set(where.params)).toEqual(new Set(['%50\\%%']));
  });
});

describe('likePattern', () => {
  it('escapes LIKE metacharacters and turns * into %', () => {
    expect(likePattern('a_b%c\\d*')).toBe('a\\_b\\%c\\\\d%');
  });
});

describe('orderByOf', () => {
  it('defaults to newest first per target, with the id as tiebreaker', () => {
    expect(orderByOf('workflow', [])).toBe('start_time DESC, workflow_id ASC');
    expect(orderByOf('task', [])).toBe('scheduled_time DESC, task_id ASC');
  });

  it('puts NULLs last for nullable columns in both orders', () => {
    expect(orderByOf('workflow', parseSort('correlationId:DESC|startTime'))).toBe(
      '(correlation_id IS NULL), correlation_id DESC, start_time ASC, workflow_id ASC',
    );
    expect(orderByOf('workflow', parseSort('workflowId:DESC'))).toBe('workflow_id DESC');
  });
});

describe('whereOf', () => {
  it('joins query and freeText', () => {
    expect(whereOf('workflow', parseQuery('version=1'), parseFreeText('status:X'))).toEqual({
      sql: 'version = ? AND status = ?',
      params: [1, 'X'],
    });
  });
});
