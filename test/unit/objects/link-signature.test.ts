import { signLink, verifyLink } from '../../../src/objects/link-signature';

const SECRET = Buffer.from('a secret of the tests, long enough');
const NOW = 1_800_000_000_000;
const expires = NOW / 1000 + 60;

describe('signed object links', () => {
  const signature = signLink(SECRET, 'READ', 'payloads/workflow/input/a.json', expires);

  it('accepts a link before its expiry', () => {
    expect(verifyLink(SECRET, { operation: 'READ', key: 'payloads/workflow/input/a.json', expires, signature }, NOW)).toEqual({ ok: true });
    expect(verifyLink(SECRET, { operation: 'READ', key: 'payloads/workflow/input/a.json', expires, signature }, expires * 1000 - 1)).toEqual({ ok: true });
  });

  it('refuses it from its expiry on', () => {
    expect(verifyLink(SECRET, { operation: 'READ', key: 'payloads/workflow/input/a.json', expires, signature }, expires * 1000)).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses another operation, key, expiry or secret, and a malformed signature', () => {
    const base = { operation: 'READ' as const, key: 'payloads/workflow/input/a.json', expires, signature };
    for (const link of [
      { ...base, operation: 'WRITE' as const },
      { ...base, key: 'payloads/workflow/input/b.json' },
      { ...base, expires: expires + 3600 },
      { ...base, signature: signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0') },
      { ...base, signature: 'zz' },
      { ...base, signature: '' },
      { ...base, expires: Number.NaN },
    ])
      expect(verifyLink(SECRET, link, NOW)).toEqual({ ok: false, reason: 'bad-signature' });
    expect(verifyLink(Buffer.from('another secret entirely, long'), base, NOW)).toEqual({ ok: false, reason: 'bad-signature' });
  });
});
