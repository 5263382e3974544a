import { redactSecrets, secretNamesIn, substituteSecrets } from '../../../src/secrets/secret-references';
import { resolveParams } from '../../../src/engine/expressions';
import { addTags, removeTags } from '../../../src/model/tags';

describe('secret references in task inputs', () => {
  const input = {
    http_request: { headers: { Authorization: 'Bearer ${workflow.secrets.token}', 'X-Key': '${workflow.secrets.api-key}' } },
    list: ['${workflow.secrets.token}', 3, null],
    other: '${workflow.input.x}',
  };

  test('names are found in strings inside maps and lists', () => {
    expect([...secretNamesIn(input)].sort()).toEqual(['api-key', 'token']);
    expect(secretNamesIn({ a: 1, b: 'no reference' }).size).toBe(0);
  });

  test('substitution replaces whole and embedded references, leaving the rest', () => {
    const values = new Map([
      ['token', 'T0K'],
      ['api-key', 'K3Y'],
    ]);
    expect(substituteSecrets(input, values)).toEqual({
      http_request: { headers: { Authorization: 'Bearer T0K', 'X-Key': 'K3Y' } },
      list: ['T0K', 3, null],
      other: '${workflow.input.x}',
    });
    expect(input.list[0]).toBe('${workflow.secrets.token}'); // not mutated
  });

  test('redaction masks every occurrence of a value in strings and keys', () => {
    expect(redactSecrets({ body: 'echo T0K and T0K', nested: [{ T0K: 'x' }], n: 1 }, ['T0K'])).toEqual({
      body: 'echo *** and ***',
      nested: [{ '***': 'x' }],
      n: 1,
    });
    expect(redactSecrets('reason', [''])).toBe('reason');
  });

  test('the engine keeps references as written when it resolves inputs', () => {
    const lookup = (root: string) => (root === 'workflow' ? { input: { x: 5 }, secrets: { token: 'leak' } } : undefined);
    expect(resolveParams(input, lookup)).toEqual({ ...input, other: 5 });
    expect(resolveParams({ a: 'pre ${workflow.secrets.token} ${workflow.input.x}' }, lookup)).toEqual({ a: 'pre ${workflow.secrets.token} 5' });
  });
});

describe('tags', () => {
  test('adding skips tags already there; removing matches key and value', () => {
    const a = { key: 'a', value: '1' };
    const b = { key: 'b', value: '2' };
    expect(addTags([a], [a, b])).toEqual([a, b]);
    expect(removeTags([a, b], [{ key: 'a', value: 'other' }])).toEqual([a, b]);
    expect(removeTags([a, b], [a])).toEqual([b]);
    expect(addTags(undefined, [])).toEqual([]);
  });
});
