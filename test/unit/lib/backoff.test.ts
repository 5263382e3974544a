import { backoffDelayMs } from '../../../src/lib/backoff';

const b = { firstMs: 2000, maxMs: 60_000 };

test('doubles from the first delay at each consecutive failure, up to the cap', () => {
  expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, b))).toEqual([2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000]);
});

test('stays at the cap however many failures, and at the first delay for the first one', () => {
  expect(backoffDelayMs(10_000, b)).toBe(60_000);
  expect(backoffDelayMs(1, b)).toBe(2000);
  expect(backoffDelayMs(0, b)).toBe(2000);
});
