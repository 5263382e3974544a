import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, GiveUp, logPath, portOpen, TestProcess, waitFor } from './processes';

/** A redis-server of the test's own; stop() ends it and removes its log directory. */
export interface RedisServer {
  url: string;
  server: TestProcess;
  stop(): Promise<void>;
}

/** A redis-server of the test's own (Debian package redis-server) on a free loopback port, nothing saved. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort();
  const bin = process.env.BATON_REDIS_SERVER_BIN ?? 'redis-server';
  // Not tempDir: the jest global setup runs outside any test file, so the owner removes it.
  const dir = mkdtempSync(join(tmpdir(), 'baton-redis-'));
  const server = new TestProcess('redis', bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], logPath(dir, 'redis'));
  const stop = async (): Promise<void> => {
    try {
      await server.stop(5000);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  try {
    await waitFor(
      async () => {
        if (!server.running) throw new GiveUp(`${bin} did not start (Debian package redis-server installed?): ${server.tail()}`);
        return (await portOpen(port)) || undefined;
      },
      'redis-server',
      30_000,
    );
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `redis://127.0.0.1:${port}`, server, stop };
}
