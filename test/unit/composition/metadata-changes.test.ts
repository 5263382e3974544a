import { EventEmitter } from 'node:events';
import type Redis from 'ioredis';
import { MetadataChanges } from '../../../src/composition/metadata-changes';

// Definition changes heard from other replicas through Redis: a newer generation reloads the cache, and
// so does a lower one, which means Redis lost its counter (restarted without data) and counts from 1 again.

function fakeRedis(generation: number) {
  let gen = generation;
  const subscriber = Object.assign(new EventEmitter(), { status: 'ready', subscribe: async () => 1, quit: async () => 'OK' });
  const redis = { get: async () => String(gen), incr: async () => ++gen, publish: async () => 1, quit: async () => 'OK' };
  return {
    subscriber: subscriber as unknown as Redis,
    redis: redis as unknown as Redis,
    lose: () => void (gen = 0),
    message: (g: number) => subscriber.emit('message', 'p:metadata-changed', String(g)),
  };
}

async function started(generation: number) {
  const r = fakeRedis(generation);
  const changes = new MetadataChanges(r.redis, r.subscriber, 'p:', { warn: () => undefined });
  let reloads = 0;
  await changes.start(async () => void reloads++);
  return { ...r, changes, reloads: () => reloads };
}

test('a newer generation reloads the definitions; one already heard does not', async () => {
  const c = await started(40);
  c.message(40);
  expect(c.changes.settled()).toBeUndefined();
  c.message(41);
  await c.changes.settled();
  expect(c.reloads()).toBe(1);
});

test('after Redis lost its counter, the first change announced (generation 1) reloads the definitions before the next turn', async () => {
  const c = await started(40);
  c.lose();
  c.message(1);
  const pending = c.changes.settled();
  expect(pending).toBeDefined();
  await pending;
  expect(c.reloads()).toBe(1);
  expect(c.changes.settled()).toBeUndefined();
  // Counting goes on from there.
  c.message(2);
  await c.changes.settled();
  expect(c.reloads()).toBe(2);
});

test('catching up loads a change whose message has not arrived (or was lost), and nothing when the cache is current', async () => {
  const c = await started(40);
  await c.changes.catchUp();
  expect(c.reloads()).toBe(0);
  await c.redis.incr('p:metadata-generation'); // another replica's write; its message is not heard here
  expect(c.changes.settled()).toBeUndefined();
  await c.changes.catchUp();
  expect(c.reloads()).toBe(1);
  // The message arriving late reloads nothing more.
  c.message(41);
  expect(c.changes.settled()).toBeUndefined();
  expect(c.reloads()).toBe(1);
});

test('catching up with Redis unreachable goes on with the cache as it is', async () => {
  const c = await started(40);
  (c.redis as unknown as { get: () => Promise<string> }).get = async () => {
    throw new Error('Connection is closed.');
  };
  await expect(c.changes.catchUp()).resolves.toBeUndefined();
  expect(c.reloads()).toBe(0);
});

test('a generation read below the last one heard is older than that message: catching up reloads nothing', async () => {
  const c = await started(40);
  c.message(42);
  await c.changes.settled();
  expect(c.reloads()).toBe(1);
  await c.changes.catchUp(); // Redis answers 40: read before the change heard
  expect(c.reloads()).toBe(1);
  expect(c.changes.settled()).toBeUndefined();
});
