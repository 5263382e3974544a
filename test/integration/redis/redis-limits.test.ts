import Redis from 'ioredis';
import { RedisTaskLimits } from '../../../src/limits/redis/redis-task-limits';
import { RedisWakeUps } from '../../../src/limits/redis/redis-wake-ups';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const prefix = `baton-test:limits:${process.pid}:${Date.now()}:`;

const deleteKeys = async (): Promise<void> => {
  const r = new Redis(REDIS_URL);
  const keys = await r.keys(`${prefix}*`);
  if (keys.length) await r.del(...keys);
  await r.quit();
};

describe('Redis wake-ups (two replicas)', () => {
  let a: RedisWakeUps;
  let b: RedisWakeUps;

  beforeAll(async () => {
    a = new RedisWakeUps(new Redis(REDIS_URL), prefix);
    b = new RedisWakeUps(new Redis(REDIS_URL), prefix);
    await Promise.all([a.ready(), b.ready()]);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('a poll waiting on replica B returns when replica A notifies its queue', async () => {
    const waiting = b.wait('SIMPLE_A', 30_000);
    a.notify('SIMPLE_A');
    await expect(waiting).resolves.toBe(true);
  });

  it('a notify for another queue does not wake the waiter; the timeout does', async () => {
    const waiting = b.wait('SIMPLE_B', 300);
    a.notify('SIMPLE_OTHER');
    await expect(waiting).resolves.toBe(false);
  });

  it('wakes local waiters of the notifying replica too', async () => {
    const waiting = a.wait('LOCAL_Q', 30_000);
    a.notify('LOCAL_Q');
    await expect(waiting).resolves.toBe(true);
  });

  it('an aborted wait resolves false', async () => {
    const ctrl = new AbortController();
    const waiting = b.wait('ABORTED_Q', 30_000, ctrl.signal);
    ctrl.abort();
    await expect(waiting).resolves.toBe(false);
  });

  it('close resolves pending waits with false', async () => {
    const c = new RedisWakeUps(new Redis(REDIS_URL), prefix);
    await c.ready();
    const waiting = c.wait('CLOSING_Q', 30_000);
    await c.close();
    await expect(waiting).resolves.toBe(false);
  });
});

describe('Redis task limits (two replicas)', () => {
  let a: RedisTaskLimits;
  let b: RedisTaskLimits;

  beforeAll(() => {
    a = new RedisTaskLimits(new Redis(REDIS_URL), { keyPrefix: prefix });
    b = new RedisTaskLimits(new Redis(REDIS_URL), { keyPrefix: prefix });
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
    await deleteKeys();
  });

  it('rate window: N grants per window across replicas, then refusals until the window slides', async () => {
    const t0 = 1_000_000;
    const results = [
      await a.tryRate('rated', 3, 10, t0),
      await b.tryRate('rated', 3, 10, t0 + 1),
      await a.tryRate('rated', 3, 10, t0 + 2),
      await b.tryRate('rated', 3, 10, t0 + 3),
    ];
    expect(results).toEqual([true, true, true, false]);
    expect(await a.tryRate('rated', 3, 10, t0 + 9_999)).toBe(false);
    // The first grant (t0) leaves the 10 s window at t0 + 10 s: one more slot.
    expect(await b.tryRate('rated', 3, 10, t0 + 10_000)).toBe(true);
    expect(await a.tryRate('rated', 3, 10, t0 + 10_000)).toBe(false);
  });

  it('rate 0 means unlimited', async () => {
    for (let i = 0; i < 5; i++) expect(await a.tryRate('unlimited', 0, 10, 5)).toBe(true);
  });

  it('concurrent rate checks never grant more than the limit', async () => {
    const now = 2_000_000;
    const grants = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).tryRate('raced', 5, 60, now)));
    expect(grants.filter(Boolean)).toHaveLength(5);
  });

  it('concurrency: limit slots across replicas, idempotent by task id, freed by release', async () => {
    expect(await a.tryAcquire('conc', 2, 't1')).toBe(true);
    expect(await b.tryAcquire('conc', 2, 't2')).toBe(true);
    expect(await a.tryAcquire('conc', 2, 't3')).toBe(false);
    // The same task asking again keeps its slot instead of taking a new one.
    expect(await b.tryAcquire('conc', 2, 't1')).toBe(true);
    expect(await b.tryAcquire('conc', 2, 't2')).toBe(true);
    await b.release('conc', 't1');
    await b.release('conc', 't1'); // second release is a no-op
    expect(await a.tryAcquire('conc', 2, 't3')).toBe(true);
    expect(await a.tryAcquire('conc', 2, 't4')).toBe(false);
  });

  it('concurrent acquires of distinct tasks never exceed the limit', async () => {
    const held = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).tryAcquire('conc-race', 4, `task-${i}`)));
    expect(held.filter(Boolean)).toHaveLength(4);
  });

  it('a slot never released expires after its TTL', async () => {
    const short = new RedisTaskLimits(new Redis(REDIS_URL), { keyPrefix: prefix, slotTtlMs: 200 });
    try {
      expect(await short.tryAcquire('ttl', 1, 'lost-task')).toBe(true);
      expect(await short.tryAcquire('ttl', 1, 'next-task')).toBe(false);
      const deadline = Date.now() + 10_000;
      let acquired = false;
      while (!acquired && Date.now() < deadline) {
        acquired = await short.tryAcquire('ttl', 1, 'next-task');
        if (!acquired) await new Promise((r) => setTimeout(r, 50));
      }
      expect(acquired).toBe(true);
    } finally {
      await short.close();
    }
  });

  it('limit 0 means unlimited', async () => {
    for (let i = 0; i < 5; i++) expect(await a.tryAcquire('free', 0, `x${i}`)).toBe(true);
  });
});
