import { afterProbe, isWedged, NO_FAILURES, type ProbeHistory } from '../../../src/runtime/liveness';

// The verdict of the liveness self-probe, over probe outcomes at times the test gives.

const policy = { failures: 3, windowMs: 30_000 };
const run = (outcomes: Array<[ok: boolean, at: number]>): ProbeHistory => outcomes.reduce((h, [ok, at]) => afterProbe(h, ok, at), NO_FAILURES);

test('three failures in a row spanning the window: wedged', () => {
  expect(
    isWedged(
      run([
        [false, 0],
        [false, 10_000],
        [false, 20_000],
        [false, 30_000],
      ]),
      policy,
    ),
  ).toBe(true);
});

test('failures of a rebalance, shorter than the window, are not enough however many', () => {
  const quick = Array.from({ length: 20 }, (_, i) => [false, i * 1000] as [boolean, number]);
  expect(isWedged(run(quick), policy)).toBe(false);
});

test('fewer failures than the policy asks, however far apart, are not enough', () => {
  expect(
    isWedged(
      run([
        [false, 0],
        [false, 60_000],
      ]),
      policy,
    ),
  ).toBe(false);
});

test('one probe that succeeds ends the run: the window starts again from the next failure', () => {
  const h = run([
    [false, 0],
    [false, 10_000],
    [true, 15_000],
    [false, 20_000],
    [false, 30_000],
    [false, 40_000],
  ]);
  expect(h).toEqual({ consecutiveFailures: 3, firstFailureAt: 20_000, lastFailureAt: 40_000 });
  expect(isWedged(h, policy)).toBe(false);
  expect(isWedged(afterProbe(h, false, 50_000), policy)).toBe(true);
  expect(isWedged(afterProbe(afterProbe(h, false, 50_000), true, 51_000), policy)).toBe(false);
});
