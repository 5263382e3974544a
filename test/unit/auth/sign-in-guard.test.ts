import crypto from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AccessDirectory } from '../../../src/auth/access-directory';
import { ApplicationService } from '../../../src/auth/application-service';
import { RetryLater } from '../../../src/auth/retry-later';
import { SignInGuard } from '../../../src/auth/sign-in-guard';
import { LocalFailedAttempts } from '../../../src/limits/local/local-failed-attempts';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';

// POST /api/token's defences below the HTTP layer: the failed-attempt limit per key id and per client
// (on an injected clock), and the same scrypt work for an unknown key id as for a known one.

let dir: string;
let stores: SqliteStores;
let now = 1_000_000;
const clock = () => now;
const WINDOW_MS = 60_000;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'baton-sign-in-'));
  stores = openSqliteStores(dir);
});
afterEach(async () => {
  jest.restoreAllMocks();
  await stores.close();
  rmSync(dir, { recursive: true, force: true });
});

async function setup(limits = { perKey: 3, perClient: 100, windowMs: WINDOW_MS }) {
  const directory = await AccessDirectory.create(stores.metadata, { cacheMs: 0, now: clock });
  const apps = new ApplicationService(stores.metadata, directory, clock);
  const app = await apps.create('a', 'test');
  const key = await apps.createKey(app.id);
  const guard = new SignInGuard(new LocalFailedAttempts(), limits, clock);
  const signIn = (keyId: string, secret: string, client = '10.0.0.1') => guard.attempt(keyId, client, () => directory.authenticate(keyId, secret));
  return { key, signIn };
}

const outcome = (p: Promise<unknown>) =>
  p.then(
    (principal) => (principal ? 'ok' : 'wrong'),
    (e: unknown) => (e instanceof RetryLater ? `429 after ${e.retryAfterSeconds}s` : `error ${(e as Error).message}`),
  );

describe('failed token requests per key id', () => {
  test('after the limit the right secret is refused too, until the oldest failure leaves the window', async () => {
    const { key, signIn } = await setup();
    for (let i = 0; i < 3; i++) {
      expect(await outcome(signIn(key.id, 'wrong'))).toBe('wrong');
      now += 1000;
    }
    // Failures at t0, t0+1s, t0+2s; now t0+3s: the first leaves the window at t0+60s.
    expect(await outcome(signIn(key.id, key.secret))).toBe('429 after 57s');
    now += 56_000;
    expect(await outcome(signIn(key.id, key.secret))).toBe('429 after 1s');
    now += 1000;
    expect(await outcome(signIn(key.id, key.secret))).toBe('ok');
  });

  test('an unknown key id is limited like a known one', async () => {
    const { signIn } = await setup();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await outcome(signIn('no-such-key', 'wrong')));
    expect(results).toEqual(['wrong', 'wrong', 'wrong', '429 after 60s']);
  });

  test("a success forgives its key id's failures; other key ids and clients are not affected by one key's limit", async () => {
    const { key, signIn } = await setup();
    for (let i = 0; i < 2; i++) await signIn(key.id, 'wrong');
    expect(await outcome(signIn(key.id, key.secret))).toBe('ok');
    for (let i = 0; i < 2; i++) expect(await outcome(signIn(key.id, 'wrong'))).toBe('wrong');
    expect(await outcome(signIn('other-key', 'wrong'))).toBe('wrong');
    expect(await outcome(signIn(key.id, key.secret, '10.0.0.2'))).toBe('ok');
  });
});

describe('failed token requests per client address', () => {
  test('many key ids from one address reach the client limit, which a success with a real key does not reset', async () => {
    const { key, signIn } = await setup({ perKey: 100, perClient: 5, windowMs: WINDOW_MS });
    for (let i = 0; i < 4; i++) expect(await outcome(signIn(`guess-${i}`, 'wrong'))).toBe('wrong');
    expect(await outcome(signIn(key.id, key.secret))).toBe('ok');
    expect(await outcome(signIn('guess-4', 'wrong'))).toBe('wrong');
    expect(await outcome(signIn(key.id, key.secret))).toBe('429 after 60s');
    // Another address is not held back.
    expect(await outcome(signIn(key.id, key.secret, '10.0.0.9'))).toBe('ok');
  });
});

describe('an unknown key id costs what a known one does', () => {
  test('the same scrypt derivation, with the same parameters, runs for an unknown key id, a known one and the admin key', async () => {
    const directory = await AccessDirectory.create(stores.metadata, { adminKey: { id: 'root', secret: 'the-admin-secret-0123' }, cacheMs: 0, now: clock });
    const apps = new ApplicationService(stores.metadata, directory, clock);
    const key = await apps.createKey((await apps.create('a', 'test')).id);
    const derive = jest.spyOn(crypto, 'scrypt');
    const calls = async (keyId: string): Promise<unknown[]> => {
      derive.mockClear();
      expect(await directory.authenticate(keyId, 'a wrong secret')).toBeUndefined();
      return derive.mock.calls.map((c) => [String(c[0]).length, (c[1] as Buffer).length, c[2], c[3]]);
    };
    const known = await calls(key.id);
    expect(known).toEqual([['a wrong secret'.length, 16, 32, { N: 16384, r: 8, p: 1, maxmem: expect.any(Number) }]]);
    expect(await calls('no-such-key-id')).toEqual(known);
    expect(await calls('root')).toEqual(known);
  });
});
