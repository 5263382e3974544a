import { parseQuery, QuerySyntaxError, toEpochMillis, TASK_SEARCH_FIELDS, WORKFLOW_SEARCH_FIELDS } from '../../../src/search/query';

const T = Date.UTC(2024, 0, 1);

function syntaxError(text: string, target: 'workflow' | 'task' = 'workflow'): QuerySyntaxError {
  try {
    parseQuery(text, target);
  } catch (err) {
    expect(err).toBeInstanceOf(QuerySyntaxError);
    return err as QuerySyntaxError;
  }
  throw new Error(`expected a syntax error for: ${text}`);
}

describe('parseQuery', () => {
  it('returns undefined for blank text', () => {
    expect(parseQuery('')).toBeUndefined();
    expect(parseQuery('   ')).toBeUndefined();
  });

  it.each([
    ['=', "status='RUNNING'"],
    ['!=', "status!='RUNNING'"],
    ['>', "status>'RUNNING'"],
    ['<', "status<'RUNNING'"],
    ['>=', "status>='RUNNING'"],
    ['<=', "status<='RUNNING'"],
  ] as const)('parses the comparison %s', (cmp, text) => {
    expect(parseQuery(text)).toEqual({ op: 'cmp', field: 'status', cmp, value: 'RUNNING' });
  });

  it('accepts single-quoted, double-quoted and bare values, with spaces around the operator', () => {
    const expected = { op: 'cmp', field: 'workflowType', cmp: '=', value: 'order flow' };
    expect(parseQuery("workflowType = 'order flow'")).toEqual(expected);
    expect(parseQuery('workflowType="order flow"')).toEqual(expected);
    expect(parseQuery('status=RUNNING')).toEqual({ op: 'cmp', field: 'status', cmp: '=', value: 'RUNNING' });
  });

  it('unescapes backslash escapes in quoted values', () => {
    expect(parseQuery("correlationId='it\\'s'")).toEqual({ op: 'cmp', field: 'correlationId', cmp: '=', value: "it's" });
    expect(parseQuery('correlationId="a\\"b\\\\c"')).toEqual({ op: 'cmp', field: 'correlationId', cmp: '=', value: 'a"b\\c' });
    expect(parseQuery('correlationId="x AND y OR (z)"')).toEqual({ op: 'cmp', field: 'correlationId', cmp: '=', value: 'x AND y OR (z)' });
  });

  it('types values by field: numbers for number fields, text kept as written for keyword fields', () => {
    expect(parseQuery('version=2')).toEqual({ op: 'cmp', field: 'version', cmp: '=', value: 2 });
    expect(parseQuery("priority>='5'")).toEqual({ op: 'cmp', field: 'priority', cmp: '>=', value: 5 });
    expect(parseQuery('executionTime < 1.5e3')).toEqual({ op: 'cmp', field: 'executionTime', cmp: '<', value: 1500 });
    expect(parseQuery('correlationId=007')).toEqual({ op: 'cmp', field: 'correlationId', cmp: '=', value: '007' });
  });

  it('accepts epoch millis and ISO-8601 times in time fields, as epoch millis', () => {
    expect(parseQuery(`startTime>${T}`)).toEqual({ op: 'cmp', field: 'startTime', cmp: '>', value: T });
    expect(parseQuery("startTime>'2024-01-01T00:00:00.000Z'")).toEqual({ op: 'cmp', field: 'startTime', cmp: '>', value: T });
    expect(parseQuery('endTime<=2024-01-01T00:00:00Z')).toEqual({ op: 'cmp', field: 'endTime', cmp: '<=', value: T });
    expect(parseQuery("updateTime='2024-01-01'")).toEqual({ op: 'cmp', field: 'updateTime', cmp: '=', value: T });
  });

  it('parses IN lists of bare, quoted and numeric items', () => {
    expect(parseQuery('status IN (RUNNING, PAUSED)')).toEqual({ op: 'in', field: 'status', values: ['RUNNING', 'PAUSED'] });
    expect(parseQuery(`workflowType in ('a b', "c,d",e)`)).toEqual({ op: 'in', field: 'workflowType', values: ['a b', 'c,d', 'e'] });
    expect(parseQuery('version IN (1)')).toEqual({ op: 'in', field: 'version', values: [1] });
  });

  it('parses IS NULL and IS NOT NULL in any case', () => {
    expect(parseQuery('correlationId IS NULL')).toEqual({ op: 'isNull', field: 'correlationId', negated: false });
    expect(parseQuery('correlationId IS null')).toEqual({ op: 'isNull', field: 'correlationId', negated: false });
    expect(parseQuery('endTime IS NOT NULL')).toEqual({ op: 'isNull', field: 'endTime', negated: true });
    expect(parseQuery('endTime is not null')).toEqual({ op: 'isNull', field: 'endTime', negated: true });
  });

  it('parses BETWEEN on number and time fields', () => {
    expect(parseQuery(`startTime BETWEEN ${T} AND ${T + 1000}`)).toEqual({ op: 'between', field: 'startTime', low: T, high: T + 1000 });
    expect(parseQuery("startTime between '2024-01-01' and '2024-01-01T00:00:01Z'")).toEqual({
      op: 'between',
      field: 'startTime',
      low: T,
      high: T + 1000,
    });
    expect(parseQuery('version BETWEEN 1 AND 3')).toEqual({ op: 'between', field: 'version', low: 1, high: 3 });
  });

  it('parses STARTS_WITH', () => {
    expect(parseQuery("workflowType STARTS_WITH 'order_'")).toEqual({ op: 'startsWith', field: 'workflowType', value: 'order_' });
    expect(parseQuery('workflowId starts_with abc')).toEqual({ op: 'startsWith', field: 'workflowId', value: 'abc' });
  });

  it('binds AND tighter than OR, left to right', () => {
    const a = { op: 'cmp', field: 'status', cmp: '=', value: 'A' };
    const b = { op: 'cmp', field: 'status', cmp: '=', value: 'B' };
    const c = { op: 'cmp', field: 'status', cmp: '=', value: 'C' };
    expect(parseQuery('status=A AND status=B OR status=C')).toEqual({ op: 'or', left: { op: 'and', left: a, right: b }, right: c });
    expect(parseQuery('status=A OR status=B AND status=C')).toEqual({ op: 'or', left: a, right: { op: 'and', left: b, right: c } });
    expect(parseQuery('status=A and status=B and status=C')).toEqual({ op: 'and', left: { op: 'and', left: a, right: b }, right: c });
  });

  it('groups with parentheses', () => {
    const a = { op: 'cmp', field: 'status', cmp: '=', value: 'A' };
    const b = { op: 'cmp', field: 'status', cmp: '=', value: 'B' };
    const c = { op: 'cmp', field: 'status', cmp: '=', value: 'C' };
    expect(parseQuery('status=A AND (status=B OR status=C)')).toEqual({ op: 'and', left: a, right: { op: 'or', left: b, right: c } });
    expect(parseQuery('((status=A))')).toEqual(a);
  });

  it('finds field names case-insensitively and reports them in canonical form', () => {
    expect(parseQuery('WORKFLOWTYPE=x')).toEqual({ op: 'cmp', field: 'workflowType', cmp: '=', value: 'x' });
  });

  it('uses the task field list for task searches', () => {
    expect(parseQuery("taskType='HTTP'", 'task')).toEqual({ op: 'cmp', field: 'taskType', cmp: '=', value: 'HTTP' });
    expect(parseQuery(`scheduledTime>${T}`, 'task')).toEqual({ op: 'cmp', field: 'scheduledTime', cmp: '>', value: T });
    expect(syntaxError("taskType='HTTP'").message).toMatch(/unknown field 'taskType'/);
    expect(syntaxError('version=1', 'task').message).toMatch(/unknown field 'version' for task search/);
  });

  it.each([
    ["foo='x'", /unknown field 'foo'/, 0],
    ["status='x", /unterminated single-quoted string/, 7],
    ['status="x', /unterminated double-quoted string/, 7],
    ['status', /expected an operator/, 6],
    ['status ~ x', /expected an operator/, 7],
    ['status =', /expected a value after '='/, 8],
    ["status='A' AND", /expected a field name but found end of query/, 14],
    ["status='A' status='B'", /unexpected 'status'/, 11],
    ["(status='A'", /expected '\)'/, 11],
    ["status='A')", /unexpected '\)'/, 10],
    ['status ! x', /expected '=' after '!'/, 7],
    ['status IN RUNNING', /expected '\(' after IN/, 10],
    ['status IN ()', /expected a value after '\('/, 11],
    ['status IN (A B)', /expected ',' or '\)' in IN list/, 13],
    ['status IN (A,', /expected a value after ','/, 13],
    ['status IS', /expected NULL or NOT NULL after IS/, 9],
    ['status IS NOT', /expected NULL or NOT NULL/, 13],
    ['startTime BETWEEN 1', /expected AND in BETWEEN/, 19],
    ['startTime BETWEEN 1 AND', /expected a value after 'AND'/, 23],
    ['status BETWEEN a AND b', /BETWEEN needs a number or time field/, 7],
    ['version STARTS_WITH 1', /STARTS_WITH needs a text field/, 8],
    ['version=abc', /field 'version' takes a number, got 'abc'/, 8],
    ["startTime>'yesterday'", /field 'startTime' takes epoch millis or an ISO-8601 time/, 10],
    ["startTime>'2024-02-31'", /takes epoch millis or an ISO-8601 time/, 10],
    ["'status'='x'", /expected a field name but found quoted string/, 0],
  ])('rejects %s', (text, message, position) => {
    const err = syntaxError(text);
    expect(err.message).toMatch(message);
    expect(err.position).toBe(position);
    expect(err.message).toMatch(new RegExp(`at position ${position}$`));
  });

  it('exports the searchable fields of workflows and tasks', () => {
    expect(Object.keys(WORKFLOW_SEARCH_FIELDS)).toEqual(
      expect.arrayContaining([
        'workflowId',
        'workflowType',
        'version',
        'correlationId',
        'status',
        'startTime',
        'updateTime',
        'endTime',
        'reasonForIncompletion',
        'executionTime',
        'event',
        'priority',
        'parentWorkflowId',
        'createdBy',
      ]),
    );
    expect(Object.keys(TASK_SEARCH_FIELDS)).toEqual(
      expect.arrayContaining([
        'taskId',
        'taskType',
        'taskDefName',
        'status',
        'workflowId',
        'workflowType',
        'correlationId',
        'scheduledTime',
        'startTime',
        'updateTime',
        'endTime',
        'domain',
      ]),
    );
  });
});

describe('toEpochMillis', () => {
  it('reads epoch millis and ISO-8601 forms, UTC unless a zone is given', () => {
    expect(toEpochMillis('1700000000000')).toBe(1_700_000_000_000);
    expect(toEpochMillis('2024-01-01')).toBe(T);
    expect(toEpochMillis('2024-01-01T00:00')).toBe(T);
    expect(toEpochMillis('2024-01-01 00:00:00.5')).toBe(T + 500);
    expect(toEpochMillis('2024-01-01T00:00:00.123456789Z')).toBe(T + 123);
    expect(toEpochMillis('2024-01-01T02:00:00+02:00')).toBe(T);
    expect(toEpochMillis('2023-12-31T19:00:00-0500')).toBe(T);
  });

  it('rejects what is not a time', () => {
    for (const text of ['', 'now', '2024-13-01', '2024-01-01T25:00:00Z', '01/01/2024']) expect(toEpochMillis(text)).toBeUndefined();
  });
});
