import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import IORedis from 'ioredis';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningRedis {
  port: number;
  pid: number;
  stop(): Promise<void>;
}

/** A private redis-server with AOF fsync every second (durability comparable to SQLite WAL + synchronous=NORMAL). */
export async function startRedis(binary = '/usr/bin/redis-server'): Promise<RunningRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-redis-'));
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--appendonly',
    'yes',
    '--appendfsync',
    'everysec',
    '--save',
    '',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
  const child = ManagedChild.spawn('redis-server', binary, args, { cwd: dir });
  const stop = async (): Promise<void> => {
    await child.stop(5000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await child.waitReady(async () => {
      const client = new IORedis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      client.on('error', () => undefined); // refused connections are expected until redis listens
      try {
        await client.connect();
        return (await client.ping()) === 'PONG';
      } finally {
        client.disconnect();
      }
    }, 10_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { port, pid: child.pid, stop };
}
