import type { LineageCounters } from '../../../src/limits/ports';

// What every LineageCounters adapter guarantees (the local one in one process, the Redis one across replicas).

const T = 1_700_000_000_000;
const limits = (maxDescendants: number, maxPerSecond: number) => ({ maxDescendants, maxPerSecond });

/** `make` answers a fresh counter and, for adapters shared by replicas, a second view of the same counts. */
export function lineageCountersContract(make: () => Promise<{ a: LineageCounters; b: LineageCounters; root: (n: string) => string }>): void {
  let a: LineageCounters;
  let b: LineageCounters;
  let root: (n: string) => string;
  beforeEach(async () => {
    ({ a, b, root } = await make());
  });
  afterEach(async () => {
    await a.close();
    if (b !== a) await b.close();
  });

  it('counts descendants per root up to the limit, then refuses; another root has its own count', async () => {
    for (let i = 0; i < 3; i++) expect(await a.tryStart(root('r1'), `c${i}`, limits(3, 100), T + i * 2000)).toBe('admitted');
    expect(await a.tryStart(root('r1'), 'c3', limits(3, 100), T + 10_000)).toBe('descendants');
    expect(await a.tryStart(root('r2'), 'c3', limits(3, 100), T + 10_000)).toBe('admitted');
  });

  it('a start counted before is admitted again without counting twice (an effect run again)', async () => {
    expect(await a.tryStart(root('r'), 'same', limits(2, 100), T)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'same', limits(2, 100), T + 5000)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'other', limits(2, 100), T + 6000)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'third', limits(2, 100), T + 7000)).toBe('descendants');
    expect(await a.tryStart(root('r'), 'same', limits(2, 100), T + 8000)).toBe('admitted');
  });

  it('refuses more than maxPerSecond starts of one root within a second, and admits again after it', async () => {
    expect(await a.tryStart(root('r'), 'x1', limits(100, 2), T)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'x2', limits(100, 2), T + 500)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'x3', limits(100, 2), T + 900)).toBe('rate');
    expect(await a.tryStart(root('r'), 'x3', limits(100, 2), T + 1001)).toBe('admitted');
  });

  it('a refused start is not counted', async () => {
    expect(await a.tryStart(root('r'), 'x1', limits(2, 1), T)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'x2', limits(2, 1), T + 10)).toBe('rate');
    expect(await a.tryStart(root('r'), 'x3', limits(2, 1), T + 2000)).toBe('admitted');
    expect(await a.tryStart(root('r'), 'x2', limits(2, 1), T + 4000)).toBe('descendants');
  });

  it('the counts of a root are shared by every view of the counter (replicas)', async () => {
    expect(await a.tryStart(root('shared'), 'one', limits(2, 100), T)).toBe('admitted');
    expect(await b.tryStart(root('shared'), 'two', limits(2, 100), T + 1)).toBe('admitted');
    expect(await a.tryStart(root('shared'), 'three', limits(2, 100), T + 2)).toBe('descendants');
    expect(await b.tryStart(root('shared'), 'one', limits(2, 100), T + 3)).toBe('admitted');
  });
}
