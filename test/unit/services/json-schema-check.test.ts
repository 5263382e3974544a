import { schemaProblem, schemaRefusal, schemaViolations, violationText } from '../../../src/services/json-schema-check';

const schema = (data: Record<string, unknown>, type: 'JSON' | 'AVRO' = 'JSON') => ({ name: 's', version: 1, type, data });

describe('schemaViolations', () => {
  const order = schema({
    $schema: 'http://json-schema.org/draft-07/schema#',
    type: 'object',
    required: ['id'],
    properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' } },
  });

  it('is empty for a conforming value', () => {
    expect(schemaViolations(order, { id: 1, email: 'a@example.com' })).toEqual([]);
  });

  it('lists every violation with its place in the value', () => {
    const v = schemaViolations(order, { email: 'nope' });
    expect(v).toEqual(
      expect.arrayContaining([
        { path: '/', message: "must have required property 'id'" },
        { path: '/email', message: 'must match format "email"' },
      ]),
    );
    expect(violationText([{ path: '/id', message: 'must be integer' }])).toBe('/id must be integer');
  });

  it('checks only JSON schemas', () => {
    expect(schemaViolations(schema({ type: 'record' }, 'AVRO'), 42)).toEqual([]);
  });

  it('a schema that does not compile (stored, as Orkes stores it) is a violation of every value, saying why, each time', () => {
    // The Python SDK's own suite saves a SchemaDef wrapped as data: `type: "JSON"` is no JSON Schema type.
    const wrapped = schema({ name: 'schema-test', type: 'JSON', data: { type: 'object' } });
    expect(schemaRefusal(wrapped.data)).toBeUndefined();
    for (const value of [{}, 'x'])
      expect(schemaViolations(wrapped, value)).toEqual([{ path: '/', message: expect.stringMatching(/^the schema is not a usable JSON Schema: .*type/) }]);
  });
});

describe('schemaProblem', () => {
  it('names what makes data unusable as a JSON schema', () => {
    expect(schemaProblem({ type: 'object' })).toBeUndefined();
    expect(schemaProblem({ type: 'no-such-type' })).toMatch(/type/);
  });
});

describe('user patterns run with RE2 semantics (linear time), never backtracking', () => {
  const evil = '^(a+)+$';

  it('pattern: the exponential pattern over 5,000 characters gets the right answer', () => {
    const s = schema({ type: 'object', properties: { s: { type: 'string', pattern: evil } } });
    // A backtracking engine would try about 2^5000 ways before answering.
    expect(schemaViolations(s, { s: `${'a'.repeat(5000)}b` })).toEqual([{ path: '/s', message: `must match pattern "${evil}"` }]);
    expect(schemaViolations(s, { s: 'a'.repeat(5000) })).toEqual([]);
  });

  it('patternProperties keys run with RE2 too', () => {
    const s = schema({ type: 'object', patternProperties: { [evil]: { type: 'integer' } } });
    expect(schemaViolations(s, { [`${'a'.repeat(5000)}b`]: 'x' })).toEqual([]);
    expect(schemaViolations(s, { ['a'.repeat(5000)]: 'x' })).toEqual([{ path: `/${'a'.repeat(5000)}`, message: 'must be integer' }]);
  });

  it('a schema whose pattern or patternProperties key needs backtracking is not usable, saying why', () => {
    expect(schemaProblem({ type: 'string', pattern: '(a)\\1' })).toMatch(/cannot run in linear time.*backreferences or lookaround/);
    expect(schemaProblem({ type: 'object', patternProperties: { '^(?!x)': {} } })).toMatch(/cannot run in linear time/);
    expect(schemaProblem({ type: 'string', pattern: '^[a-z]+$' })).toBeUndefined();
    // Saving refuses these, and only these.
    expect(schemaRefusal({ type: 'string', pattern: '(a)\\1' })).toMatch(/cannot run in linear time/);
    expect(schemaRefusal({ type: 'no-such-type' })).toBeUndefined();
    // One stored before such patterns were refused is a violation of every value, never run.
    expect(schemaViolations(schema({ type: 'string', pattern: '(a)\\1' }), 'aa')).toEqual([
      { path: '/', message: expect.stringMatching(/cannot run in linear time/) },
    ]);
  });

  it('a value too long for its pattern is a violation, not a stall', () => {
    const s = schema({ type: 'string', pattern: '^[a-z]{1,1000}$' });
    const [v] = schemaViolations(s, 'a'.repeat(1_000_000));
    expect(v).toEqual({ path: '/', message: expect.stringMatching(/a string of 1000000 characters cannot be checked against pattern/) });
  });

  it('the url format is parsed in linear time: 200,000 colons are refused, real URLs accepted', () => {
    const s = schema({ type: 'string', format: 'url' });
    // ajv-formats' url regex takes seconds here, and hours at a few megabytes.
    expect(schemaViolations(s, `http://${':'.repeat(200_000)}`)).toEqual([{ path: '/', message: 'must match format "url"' }]);
    expect(schemaViolations(s, 'https://example.com/a?b=c#d')).toEqual([]);
    expect(schemaViolations(s, 'ftp://files.example.com/x')).toEqual([]);
    expect(schemaViolations(s, 'mailto:ann@example.com')).toEqual([{ path: '/', message: 'must match format "url"' }]);
    expect(schemaViolations(s, 'not a url')).toEqual([{ path: '/', message: 'must match format "url"' }]);
  });
});
