import type { RedisServer } from './redis-server';

/** jest globalTeardown: stops the redis-server the global setup started, if it did, and removes its directory. */
export default async function stopRedis(): Promise<void> {
  await (globalThis as { __batonRedis?: RedisServer }).__batonRedis?.stop();
}
