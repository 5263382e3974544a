import Redis from 'ioredis';
import { MetadataChanges } from '../../../src/composition/metadata-changes';
import { subscribeWhenReady } from '../../../src/limits/redis/subscription';
import { startRedisServer, type RedisServer } from '../../support/redis-server';

// Subscriptions asked for while a connection is between "connected" and "ready" (a replica starting next to a
// slow Redis): ioredis would lose them at its ready check, and a replica would never hear definition changes.
describe('Redis subscriptions made while the connection is not ready yet', () => {
  let redis: RedisServer | undefined;
  const owned: Redis[] = [];
  const connection = (): Redis => {
    const c = new Redis(redis!.url);
    owned.push(c);
    return c;
  };
  /** Runs `subscribe` in the window where ioredis writes a SUBSCRIBE at once: connected, ready check pending. */
  const inConnectWindow = <T>(conn: Redis, subscribe: () => Promise<T>): Promise<T> =>
    new Promise((resolve, reject) => conn.once('connect', () => subscribe().then(resolve, reject)));
  const subscribers = async (channel: string): Promise<number> => Number(((await owned[0]!.pubsub('NUMSUB', channel)) as [string, number])[1]);

  beforeAll(async () => {
    redis = await startRedisServer();
    connection(); // owned[0]: asks Redis who is subscribed
  });
  afterAll(async () => {
    for (const c of owned) c.disconnect();
    await redis?.stop();
  });

  test('a subscription asked for in the connect window is in place once the connection is ready, and hears a message', async () => {
    const conn = connection();
    await inConnectWindow(conn, () => subscribeWhenReady(conn, 'window'));
    expect(conn.status).toBe('ready');
    expect(await subscribers('window')).toBe(1);
    const heard = new Promise<string>((resolve) => conn.once('message', (_channel: string, m: string) => resolve(m)));
    await owned[0]!.publish('window', 'hello');
    expect(await heard).toBe('hello');
  });

  test("a replica whose definition watch starts in the connect window hears another replica's change", async () => {
    const quiet = { warn: () => undefined };
    const watching = new MetadataChanges(connection(), connection(), 'sub-test:', quiet);
    let reloads = 0;
    const subscriber = owned[owned.length - 1]!;
    await inConnectWindow(subscriber, () => watching.start(async () => void reloads++));
    const writer = new MetadataChanges(connection(), connection(), 'sub-test:', quiet);
    await writer.start(async () => undefined);
    await writer.changed();
    // The turn gate waits for the reload the change caused once it is heard.
    for (let i = 0; i < 100 && reloads === 0; i++) {
      await watching.settled();
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(reloads).toBe(1);
    await Promise.all([watching.close(), writer.close()]);
  });

  test('a replica that lost its subscription catches up on a change when asked, with one read of the generation', async () => {
    const quiet = { warn: () => undefined };
    const subscriber = connection();
    const watching = new MetadataChanges(connection(), subscriber, 'catch-up:', quiet);
    let reloads = 0;
    await watching.start(async () => void reloads++);
    await subscriber.unsubscribe('catch-up:metadata-changed'); // as if the subscription were lost
    const writer = new MetadataChanges(connection(), connection(), 'catch-up:', quiet);
    await writer.start(async () => undefined);
    await writer.changed();
    expect(watching.settled()).toBeUndefined(); // nothing heard
    await watching.catchUp();
    expect(reloads).toBe(1);
    await watching.catchUp();
    expect(reloads).toBe(1);
    await Promise.all([watching.close(), writer.close()]);
  });

  test('a connection closed before it was ready fails the subscription instead of waiting forever', async () => {
    const conn = new Redis(redis!.url, { lazyConnect: true });
    const subscribing = subscribeWhenReady(conn, 'never');
    conn.disconnect();
    await expect(subscribing).rejects.toThrow(/closed before subscribing to never/);
  });
});
