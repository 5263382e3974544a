import { ADMIN_KEY, raw, startAuthBaton, tokenFor, type AuthBaton, type RawReply } from '../support/auth-baton';
import { uniqueName } from '../support/names';

// POST /api/token under brute force, over real HTTP: the failed-attempt limit answers a Conductor-style
// 429 with Retry-After, and wrong secrets hashed by the dozen leave libuv's thread pool to the rest of
// the server (a console page read from disk answers while they wait).

let b: AuthBaton;
let admin: string;

beforeAll(async () => {
  b = await startAuthBaton({
    BATON_AUTH: 'on',
    BATON_ADMIN_KEY_ID: ADMIN_KEY.keyId,
    BATON_ADMIN_KEY_SECRET: ADMIN_KEY.keySecret,
    BATON_TOKEN_MAX_FAILURES_PER_KEY: '3',
    BATON_TOKEN_MAX_FAILURES_PER_CLIENT: '1000',
    BATON_AUTH_HASH_CONCURRENCY: '1',
    BATON_AUTH_HASH_QUEUE: '64',
  });
  admin = await tokenFor(b.port, ADMIN_KEY);
});
afterAll(async () => {
  await b?.stop();
});

async function newKey(): Promise<{ keyId: string; keySecret: string }> {
  const app = await raw(b.port, 'POST', '/api/applications', { token: admin, body: { name: uniqueName('app') } });
  const key = await raw(b.port, 'POST', `/api/applications/${app.body.id}/accessKeys`, { token: admin });
  return { keyId: key.body.id, keySecret: key.body.secret };
}

test('after the limit of wrong secrets, even the right one is a 429 with Retry-After and a Conductor-style body', async () => {
  const key = await newKey();
  for (let i = 0; i < 3; i++) expect((await raw(b.port, 'POST', '/api/token', { body: { keyId: key.keyId, keySecret: 'wrong' } })).status).toBe(401);
  const refused = await raw(b.port, 'POST', '/api/token', { body: key });
  expect(refused.status).toBe(429);
  expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  expect(refused.body).toEqual({
    status: 429,
    message: expect.stringContaining('Too many failed token requests'),
    instance: expect.any(String),
    retryable: true,
    code: 'TOO_MANY_REQUESTS',
  });
  expect(refused.text).not.toContain(key.keySecret);
  // Another key is not held back by this one's limit.
  expect((await raw(b.port, 'POST', '/api/token', { body: await newKey() })).status).toBe(200);
});

test('while dozens of wrong secrets are being checked, a console page read from disk still answers before most of them', async () => {
  const attempts = 30;
  let answered = 0;
  const guesses: Array<Promise<RawReply>> = Array.from({ length: attempts }, (_, i) =>
    raw(b.port, 'POST', '/api/token', { body: { keyId: `guess-${i}-${uniqueName('k')}`, keySecret: 'wrong' } }).then((r) => {
      answered++;
      return r;
    }),
  );
  // Once one guess is answered, the server holds the others (the thread pool's queue, without the bound).
  await Promise.race(guesses);
  const page = await raw(b.port, 'GET', '/workflows');
  const answeredBeforePage = answered;
  const statuses = (await Promise.all(guesses)).map((r) => r.status);
  // The page is the console's index.html, or a 404 saying it is not built: both read the disk.
  expect([200, 404]).toContain(page.status);
  expect(answeredBeforePage).toBeLessThan(attempts / 2);
  expect(new Set(statuses)).toEqual(new Set([401]));
});
