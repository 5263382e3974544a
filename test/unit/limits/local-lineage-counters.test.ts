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
});
