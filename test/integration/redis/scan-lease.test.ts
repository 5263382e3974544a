import Redis from 'ioredis';
import { RedisReplicaRoster } from '../../../src/limits/redis/redis-replica-roster';
import { RedisScanLease } from '../../../src/limits/redis/redis-scan-lease';
import { waitFor } from '../../support/processes';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// The recovery scan's lease and its roster of live replicas on a redis-server of this test's own (Debian package redis-server).
describe('RedisScanLease and RedisReplicaRoster', () => {
  let redis: RedisServer | undefined;
  let url: string;
  const clients: Redis[] = [];
  const client = (): Redis => {
    const c = new Redis(url);
    clients.push(c);
    return c;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    url = redis.url;
  });
  afterAll(async () => {
    for (const c of clients) await c.quit();
    await redis?.stop();
  });

  test('one holder at a time; the holder renews; release frees it; expiry frees it', async () => {
    const a = new RedisScanLease(client(), 't:', 'scan');
    const b = new RedisScanLease(client(), 't:', 'scan');
    expect(await a.acquire(5000)).toBe(true);
    expect(await b.acquire(5000)).toBe(false);
    expect(await a.acquire(5000)).toBe(true); // renewal
    await b.release(); // not the holder: no effect
    expect(await b.acquire(5000)).toBe(false);
    await a.release();
    expect(await b.acquire(200)).toBe(true);
    await waitFor(async () => ((await a.acquire(5000)) ? true : undefined), 'lease expiry', 5000, 50);
    expect(await b.acquire(5000)).toBe(false);
  });

  test('a replica whose mark runs out is reported once, to one caller; one that keeps marking never is', async () => {
    const alive = new RedisReplicaRoster(client(), 't:', 'scan', 'alive');
    const dying = new RedisReplicaRoster(client(), 't:', 'scan', 'dying');
    const other = new RedisReplicaRoster(client(), 't:', 'scan', 'other');
    await alive.beat(60_000);
    await dying.beat(150);
    expect(await alive.departed()).toEqual([]);
    const gone = await waitFor(
      async () => {
        const d = await alive.departed();
        return d.length > 0 ? d : undefined;
      },
      'the mark running out',
      5000,
      25,
    );
    expect(gone).toHaveLength(1);
    expect(gone[0]).toMatch(/^dying\/[0-9a-f]{8}$/);
    expect(await other.departed()).toEqual([]); // reported to one caller only
    await dying.beat(60_000); // marking again (a stalled replica that came back): a member again, not departed
    expect(await other.departed()).toEqual([]);
  });

  test('rosters of different names and prefixes do not see each other', async () => {
    const a = new RedisReplicaRoster(client(), 'p1:', 'scan', 'a');
    const b = new RedisReplicaRoster(client(), 'p2:', 'scan', 'b');
    await a.beat(1);
    await new Promise((r) => setTimeout(r, 20));
    expect(await b.departed()).toEqual([]);
    expect(await a.departed()).toHaveLength(1);
  });
});
