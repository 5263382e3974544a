import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GiveUp, logPath, portOpen, TestProcess, waitFor } from './processes';

/** A redis-server of the test's own (Debian package redis-server) on a free loopback port, nothing saved. */
export async function startRedisServer(): Promise<{ url: string; server: TestProcess }> {
  const port = await freePort();
  const bin = process.env.BATON_REDIS_SERVER_BIN ?? 'redis-server';
  const server = new TestProcess(
    'redis',
    bin,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    logPath(mkdtempSync(join(tmpdir(), 'baton-redis-')), 'redis'),
  );
  await waitFor(
    async () => {
      if (!server.running) throw new GiveUp(`${bin} did not start (Debian package redis-server installed?): ${server.tail()}`);
      return (await portOpen(port)) || undefined;
    },
    'redis-server',
    30_000,
  );
  return { url: `redis://127.0.0.1:${port}`, server };
}
