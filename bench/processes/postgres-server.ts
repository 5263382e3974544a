import { spawnSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningPostgres {
  port: number;
  pid: number;
  /** The superuser the cluster was created with (trust authentication, loopback only). */
  user: string;
  database: string;
  stop(): Promise<void>;
}

/** Why PostgreSQL cannot run here, or undefined when POSTGRES_BIN_DIR (from `npm run services -- postgres`) holds initdb, postgres and pg_isready. */
export function missingPostgres(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dir = env.POSTGRES_BIN_DIR;
  if (!dir) return 'POSTGRES_BIN_DIR not recorded (run `npm run services -- postgres`)';
  for (const b of ['initdb', 'postgres', 'pg_isready']) if (!existsSync(join(dir, b))) return `${join(dir, b)} does not exist`;
  return undefined;
}

/** PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` account the Debian package creates. */
function runAs(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  const id = (flag: string): number => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!(uid > 0) || !(gid > 0)) throw new Error('running as root and there is no postgres account to own the cluster');
  return { uid, gid };
}

/**
 * A private PostgreSQL cluster (initdb in a fresh temp dir, the server in the foreground) on a free
 * 127.0.0.1 port, with PostgreSQL's default durability (fsync on, synchronous_commit on); removed afterwards.
 */
export async function startPostgres(opts: { startTimeoutMs?: number } = {}): Promise<RunningPostgres> {
  const missing = missingPostgres();
  if (missing) throw new Error(missing);
  const bin = process.env.POSTGRES_BIN_DIR as string;
  const owner = runAs();
  const user = 'postgres';
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-postgres-'));
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const data = join(dir, 'data');
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', user, '--auth=trust', '-E', 'UTF8', '--locale=C'], {
    encoding: 'utf8',
    timeout: 120_000,
    ...owner,
  });
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb failed (exit ${init.status ?? init.signal}): ${(init.stderr || init.stdout || '').slice(-800)}`);
  }
  const port = await freePort();
  const child = ManagedChild.spawn(
    'postgres',
    join(bin, 'postgres'),
    ['-D', data, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=${dir}`],
    { cwd: dir, ...owner },
  );
  const stop = async (): Promise<void> => {
    // SIGTERM is PostgreSQL's smart shutdown; the bench has closed its clients by then
    await child.stop(20_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await child.waitReady(async () => {
      const r = spawnSync(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-U', user], { timeout: 5000 });
      return r.status === 0;
    }, opts.startTimeoutMs ?? 60_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { port, pid: child.pid, user, database: 'postgres', stop };
}
