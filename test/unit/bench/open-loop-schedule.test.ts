import { intendedOffsetMs, startsDue } from '../../../bench/load/open-loop-schedule';

describe('startsDue (open-loop schedule with a linear ramp)', () => {
  it('holds the full rate after the ramp, having started half a ramp of it during the ramp (start 0 at once)', () => {
    expect(startsDue(1000, 100, 1000)).toBe(51);
    expect(startsDue(2000, 100, 1000)).toBe(151);
    expect(startsDue(11_000, 100, 1000)).toBe(1051);
  });

  it('grows quadratically during the ramp', () => {
    expect(startsDue(0, 100, 1000)).toBe(1);
    expect(startsDue(500, 100, 1000)).toBe(13);
    expect(startsDue(250, 100, 1000)).toBe(4);
  });

  it('is a plain fixed rate without a ramp', () => {
    expect(startsDue(1000, 250, 0)).toBe(251);
    expect(startsDue(-5, 250, 0)).toBe(0);
  });
});

describe('intendedOffsetMs', () => {
  it('is the instant at which startsDue first counts start k as due', () => {
    for (const k of [0, 1, 3, 12, 49, 50, 51, 149, 1000]) {
      const at = intendedOffsetMs(k, 100, 1000);
      expect(startsDue(at + 1e-6, 100, 1000)).toBeGreaterThanOrEqual(k + 1);
      expect(startsDue(at - 1e-3, 100, 1000)).toBeLessThanOrEqual(k);
    }
  });

  it('spaces starts evenly without a ramp', () => {
    expect(intendedOffsetMs(0, 200, 0)).toBe(0);
    expect(intendedOffsetMs(10, 200, 0)).toBe(50);
  });
});
