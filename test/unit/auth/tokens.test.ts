import { SignJWT, UnsecuredJWT } from 'jose';
import { hashSecret, newAccessKey, newTokenSecret, verifySecret } from '../../../src/auth/secrets';
import { AccessTokens } from '../../../src/auth/tokens';

const SECRET = 'a-signing-key-of-at-least-thirty-two-characters';

describe('access tokens', () => {
  let now = Date.UTC(2030, 0, 1);
  const clock = () => now;

  test('a token names its key and application and lasts the TTL', async () => {
    const tokens = new AccessTokens(SECRET, 3600, clock);
    const token = await tokens.issue('key-1', 'app-1');
    expect(token.split('.')).toHaveLength(3);
    expect(await tokens.check(token)).toEqual({ ok: true, keyId: 'key-1', applicationId: 'app-1', expiresAt: now + 3600_000 });
    now += 3599_000;
    expect((await tokens.check(token)).ok).toBe(true);
    now += 1000;
    expect(await tokens.check(token)).toEqual({ ok: false, failure: 'EXPIRED_TOKEN' });
  });

  test('tampered, foreign, unsigned and malformed tokens are invalid', async () => {
    const tokens = new AccessTokens(SECRET, 3600, clock);
    const token = await tokens.issue('key-1', 'app-1');
    const [h, p, s] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(p!, 'base64url').toString()), sub: 'admin' })).toString('base64url');
    const key = new TextEncoder().encode(SECRET);
    const other = await new AccessTokens('another-signing-key-of-thirty-two-chars!', 3600, clock).issue('key-1', 'app-1');
    const unsigned = new UnsecuredJWT({ app: 'app-1' })
      .setIssuer('baton')
      .setSubject('key-1')
      .setExpirationTime(Math.floor(now / 1000) + 60)
      .encode();
    const wrongIssuer = await new SignJWT({ app: 'app-1' })
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('someone')
      .setSubject('key-1')
      .setExpirationTime(Math.floor(now / 1000) + 60)
      .sign(key);
    const noApp = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setIssuer('baton')
      .setSubject('key-1')
      .setExpirationTime(Math.floor(now / 1000) + 60)
      .sign(key);
    const noExpiry = await new SignJWT({ app: 'app-1' }).setProtectedHeader({ alg: 'HS256' }).setIssuer('baton').setSubject('key-1').sign(key);
    for (const bad of [`${h}.${forged}.${s}`, other, unsigned, wrongIssuer, noApp, noExpiry, 'not-a-token', '', 'a.b.c']) {
      expect([bad, await tokens.check(bad)]).toEqual([bad, { ok: false, failure: 'INVALID_TOKEN' }]);
    }
  });
});

describe('secrets', () => {
  test('a hash verifies its secret only, and never contains it', async () => {
    const { id, secret } = newAccessKey();
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(secret.length).toBeGreaterThanOrEqual(43);
    const hash = await hashSecret(secret);
    expect(hash).toMatch(/^scrypt\$16384\$8\$1\$[\w-]+\$[\w-]+$/);
    expect(hash).not.toContain(secret);
    expect(await verifySecret(secret, hash)).toBe(true);
    expect(await verifySecret(`${secret}x`, hash)).toBe(false);
    expect(await hashSecret(secret)).not.toBe(hash); // salted
  });

  test('malformed stored hashes never verify', async () => {
    for (const stored of ['', 'plain', 'scrypt$x$8$1$c2FsdA$aGFzaA', 'bcrypt$16384$8$1$c2FsdA$aGFzaA', 'scrypt$16384$8$1$$'])
      expect(await verifySecret('s', stored)).toBe(false);
  });

  test('keys and signing keys are fresh every time', () => {
    expect(newAccessKey()).not.toEqual(newAccessKey());
    expect(newTokenSecret()).not.toBe(newTokenSecret());
    expect(newTokenSecret().length).toBeGreaterThanOrEqual(32);
  });
});
