import Redis from 'ioredis';
import { RedisLineageCounters } from '../../../src/limits/redis/redis-lineage-counters';
import { lineageCountersContract } from '../../unit/limits/lineage-counters-contract';

// The descendant counts of the distributed profile on a real Redis: two replicas' counters share them.

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `baton-test:lineage:${process.pid}:${Date.now()}:`;
let run = 0;

afterAll(async () => {
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  await r.quit();
});

describe('RedisLineageCounters (two replicas)', () => {
  lineageCountersContract(async () => {
    run += 1;
    return { a: new RedisLineageCounters(new Redis(REDIS_URL), prefix), b: new RedisLineageCounters(new Redis(REDIS_URL), prefix), root: (n) => `${n}-${run}` };
  });

  it('every key of a root expires once its tree idles', async () => {
    const c = new RedisLineageCounters(new Redis(REDIS_URL), prefix, 60_000);
    const r = new Redis(REDIS_URL);
    try {
      expect(await c.tryStart('expiring', 'child', { maxDescendants: 5, maxPerSecond: 5 }, Date.now())).toBe('admitted');
      const keys = (await r.keys(`${prefix}lineage:{expiring}:*`)).sort();
      expect(keys).toEqual([`${prefix}lineage:{expiring}:ids`, `${prefix}lineage:{expiring}:starts`]);
      const ids = await r.pttl(keys[0]!);
      const starts = await r.pttl(keys[1]!);
      expect(ids).toBeGreaterThan(0);
      expect(ids).toBeLessThanOrEqual(60_000);
      expect(starts).toBeGreaterThan(0);
      expect(starts).toBeLessThanOrEqual(60_000);
    } finally {
      await c.close();
      await r.quit();
    }
  });
});
