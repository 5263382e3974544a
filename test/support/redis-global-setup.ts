import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GiveUp, logPath, portOpen, TestProcess, waitFor } from './processes';

/**
 * jest globalSetup: the suites that need Redis get a redis-server of their own on a free port
 * (REDIS_URL, read by every worker), unless REDIS_URL already points at one.
 */
export default async function startRedis(): Promise<void> {
  if (process.env.REDIS_URL) return;
  const port = await freePort();
  const bin = process.env.BATON_REDIS_SERVER_BIN ?? 'redis-server';
  const server = new TestProcess('redis', bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], logPath(mkdtempSync(join(tmpdir(), 'baton-redis-')), 'redis'));
  await waitFor(async () => {
    if (!server.running) throw new GiveUp(`${bin} did not start (Debian package redis-server installed?): ${server.tail()}`);
    return (await portOpen(port)) || undefined;
  }, 'redis-server', 30_000);
  process.env.REDIS_URL = `redis://127.0.0.1:${port}`;
  (globalThis as { __batonRedis?: TestProcess }).__batonRedis = server;
}
