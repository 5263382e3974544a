import { startRedisServer, type RedisServer } from './redis-server';

/**
 * jest globalSetup: the suites that need Redis get a redis-server of their own on a free port
 * (REDIS_URL, read by every worker), unless REDIS_URL already points at one.
 */
export default async function startRedis(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const redis = await startRedisServer();
  process.env.REDIS_URL = redis.url;
  (globalThis as { __batonRedis?: RedisServer }).__batonRedis = redis;
}
