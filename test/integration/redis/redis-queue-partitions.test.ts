import Redis from 'ioredis';
import type { QueueActorClient } from '../../../src/actors/protocol/queue-protocol';
import { RedisQueuePartitions } from '../../../src/queues/redis/redis-queue-partitions';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// Task-queue partitions in Redis answer the QueueActor's calls the same way: idempotent pushes, priority
// then first-in order, delays, takes, removals; two replicas never take one entry twice.
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
  const takeIds = async (q: QueueActorClient, count: number): Promise<string[]> => (await q.take({ count, now })).entries.map((e) => e.taskId);
  const keysOf = (partitionId: string) => {
    const tag = `t${process.pid}:queue:{${partitionId}}`;
    return { e: `${tag}:e`, r: `${tag}:r`, d: `${tag}:d`, l: `${tag}:l` };
  };

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
    const first = await q.take({ count: 3, now });
    expect(first.entries).toEqual([entry('b', { priority: 1 }), entry('d', { priority: 1 }), entry('a', { priority: 5 })]);
    expect(await takeIds(q, 10)).toEqual(['c']);
    expect(await takeIds(q, 10)).toEqual([]);
  });

  test('a take of over a thousand entries hands each out once, in order, and leaves no record behind', async () => {
    const q = fresh();
    const ids = Array.from({ length: 1203 }, (_, i) => `t${String(i).padStart(5, '0')}`);
    await q.pushMany(ids.map((id) => entry(id)));
    const taken = await q.take({ count: 1202, now });
    expect(taken.entries.map((e) => e.taskId)).toEqual(ids.slice(0, 1202));
    expect(taken.entries[601]).toEqual(entry(ids[601]));
    expect(await takeIds(q, 10)).toEqual([ids[1202]]);
    expect(await q.size()).toBe(0);
  });

  test('first pushed, first out, whatever the task ids; pushes of one millisecond by task id', async () => {
    const q = fresh();
    await q.push(entry('z-first'));
    now += 1;
    await q.pushMany([entry('m-second'), entry('a-second')]);
    now += 1;
    await q.push(entry('b-third'));
    expect(await takeIds(q, 10)).toEqual(['z-first', 'a-second', 'm-second', 'b-third']);
  });

  test('a push is idempotent by task id: a pending entry only moves earlier; a taken one is pushed anew', async () => {
    const q = fresh();
    expect(await q.push(entry('a', { visibleAt: now + 5000 }))).toBe(true);
    expect(await q.push(entry('a', { visibleAt: now + 9000 }))).toBe(false);
    expect(await q.push(entry('a', { visibleAt: now }))).toBe(true);
    expect(await q.size()).toBe(1);
    expect(await takeIds(q, 5)).toEqual(['a']);
    expect(await q.size()).toBe(0);
    expect(await q.push(entry('a', { visibleAt: now + 1000 }))).toBe(true);
    expect(await takeIds(q, 5)).toEqual([]);
    now += 1000;
    expect(await takeIds(q, 5)).toEqual(['a']);
  });

  test('a delayed entry is visible from its time on, and the take tells when the next one comes', async () => {
    const q = fresh();
    await q.push(entry('later', { visibleAt: now + 3000 }));
    const r = await q.take({ count: 1, now });
    expect(r).toEqual({ entries: [], nextVisibleAt: now + 3000 });
    now += 3000;
    expect(await takeIds(q, 1)).toEqual(['later']);
  });

  test('removal takes pending and delayed entries out for good', async () => {
    const q = fresh();
    await q.pushMany([entry('r'), entry('s', { visibleAt: now + 500 }), entry('t')]);
    expect(await q.remove({ taskId: 's' })).toBe(true);
    expect(await q.remove({ taskId: 's' })).toBe(false);
    expect(await q.remove({ taskId: 'r' })).toBe(true);
    expect(await q.size()).toBe(1);
    now += 500;
    expect(await takeIds(q, 3)).toEqual(['t']);
  });

  test('a backlog of 200,000 entries: a higher-priority entry pushed after it is handed out first', async () => {
    const q = fresh();
    for (let from = 0; from < 200_000; from += 5000) await q.pushMany(Array.from({ length: 5000 }, (_, i) => entry(`b${from + i}`, { priority: 99 })));
    await q.push(entry('urgent', { priority: 0 }));
    expect(await q.size()).toBe(200_001);
    expect(await takeIds(q, 2)).toEqual(['urgent', 'b0']);
    expect(await q.size()).toBe(199_999);
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

  test("a task's way through a partition (pushed, then taken by a poll) costs Redis at most 8 commands", async () => {
    const q = fresh();
    await q.push(entry('warm')); // loads the scripts on this connection
    await takeIds(q, 1);
    const spent = await commandsDuring(async () => {
      expect(await q.push(entry('t1'))).toBe(true);
      expect(await takeIds(q, 1)).toEqual(['t1']);
    });
    expect(await q.size()).toBe(0);
    expect(spent).toBeLessThanOrEqual(8);
  });

  test('takes of a batch cost each entry at most 5.3 commands from its push on', async () => {
    const q = fresh();
    await q.push(entry('warm'));
    await takeIds(q, 1);
    const ids = Array.from({ length: 10 }, (_, i) => `b${i}`);
    const spent = await commandsDuring(async () => {
      for (const id of ids) await q.push(entry(id));
      expect(await takeIds(q, 10)).toEqual(ids);
    });
    expect(await q.size()).toBe(0);
    expect(spent / ids.length).toBeLessThanOrEqual(5.3);
  });

  test('an entry an earlier version leased comes back when its lease ends, and taken or removed leaves no trace', async () => {
    const partitionId = `q${++seq}:0`;
    const q = partitions().partition(partitionId);
    await q.pushMany([entry('x'), entry('y', { visibleAt: now + 100 })]);
    // What a replica of an earlier version did to lease an entry (its lease script's writes).
    const k = keysOf(partitionId);
    const probe = new Redis(url);
    const leaseAsEarlierVersion = (id: string, until: number) => probe.multi().zrem(k.r, id).zrem(k.d, id).sadd(k.l, id).zadd(k.d, until, id).exec();
    await leaseAsEarlierVersion('x', now + 50);
    expect(await q.size()).toBe(1); // leased elsewhere: not held here
    expect(await q.push(entry('x', { visibleAt: now + 1000 }))).toBe(true); // its claim failed there: pending again
    expect(await probe.scard(k.l)).toBe(0);
    await leaseAsEarlierVersion('x', now + 50);
    expect(await takeIds(q, 2)).toEqual([]);
    now += 100;
    // x's lease ran out and y came due: both are ready again, x first (it came first)
    expect(await takeIds(q, 1)).toEqual(['x']);
    expect(await q.remove({ taskId: 'y' })).toBe(true);
    const keys = await probe.keys(`t${process.pid}:queue:{${partitionId}}:*`);
    probe.disconnect();
    expect(keys).toEqual([]); // every hash and set emptied, so Redis dropped them
  });

  test('two replicas taking from one partition at once never get the same entry', async () => {
    const id = `shared${++seq}:0`;
    const [a, b] = [partitions().partition(id), partitions().partition(id)];
    await a.pushMany(Array.from({ length: 200 }, (_, i) => entry(`e${i}`)));
    const got = await Promise.all(Array.from({ length: 40 }, (_, i) => takeIds(i % 2 ? a : b, 7)));
    const all = got.flat();
    expect(all).toHaveLength(200);
    expect(new Set(all).size).toBe(200);
  });
});
