import Redis from 'ioredis';
import { LocalQueueDirectory } from '../../../src/limits/local/local-queue-directory';
import { POLL_DATA_MAX_ENTRIES, type PollRecord } from '../../../src/limits/ports';
import { RedisQueueDirectory } from '../../../src/limits/redis/redis-queue-directory';
import { eventually } from '../../support/baton';

// Poll data is kept per (task type, domain): polling ever new task types must not grow it without
// bound, in one process or in Redis. The least recently polled records go first.

const poll = (i: number, at: number): PollRecord => ({ queueName: `type_${i}`, domain: i % 2 ? 'blue' : undefined, workerId: `w${i}`, lastPollTime: at });

test('the cap is 10,000 records', () => {
  expect(POLL_DATA_MAX_ENTRIES).toBe(10_000);
});

test('the local directory keeps the most recently polled records up to its cap', async () => {
  const dir = new LocalQueueDirectory(100);
  for (let i = 0; i < 10_050; i++) dir.recordPoll(poll(i, 1000 + i));
  dir.recordPoll(poll(9_990, 50_000)); // polled again: stays
  const kept = await dir.pollData();
  expect(kept).toHaveLength(100);
  const names = new Set(kept.map((p) => p.queueName));
  expect(names.has('type_10049')).toBe(true);
  expect(names.has('type_9990')).toBe(true);
  expect(names.has('type_0')).toBe(false);
});

describe('the Redis directory', () => {
  let redis: Redis;
  let dir: RedisQueueDirectory;
  const prefix = `test:polldata:${Date.now().toString(36)}:`;

  beforeAll(() => {
    redis = new Redis(process.env.REDIS_URL!);
    dir = new RedisQueueDirectory(
      new Redis(process.env.REDIS_URL!),
      prefix,
      (e) => {
        throw e;
      },
      0,
      50,
    );
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await dir.close();
    await redis.quit();
  });

  test('keeps the hash to the most recently polled records, dropping the oldest as new ones come', async () => {
    for (let i = 0; i < 500; i++) dir.recordPoll(poll(i, 1000 + i));
    dir.recordPoll(poll(460, 90_000)); // polled again later: kept
    // Writes are fire-and-forget, sent in order on the directory's connection: wait for the last one.
    const kept = await eventually(async () => {
      const all = await dir.pollData();
      return all.some((p) => p.queueName === 'type_460' && p.lastPollTime === 90_000) ? all : undefined;
    });
    expect(kept).toHaveLength(50);
    const names = new Set(kept.map((p) => p.queueName));
    expect(names.has('type_499')).toBe(true);
    expect(names.has('type_460')).toBe(true);
    expect(names.has('type_0')).toBe(false);
    expect(await redis.zcard(`${prefix}polldata:recency`)).toBe(50);
    expect(await redis.hlen(`${prefix}polldata`)).toBe(50);
  });
});
