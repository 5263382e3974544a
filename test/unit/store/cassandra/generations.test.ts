import { GENS_PER_PAGE, pageBelowFloor, pageOf, placement, recoveryFamily, runningFamily, sealedBefore } from '../../../../src/store/cassandra/generations';
import { DEFAULT_INDEX_LAYOUT } from '../../../../src/store/cassandra/rows';

const MIN = 60_000;
const DAY = 86_400_000;
const T = Date.UTC(2025, 0, 10);
const L = DEFAULT_INDEX_LAYOUT;

describe('open-index generations', () => {
  it('names the young and carried index of a family with distinct prefixes (a workflow name may hold any character)', () => {
    expect(runningFamily('order')).toEqual({ young: 'running:order', carried: 'running-carried:order', shards: 1 });
    expect(runningFamily('x:carried').young).not.toBe(runningFamily('x').carried);
    expect(recoveryFamily(4)).toEqual({ young: 'recovery', carried: 'recovery-carried', shards: 4 });
  });

  it('seals a generation once it ended the margin ago', () => {
    // At T + 2m30s with a one-minute margin: generations before T + 1m are sealed, T + 1m is not.
    expect(sealedBefore(T + 2.5 * MIN, L.genMs, L.sealMarginMs)).toBe(T + MIN);
    expect(sealedBefore(T + 2 * MIN, L.genMs, L.sealMarginMs)).toBe(T + MIN);
    expect(sealedBefore(T + 2 * MIN - 1, L.genMs, L.sealMarginMs)).toBe(T);
  });

  it('groups generations into registry pages, and knows a page wholly below the floor', () => {
    expect(GENS_PER_PAGE * L.genMs).toBe(DAY);
    expect(pageOf(T + 5 * MIN, L.genMs)).toBe(T);
    expect(pageOf(T + DAY, L.genMs)).toBe(T + DAY);
    expect(pageBelowFloor(T, L.genMs, T + DAY)).toBe(true);
    expect(pageBelowFloor(T, L.genMs, T + DAY - MIN)).toBe(false);
  });

  it('writes an entry to its young generation while open, and to the carried index of today once it is sealed', () => {
    const family = runningFamily('order');
    const now = T + 10 * 3_600_000 + 30_000;
    expect(placement(family, now - 30_000, L, now)).toEqual({ index: 'running:order', gen: now - 30_000, genMs: L.genMs });
    expect(placement(family, now - 30_000 - MIN, L, now)).toEqual({ index: 'running:order', gen: now - 30_000 - MIN, genMs: L.genMs });
    expect(placement(family, now - 30_000 - 2 * MIN, L, now)).toEqual({ index: 'running-carried:order', gen: T, genMs: L.carriedGenMs });
  });
});
