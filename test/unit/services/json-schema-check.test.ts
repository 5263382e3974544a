import { schemaProblem, schemaViolations, violationText } from '../../../src/services/json-schema-check';

const schema = (data: Record<string, unknown>, type: 'JSON' | 'AVRO' = 'JSON') => ({ name: 's', version: 1, type, data });

describe('schemaViolations', () => {
  const order = schema({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: ['id'], properties: { id: { type: 'integer' }, email: { type: 'string', format: 'email' } } });

  it('is empty for a conforming value', () => {
    expect(schemaViolations(order, { id: 1, email: 'a@example.com' })).toEqual([]);
  });

  it('lists every violation with its place in the value', () => {
    const v = schemaViolations(order, { email: 'nope' });
    expect(v).toEqual(expect.arrayContaining([{ path: '/', message: "must have required property 'id'" }, { path: '/email', message: 'must match format "email"' }]));
    expect(violationText([{ path: '/id', message: 'must be integer' }])).toBe('/id must be integer');
  });

  it('checks only JSON schemas', () => {
    expect(schemaViolations(schema({ type: 'record' }, 'AVRO'), 42)).toEqual([]);
  });
});

describe('schemaProblem', () => {
  it('names what makes data unusable as a JSON schema', () => {
    expect(schemaProblem({ type: 'object' })).toBeUndefined();
    expect(schemaProblem({ type: 'no-such-type' })).toMatch(/type/);
  });
});
