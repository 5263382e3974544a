import { parseFreeText, parseSort, QuerySyntaxError } from '../../../src/search/query';

const T = Date.UTC(2024, 0, 1);

describe('parseFreeText', () => {
  it('treats missing, blank and * as everything', () => {
    for (const text of [undefined, '', '   ', '*', ' * * ']) expect(parseFreeText(text)).toEqual({ kind: 'all' });
  });

  it('splits words on whitespace', () => {
    expect(parseFreeText('alice  order-123\tshipped')).toEqual({
      kind: 'terms',
      terms: [{ value: 'alice' }, { value: 'order-123' }, { value: 'shipped' }],
    });
  });

  it('keeps quoted phrases whole, with escapes', () => {
    expect(parseFreeText(`"card declined" 'it\\'s' "a:b"`)).toEqual({
      kind: 'terms',
      terms: [{ value: 'card declined' }, { value: "it's" }, { value: 'a:b' }],
    });
  });

  it('reads field:value terms, bare or quoted, with canonical field names', () => {
    expect(parseFreeText('workflowType:order_flow correlationid:"order 1" status:\'RUNNING\'')).toEqual({
      kind: 'terms',
      terms: [
        { field: 'workflowType', value: 'order_flow' },
        { field: 'correlationId', value: 'order 1' },
        { field: 'status', value: 'RUNNING' },
      ],
    });
  });

  it('keeps * in values as a wildcard on keyword fields', () => {
    expect(parseFreeText('correlationId:order-* ali*')).toEqual({
      kind: 'terms',
      terms: [{ field: 'correlationId', value: 'order-*' }, { value: 'ali*' }],
    });
  });

  it('normalises number and time field values', () => {
    expect(parseFreeText('version:2 startTime:2024-01-01T00:00:00Z')).toEqual({
      kind: 'terms',
      terms: [
        { field: 'version', value: '2' },
        { field: 'startTime', value: String(T) },
      ],
    });
  });

  it('drops AND between terms, which are AND-ed anyway', () => {
    expect(parseFreeText('alice AND bob && carol')).toEqual({ kind: 'terms', terms: [{ value: 'alice' }, { value: 'bob' }, { value: 'carol' }] });
  });

  it('uses the task field list for task searches', () => {
    expect(parseFreeText('taskType:HTTP', 'task')).toEqual({ kind: 'terms', terms: [{ field: 'taskType', value: 'HTTP' }] });
    expect(() => parseFreeText('taskType:HTTP')).toThrow(/unknown field 'taskType' for workflow search/);
  });

  it.each([
    ['foo:bar', /unknown field 'foo'/],
    ['http://example.com', /unknown field 'http'/],
    ['status:', /expected a value after 'status:'/],
    ['alice OR bob', /'OR' is not supported/],
    ['NOT alice', /'NOT' is not supported/],
    ['"open', /unterminated double-quoted string/],
    ['version:abc', /field 'version' takes a number/],
    ['version:1*', /wildcards apply to text fields only/],
  ])('rejects %s', (text, message) => {
    expect(() => parseFreeText(text)).toThrow(QuerySyntaxError);
    expect(() => parseFreeText(text)).toThrow(message);
  });
});

describe('parseSort', () => {
  it('returns no keys for missing or blank sort', () => {
    expect(parseSort()).toEqual([]);
    expect(parseSort('')).toEqual([]);
    expect(parseSort(' | ')).toEqual([]);
  });

  it('reads field, field:ORDER and ORDER:field, ascending by default', () => {
    expect(parseSort('startTime')).toEqual([{ field: 'startTime', order: 'ASC' }]);
    expect(parseSort('startTime:DESC')).toEqual([{ field: 'startTime', order: 'DESC' }]);
    expect(parseSort('startTime:asc')).toEqual([{ field: 'startTime', order: 'ASC' }]);
    expect(parseSort('DESC:startTime')).toEqual([{ field: 'startTime', order: 'DESC' }]);
    expect(parseSort('asc:workflowtype')).toEqual([{ field: 'workflowType', order: 'ASC' }]);
  });

  it('reads several keys separated by | or ,', () => {
    const expected = [
      { field: 'workflowType', order: 'ASC' },
      { field: 'startTime', order: 'DESC' },
      { field: 'workflowId', order: 'ASC' },
    ];
    expect(parseSort('workflowType:ASC|startTime:DESC|workflowId')).toEqual(expected);
    expect(parseSort('workflowType:ASC, DESC:startTime ,workflowId')).toEqual(expected);
  });

  it('uses the task field list for task searches', () => {
    expect(parseSort('scheduledTime:DESC', 'task')).toEqual([{ field: 'scheduledTime', order: 'DESC' }]);
    expect(() => parseSort('scheduledTime:DESC')).toThrow(/unknown sort field 'scheduledTime'/);
  });

  it.each([
    ['startTime:UP', /invalid sort order 'UP'/],
    ['startTime:', /invalid sort order ''/],
    ['nope:ASC', /unknown sort field 'nope'/],
    ['DESC:nope', /unknown sort field 'nope'/],
    ['a:b:c', /invalid sort key 'a:b:c'/],
    ['input', /unknown sort field 'input'/],
  ])('rejects %s', (text, message) => {
    expect(() => parseSort(text)).toThrow(QuerySyntaxError);
    expect(() => parseSort(text)).toThrow(message);
  });

  it('names the position of the bad key', () => {
    expect(() => parseSort('startTime:ASC|nope')).toThrow(/at position 14$/);
  });
});
