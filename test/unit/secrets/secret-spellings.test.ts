import { redactSecrets } from '../../../src/secrets/secret-references';
import { secretSpellings } from '../../../src/secrets/secret-spellings';

// What an HTTP call's outcome may echo of a secret, in each spelling a server or client library writes
// it, is stored masked. The value holds every character that spellings change: `"` `\` `/` space `&`
// `'` `<` non-ASCII (Latin, BMP, astral).

const VALUE = `p"a\\s/s w&o'r<d é€😀-tail`;
const mask = (text: string): string => redactSecrets(text, [VALUE]);

/** Python's json.dumps (ensure_ascii): non-ASCII as \uXXXX, lower hex, surrogate pairs for astral characters. */
const pythonJson = (v: string): string => JSON.stringify(v).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

const ECHOES: Array<[string, string]> = [
  ['as is', `token=${VALUE}`],
  ['inside a JSON string', JSON.stringify({ error: `bad token ${VALUE}` })],
  ["Baton's own invalid URI reason", `invalid URI ${JSON.stringify(`http://h/x?t=${VALUE}`)}`],
  ['JSON with non-ASCII escaped, lower hex (Python)', `{"t": ${pythonJson(VALUE)}}`],
  ['JSON with non-ASCII escaped, upper hex (Jackson)', `{"t":${pythonJson(VALUE).replace(/\\u([0-9a-f]{4})/g, (_m, h: string) => `\\u${h.toUpperCase()}`)}}`],
  ['JSON with / escaped (PHP)', JSON.stringify({ t: VALUE }).replace(/\//g, '\\/')],
  ['encodeURIComponent', `https://h/cb?t=${encodeURIComponent(VALUE)}&x=1`],
  ['encodeURIComponent, lower hex', `https://h/cb?t=${encodeURIComponent(VALUE).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase())}`],
  ['encodeURI', `GET ${encodeURI(`https://h/cb?t=${VALUE}`)}`],
  ['a URL query as fetch sends it', new URL(`https://h/cb?t=${VALUE}`).href],
  ['a form body', new URLSearchParams({ user: 'u', token: VALUE }).toString()],
  [
    'HTML-escaped',
    `<p>No route for /x?t=${VALUE.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')}</p>`,
  ],
];

describe.each(ECHOES)('an echo %s', (_kind, echo) => {
  test('keeps none of the value', () => {
    const masked = mask(echo);
    expect(masked).toContain('***');
    for (const spelling of secretSpellings(VALUE)) expect(masked).not.toContain(spelling);
    expect(masked).not.toContain('-tail');
  });
});

test("the URL path form without the backslash is a spelling of that value, not of VALUE: it is masked only as that value's", () => {
  // A backslash in a URL path becomes `/`; such a value is shown as the URL rewrote it, which no spelling of VALUE holds.
  const plain = VALUE.replace('\\', '');
  expect(redactSecrets(new URL(`https://h/${plain}`).pathname, [plain])).toBe('/***');
});

describe('base64 (a Basic auth header echoed back)', () => {
  test.each(['', 'u:', 'us:', 'use:'])('after %j, at most two bytes of the value at either end stay readable', (prefix) => {
    const encoded = Buffer.from(`${prefix}${VALUE}`, 'utf8').toString('base64');
    const masked = mask(`Authorization: Basic ${encoded}`);
    const [before, after] = masked.slice('Authorization: Basic '.length).split('***');
    expect(after).toBeDefined();
    // Visible characters: the prefix's bytes and up to two of the value's on each side (4 characters), padding aside.
    expect(before!.length).toBeLessThanOrEqual(Math.ceil(prefix.length / 3) * 4 + 4);
    expect(after!.replace(/=+$/, '').length).toBeLessThanOrEqual(4);
  });

  test('URL-safe base64 too', () => {
    const encoded = Buffer.from(VALUE, 'utf8').toString('base64url');
    expect(mask(encoded).length).toBeLessThan(encoded.length / 4);
  });
});

test('a plain token has few spellings: itself and its base64 at each alignment', () => {
  const spellings = secretSpellings('tok3n_ABC-123');
  expect(spellings).toContain('tok3n_ABC-123');
  expect(spellings).toContain(Buffer.from('tok3n_ABC-12').toString('base64'));
  expect(spellings.filter((s) => s !== 'tok3n_ABC-123').every((s) => /^[A-Za-z0-9+/_-]+$/.test(s))).toBe(true);
  expect(spellings.length).toBeLessThanOrEqual(7);
  expect(secretSpellings('')).toEqual([]);
});

test('two secrets, one inside the other, are both masked in every spelling', () => {
  const inner = 'a b';
  const outer = 'x a b y';
  expect(redactSecrets(`${encodeURIComponent(outer)} ${encodeURIComponent(inner)} ${JSON.stringify(outer)}`, [inner, outer])).toBe('*** *** "***"');
});

test('keys and nested values are masked, other values kept', () => {
  const body = { [encodeURIComponent(VALUE)]: [JSON.stringify(VALUE)], n: 1, ok: 'fine' };
  expect(redactSecrets(body, [VALUE])).toEqual({ '***': ['"***"'], n: 1, ok: 'fine' });
});
