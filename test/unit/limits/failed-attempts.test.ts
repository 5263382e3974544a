import { retryAfterMs, retryAfterSeconds } from '../../../src/limits/attempt-window';
import { LocalFailedAttempts } from '../../../src/limits/local/local-failed-attempts';
import type { FailedAttempts } from '../../../src/limits/ports';
import { SignInGuard } from '../../../src/auth/sign-in-guard';

// The sliding window of failed attempts, its in-process adapter, and what the token guard does when
// the shared count cannot be reached.

const W = 60_000;

describe('retryAfterMs', () => {
  test('0 below the limit; else until enough of the newest `limit` failures leave the window', () => {
    expect(retryAfterMs([1000, 2000], 3, W, 5000)).toBe(0);
    expect(retryAfterMs([1000, 2000, 3000], 3, W, 5000)).toBe(56_000);
    expect(retryAfterMs([1000, 2000, 3000, 4000], 3, W, 5000)).toBe(57_000);
    expect(retryAfterMs([1000, 2000, 3000], 3, W, 61_000)).toBe(1);
    expect([retryAfterSeconds(1), retryAfterSeconds(1000), retryAfterSeconds(1001)]).toEqual([1, 1, 2]);
  });
});

describe('LocalFailedAttempts', () => {
  test('keeps at most its bound of subjects, forgetting the least recently failed first', async () => {
    const a = new LocalFailedAttempts(2);
    const one = (key: string, now: number) => a.begin([{ key, limit: 1 }], W, now);
    await one('k1', 1);
    await one('k2', 2);
    expect((await one('k1', 3)).allowed).toBe(false);
    // k3 makes three: k1 goes, its last counted failure the oldest (a refused attempt is not counted).
    await one('k3', 4);
    expect((await one('k2', 5)).allowed).toBe(false);
    expect((await one('k3', 5)).allowed).toBe(false);
    expect((await one('k1', 6)).allowed).toBe(true);
  });

  test('a refused attempt is not counted: the window does not move on by retrying', async () => {
    const a = new LocalFailedAttempts();
    await a.begin([{ key: 'k', limit: 1 }], W, 0);
    for (let t = 1000; t < W; t += 1000) expect((await a.begin([{ key: 'k', limit: 1 }], W, t)).allowed).toBe(false);
    expect((await a.begin([{ key: 'k', limit: 1 }], W, W)).allowed).toBe(true);
  });
});

describe('SignInGuard without its shared count', () => {
  test('answers a retryable 503 and checks no secret', async () => {
    const down: FailedAttempts = {
      begin: () => Promise.reject(new Error('connect ECONNREFUSED')),
      succeeded: () => Promise.resolve(),
      close: () => Promise.resolve(),
    };
    const check = jest.fn(async () => 'principal');
    const guard = new SignInGuard(down, { perKey: 3, perClient: 3, windowMs: W });
    await expect(guard.attempt('k', 'c', check)).rejects.toMatchObject({ status: 503, retryable: true });
    expect(check).not.toHaveBeenCalled();
  });
});
