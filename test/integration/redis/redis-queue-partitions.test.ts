import Redis from 'ioredis';
import type { QueueActorClient } from '../../../src/actors/protocol/queue-protocol';
import { RedisQueuePartitions } from '../../../src/queues/redis/redis-queue-partitions';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// Task-queue partitions in Redis answer the QueueActor's calls the same way: idempotent pushes, priority
// then first-in order, delays, leases that expire, releases, removals; two replicas never lease one entry twice.
describe('RedisQueuePartitions on a redis-server of its own', () => {
  let redis: RedisServer | undefined;
  let url: string;
  const owned: RedisQueuePartitions[] = [];
  let now = 1_000_000;
  const partitions = (): RedisQueuePartitions => {
    const p = new RedisQueuePartitions(new Redis(url), `t${process.pid}:`, () => now);
    owned.push(p);
    return p;
  };
  let seq = 0;
  const fresh = (p = partitions()): QueueActorClient => p.partition(`q${++seq}:0`);
  const entry = (taskId: string, extra: Partial<{ priority: number; visibleAt: number }> = {}) => ({
    taskId,
    workflowId: `wf-${taskId}`,
    priority: 0,
    visibleAt: now,
    ...extra,
  });
  const leaseIds = async (q: QueueActorClient, count: number, leaseMs = 60_000): Promise<string[]> =>
    (await q.lease({ count, now, leaseMs })).entries.map((e) => e.taskId);

  beforeAll(async () => {
    redis = await startRedisServer();
    url = redis.url;
  });
  afterAll(async () => {
    for (const p of owned) await p.close();
    await redis?.stop();
  });

  test('hands entries out by priority, then in the order they came, each once, with their fields', async () => {
    const q = fresh();
    await q.pushMany([entry('a', { priority: 5 }), entry('b', { priority: 1 }), entry('c', { priority: 5 }), entry('d', { priority: 1 })]);
    const first = await q.lease({ count: 3, now, leaseMs: 60_000 });
    expect(first.entries).toEqual([entry('b', { priority: 1 }), entry('d', { priority: 1 }), entry('a', { priority: 5 })]);
    expect(await leaseIds(q, 10)).toEqual(['c']);
    expect(await leaseIds(q, 10)).toEqual([]);
  });

  test('a push is idempotent by task id: a pending entry only moves earlier, a leased one becomes pending again', async () => {
    const q = fresh();
    expect(await q.push(entry('a', { visibleAt: now + 5000 }))).toBe(true);
    expect(await q.push(entry('a', { visibleAt: now + 9000 }))).toBe(false);
    expect(await q.push(entry('a', { visibleAt: now }))).toBe(true);
    expect(await leaseIds(q, 5)).toEqual(['a']);
    expect(await q.stats()).toEqual({ size: 1, leased: 1 });
    expect(await q.push(entry('a'))).toBe(true);
    expect(await q.stats()).toEqual({ size: 1, leased: 0 });
    expect(await leaseIds(q, 5)).toEqual(['a']);
  });

  test('a delayed entry is visible from its time on, and the lease tells when the next one comes', async () => {
    const q = fresh();
    await q.push(entry('later', { visibleAt: now + 3000 }));
    const r = await q.lease({ count: 1, now, leaseMs: 60_000 });
    expect(r).toEqual({ entries: [], nextVisibleAt: now + 3000 });
    now += 3000;
    expect(await leaseIds(q, 1)).toEqual(['later']);
  });

  test('a lease not settled in time expires and the entry is handed out again', async () => {
    const q = fresh();
    await q.push(entry('x'));
    expect(await leaseIds(q, 1, 1000)).toEqual(['x']);
    expect(await q.size({ now })).toBe(0);
    now += 999;
    expect(await leaseIds(q, 1)).toEqual([]);
    now += 1;
    expect(await leaseIds(q, 1)).toEqual(['x']);
  });

  test('release puts a leased entry back at a time; removal takes entries out for good', async () => {
    const q = fresh();
    await q.pushMany([entry('r'), entry('s'), entry('t')]);
    expect(await leaseIds(q, 3)).toEqual(['r', 's', 't']);
    expect(await q.release({ taskId: 'r', visibleAt: now + 500 })).toBe(true);
    expect(await q.release({ taskId: 'nope', visibleAt: now })).toBe(false);
    expect(await q.remove({ taskId: 's' })).toBe(true);
    expect(await q.remove({ taskId: 's' })).toBe(false);
    await q.removeMany({ taskIds: ['t', 'unknown'] });
    expect(await q.stats()).toEqual({ size: 1, leased: 0 });
    expect(await leaseIds(q, 3)).toEqual([]);
    now += 500;
    expect(await leaseIds(q, 3)).toEqual(['r']);
  });

  test('a backlog of 200,000 entries: a higher-priority entry pushed after it is handed out first', async () => {
    const q = fresh();
    for (let from = 0; from < 200_000; from += 5000) await q.pushMany(Array.from({ length: 5000 }, (_, i) => entry(`b${from + i}`, { priority: 99 })));
    await q.push(entry('urgent', { priority: 0 }));
    expect(await q.stats()).toEqual({ size: 200_001, leased: 0 });
    expect(await leaseIds(q, 2)).toEqual(['urgent', 'b0']);
    expect(await q.size({ now })).toBe(199_999);
  });

  /** Commands Redis ran while `body` ran, a script's own commands included (what INFO's total counts). */
  const commandsDuring = async (body: () => Promise<void>): Promise<number> => {
    const probe = new Redis(url);
    try {
      const total = async (): Promise<number> => Number(/total_commands_processed:(\d+)/.exec(await probe.info('stats'))?.[1]);
      const before = await total();
      await body();
      return (await total()) - before - 1; // the first INFO counts itself
    } finally {
      probe.disconnect();
    }
  };

  test("a task's way through a partition (pushed, leased, removed once claimed) costs Redis at most 14 commands", async () => {
    const q = fresh();
    await q.push(entry('warm')); // loads the scripts on this connection
    await q.removeMany({ taskIds: (await q.lease({ count: 1, now, leaseMs: 60_000 })).entries.map((e) => e.taskId) });
    const spent = await commandsDuring(async () => {
      expect(await q.push(entry('t1'))).toBe(true);
      expect(await leaseIds(q, 1)).toEqual(['t1']);
      await q.removeMany({ taskIds: ['t1'] });
    });
    expect(await q.stats()).toEqual({ size: 0, leased: 0 });
    expect(spent).toBeLessThanOrEqual(14);
  });

  test('leases of a batch cost each entry at most 11 commands from its push to its removal', async () => {
    const q = fresh();
    await q.push(entry('warm'));
    await q.removeMany({ taskIds: await leaseIds(q, 1) });
    const ids = Array.from({ length: 10 }, (_, i) => `b${i}`);
    const spent = await commandsDuring(async () => {
      for (const id of ids) await q.push(entry(id));
      expect(await leaseIds(q, 10)).toEqual(ids);
      await q.removeMany({ taskIds: ids });
    });
    expect(await q.stats()).toEqual({ size: 0, leased: 0 });
    expect(spent / ids.length).toBeLessThanOrEqual(11);
  });

  test('an entry whose lease ran out, pushed again or removed, leaves no trace in any set', async () => {
    const q = fresh();
    await q.pushMany([entry('x'), entry('y', { visibleAt: now + 100 })]);
    expect(await leaseIds(q, 2, 50)).toEqual(['x']);
    now += 100;
    // x's lease ran out and y came due: both are ready again, x first (it came first)
    expect(await leaseIds(q, 2)).toEqual(['x', 'y']);
    expect(await q.push(entry('x'))).toBe(true);
    expect(await q.stats()).toEqual({ size: 2, leased: 1 });
    await q.removeMany({ taskIds: ['x', 'y'] });
    expect(await q.stats()).toEqual({ size: 0, leased: 0 });
    const probe = new Redis(url);
    const keys = await probe.keys(`t${process.pid}:queue:{q${seq}:0}:*`);
    const left = keys.filter((k) => !k.endsWith(':s'));
    probe.disconnect();
    expect(left).toEqual([]); // every hash and set emptied, so Redis dropped them
  });

  test('two replicas leasing one partition at once never get the same entry', async () => {
    const id = `shared${++seq}:0`;
    const [a, b] = [partitions().partition(id), partitions().partition(id)];
    await a.pushMany(Array.from({ length: 200 }, (_, i) => entry(`e${i}`)));
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => leaseIds(i % 2 ? a : b, 7)));
    const all = got.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  });
});
