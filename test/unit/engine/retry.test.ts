import { retryDelaySeconds } from '../../../src/engine/retry';

// As in Conductor's DeciderService.retry: n = retryCount of the failed attempt (0 for the first failure).
const INT_MAX = 2_147_483_647;

describe('retryDelaySeconds', () => {
  it('FIXED waits retryDelaySeconds every time', () => {
    const def = { retryLogic: 'FIXED' as const, retryDelaySeconds: 5, backoffScaleFactor: 1, maxRetryDelaySeconds: 0 };
    expect([0, 1, 2, 7].map((n) => retryDelaySeconds(def, n))).toEqual([5, 5, 5, 5]);
  });

  it('LINEAR_BACKOFF is retryDelaySeconds × backoffScaleFactor × (n+1)', () => {
    const def = { retryLogic: 'LINEAR_BACKOFF' as const, retryDelaySeconds: 5, backoffScaleFactor: 2, maxRetryDelaySeconds: 0 };
    expect([0, 1, 2].map((n) => retryDelaySeconds(def, n))).toEqual([10, 20, 30]);
  });

  it('LINEAR_BACKOFF with the default scale factor 1 grows by retryDelaySeconds', () => {
    const def = { retryLogic: 'LINEAR_BACKOFF' as const, retryDelaySeconds: 3, backoffScaleFactor: 1, maxRetryDelaySeconds: 0 };
    expect([0, 1, 2].map((n) => retryDelaySeconds(def, n))).toEqual([3, 6, 9]);
  });

  it('EXPONENTIAL_BACKOFF is retryDelaySeconds × 2^n', () => {
    const def = { retryLogic: 'EXPONENTIAL_BACKOFF' as const, retryDelaySeconds: 5, backoffScaleFactor: 1, maxRetryDelaySeconds: 0 };
    expect([0, 1, 2, 3].map((n) => retryDelaySeconds(def, n))).toEqual([5, 10, 20, 40]);
  });

  it('a zero retryDelaySeconds retries at once whatever the logic', () => {
    for (const retryLogic of ['FIXED', 'LINEAR_BACKOFF', 'EXPONENTIAL_BACKOFF'] as const) {
      expect(retryDelaySeconds({ retryLogic, retryDelaySeconds: 0, backoffScaleFactor: 3, maxRetryDelaySeconds: 0 }, 4)).toBe(0);
    }
  });

  it('maxRetryDelaySeconds (> 0) caps the delay', () => {
    const def = { retryLogic: 'EXPONENTIAL_BACKOFF' as const, retryDelaySeconds: 5, backoffScaleFactor: 1, maxRetryDelaySeconds: 12 };
    expect([0, 1, 2, 3].map((n) => retryDelaySeconds(def, n))).toEqual([5, 10, 12, 12]);
    const linear = { retryLogic: 'LINEAR_BACKOFF' as const, retryDelaySeconds: 10, backoffScaleFactor: 2, maxRetryDelaySeconds: 25 };
    expect([0, 1].map((n) => retryDelaySeconds(linear, n))).toEqual([20, 25]);
  });

  it('maxRetryDelaySeconds 0 means no cap', () => {
    const def = { retryLogic: 'EXPONENTIAL_BACKOFF' as const, retryDelaySeconds: 60, backoffScaleFactor: 1, maxRetryDelaySeconds: 0 };
    expect(retryDelaySeconds(def, 10)).toBe(60 * 1024);
  });

  it('an int overflow becomes Integer.MAX_VALUE seconds', () => {
    const exp = { retryLogic: 'EXPONENTIAL_BACKOFF' as const, retryDelaySeconds: 1, backoffScaleFactor: 1, maxRetryDelaySeconds: 0 };
    expect(retryDelaySeconds(exp, 40)).toBe(INT_MAX);
    expect(retryDelaySeconds(exp, 5000)).toBe(INT_MAX); // 2^5000 is Infinity in a double
    const linear = { retryLogic: 'LINEAR_BACKOFF' as const, retryDelaySeconds: 2_000_000_000, backoffScaleFactor: 2, maxRetryDelaySeconds: 0 };
    expect(retryDelaySeconds(linear, 0)).toBe(INT_MAX);
  });

  it('the cap applies after the overflow clamp', () => {
    const def = { retryLogic: 'EXPONENTIAL_BACKOFF' as const, retryDelaySeconds: 1, backoffScaleFactor: 1, maxRetryDelaySeconds: 3600 };
    expect(retryDelaySeconds(def, 40)).toBe(3600);
  });
});
