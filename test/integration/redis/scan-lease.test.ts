import Redis from 'ioredis';
import { RedisScanLease } from '../../../src/limits/redis/redis-scan-lease';
import { waitFor } from '../../support/processes';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// The recovery scan's lease on a redis-server of this test's own (Debian package redis-server).
describe('RedisScanLease', () => {
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
});
