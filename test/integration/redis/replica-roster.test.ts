import Redis from 'ioredis';
import { RedisReplicaRoster } from '../../../src/limits/redis/redis-replica-roster';
import { waitFor } from '../../support/processes';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// The recovery scan's roster of live replicas on a redis-server of this test's own (Debian package redis-server).
describe('RedisReplicaRoster', () => {
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
