import { LatencyRecorder, percentileOfSorted, summarize } from '../../../bench/stats/percentiles';

describe('percentileOfSorted (nearest rank)', () => {
  const hundred = Float64Array.from({ length: 100 }, (_, i) => i + 1);

  it('returns the value whose rank is ceil(q/100 * n)', () => {
    expect(percentileOfSorted(hundred, 50)).toBe(50);
    expect(percentileOfSorted(hundred, 99)).toBe(99);
    expect(percentileOfSorted(hundred, 99.9)).toBe(100);
    expect(percentileOfSorted(hundred, 100)).toBe(100);
  });

  it('gives the smallest value for q = 0 and any q of a single sample', () => {
    expect(percentileOfSorted(hundred, 0)).toBe(1);
    expect(percentileOfSorted([7], 0)).toBe(7);
    expect(percentileOfSorted([7], 99)).toBe(7);
  });

  it('rounds ranks up on small samples, so p99 of ten values is the largest', () => {
    const ten = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentileOfSorted(ten, 50)).toBe(5);
    expect(percentileOfSorted(ten, 90)).toBe(9);
    expect(percentileOfSorted(ten, 99)).toBe(10);
  });

  it('rejects an empty sample and a q outside 0..100', () => {
    expect(() => percentileOfSorted([], 50)).toThrow(RangeError);
    expect(() => percentileOfSorted([1], 101)).toThrow(RangeError);
    expect(() => percentileOfSorted([1], Number.NaN)).toThrow(RangeError);
  });
});

describe('summarize', () => {
  it('sorts its own copy and reports min, mean, percentiles and max', () => {
    const samples = [5, 1, 4, 2, 3];
    const s = summarize(samples);
    expect(s).toEqual({ count: 5, min: 1, mean: 3, p50: 3, p90: 5, p99: 5, p999: 5, max: 5 });
    expect(samples).toEqual([5, 1, 4, 2, 3]);
  });

  it('is null for no samples', () => {
    expect(summarize([])).toBeNull();
  });

  it('finds the tail of a skewed distribution', () => {
    const samples = [...Array.from({ length: 990 }, () => 1), ...Array.from({ length: 10 }, () => 100)];
    const s = summarize(samples);
    expect(s?.p50).toBe(1);
    expect(s?.p99).toBe(1);
    expect(s?.p999).toBe(100);
    expect(s?.mean).toBeCloseTo(1.99, 5);
  });
});

describe('LatencyRecorder', () => {
  it('grows past its initial buffer and summarises every sample', () => {
    const r = new LatencyRecorder();
    for (let i = 1; i <= 5000; i++) r.record(i);
    const s = r.summary();
    expect(s?.count).toBe(5000);
    expect(s?.p50).toBe(2500);
    expect(s?.max).toBe(5000);
  });

  it('ignores values that are not finite and starts over on reset', () => {
    const r = new LatencyRecorder();
    r.record(Number.NaN);
    r.record(Number.POSITIVE_INFINITY);
    expect(r.summary()).toBeNull();
    r.record(3);
    r.reset();
    expect(r.count).toBe(0);
    r.record(8);
    expect(r.summary()?.p50).toBe(8);
  });

  it('keeps a bounded reservoir beyond its capacity but counts every sample', () => {
    let seed = 1;
    const random = (): number => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647;
    };
    const r = new LatencyRecorder(100, random);
    for (let i = 0; i < 10_000; i++) r.record(i < 5000 ? 1 : 2);
    const s = r.summary();
    expect(s?.count).toBe(10_000);
    expect(s?.min).toBe(1);
    expect(s?.max).toBe(2);
    // about half of a uniform reservoir comes from each half of the stream
    expect(s?.mean).toBeGreaterThan(1.3);
    expect(s?.mean).toBeLessThan(1.7);
  });
});
