import type { TestProcess } from './processes';

/** jest globalTeardown: stops the redis-server the global setup started, if it did. */
export default async function stopRedis(): Promise<void> {
  await (globalThis as { __batonRedis?: TestProcess }).__batonRedis?.stop(5000);
}
