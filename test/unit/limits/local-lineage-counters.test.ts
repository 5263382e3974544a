import { LocalLineageCounters } from '../../../src/limits/local/local-lineage-counters';
import { lineageCountersContract } from './lineage-counters-contract';

describe('LocalLineageCounters', () => {
  // One process: both views are the same counter.
  lineageCountersContract(async () => {
    const c = new LocalLineageCounters();
    return { a: c, b: c, root: (n) => n };
  });

  it('forgets a root that started nothing for the idle time, so the counts never grow without bound', async () => {
    const c = new LocalLineageCounters(60_000);
    const T = 1_700_000_000_000;
    for (let i = 0; i < 50; i++) await c.tryStart(`root-${i}`, 'child', { maxDescendants: 1, maxPerSecond: 10 }, T);
    expect(c.size).toBe(50);
    expect(await c.tryStart('root-0', 'second', { maxDescendants: 1, maxPerSecond: 10 }, T + 30_000)).toBe('descendants');
    await c.tryStart('fresh', 'child', { maxDescendants: 1, maxPerSecond: 10 }, T + 120_000);
    expect(c.size).toBe(1);
    // A forgotten root starts counting afresh.
    expect(await c.tryStart('root-0', 'second', { maxDescendants: 1, maxPerSecond: 10 }, T + 120_001)).toBe('admitted');
  });

  it('past its most roots it forgets the one idle longest, never one still starting', async () => {
    const c = new LocalLineageCounters(3_600_000, 3);
    const T = 1_700_000_000_000;
    const one = { maxDescendants: 2, maxPerSecond: 10 };
    await c.tryStart('runaway', 'a', one, T);
    await c.tryStart('idle-1', 'a', one, T + 1);
    await c.tryStart('idle-2', 'a', one, T + 2);
    await c.tryStart('runaway', 'b', one, T + 3); // full now, and the latest to start
    await c.tryStart('new', 'a', one, T + 4);
    expect(c.size).toBe(3);
    expect(await c.tryStart('runaway', 'c', one, T + 5)).toBe('descendants');
    expect(await c.tryStart('idle-1', 'b', one, T + 6)).toBe('admitted'); // forgotten, counting afresh
  });
});
