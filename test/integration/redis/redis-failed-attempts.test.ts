import Redis from 'ioredis';
import { RedisFailedAttempts } from '../../../src/limits/redis/redis-failed-attempts';

// Failed token requests counted in Redis: two replicas share one count, and attempts racing on both
// cannot get past the limit.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `baton-test:attempts:${process.pid}:${Date.now()}:`;
const WINDOW = 60_000;

let a: RedisFailedAttempts;
let b: RedisFailedAttempts;

beforeAll(() => {
  a = new RedisFailedAttempts(new Redis(REDIS_URL), prefix);
  b = new RedisFailedAttempts(new Redis(REDIS_URL), prefix);
});
afterAll(async () => {
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  await r.quit();
  await Promise.all([a.close(), b.close()]);
});

const subjects = (key: string, client = 'client:c1') => [
  { key, limit: 3 },
  { key: client, limit: 100 },
];

test('failures on two replicas add up; past the limit both refuse until the oldest leaves the window', async () => {
  const t0 = 1_000_000;
  expect((await a.begin(subjects('key:k1'), WINDOW, t0)).allowed).toBe(true);
  expect((await b.begin(subjects('key:k1'), WINDOW, t0 + 1000)).allowed).toBe(true);
  expect((await a.begin(subjects('key:k1'), WINDOW, t0 + 2000)).allowed).toBe(true);
  expect(await b.begin(subjects('key:k1'), WINDOW, t0 + 3000)).toEqual({ allowed: false, retryAfterMs: 57_000 });
  expect(await a.begin(subjects('key:k1'), WINDOW, t0 + 59_999)).toEqual({ allowed: false, retryAfterMs: 1 });
  expect((await a.begin(subjects('key:k1'), WINDOW, t0 + 60_000)).allowed).toBe(true);
});

test('racing attempts on both replicas are allowed exactly up to the limit', async () => {
  const t = 2_000_000;
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).begin(subjects('key:race'), WINDOW, t)));
  expect(all.filter((d) => d.allowed)).toHaveLength(3);
});

test('a success takes its attempt back and forgives the key id, not the client', async () => {
  const t = 3_000_000;
  const s = subjects('key:k2', 'client:c2');
  const clientOnly = [{ key: 'client:c2', limit: 3 }];
  await a.begin(s, WINDOW, t);
  await a.begin(s, WINDOW, t);
  const ok = await b.begin(s, WINDOW, t);
  if (!ok.allowed) throw new Error('expected the third attempt to be allowed');
  await b.succeeded(ok.attemptId, s, ['key:k2']);
  // The key id starts afresh; the client keeps its two failures (not the successful attempt).
  expect((await a.begin([{ key: 'key:k2', limit: 1 }], WINDOW, t)).allowed).toBe(true);
  expect((await a.begin(clientOnly, WINDOW, t)).allowed).toBe(true);
  expect((await a.begin(clientOnly, WINDOW, t)).allowed).toBe(false);
});
