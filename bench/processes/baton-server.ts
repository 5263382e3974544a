import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningBaton {
  child: ManagedChild;
  baseUrl: string;
  dataDir: string;
  stop(): Promise<void>;
}

/** Starts `node dist/main.js` (embedded profile) on a free port with a fresh data directory and waits for /health. */
export async function startBaton(projectRoot: string, opts: { cpuProfileDir?: string; startTimeoutMs?: number } = {}): Promise<RunningBaton> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'baton-bench-'));
  const nodeArgs = opts.cpuProfileDir ? ['--cpu-prof', `--cpu-prof-dir=${opts.cpuProfileDir}`] : [];
  const child = ManagedChild.spawn('baton', process.execPath, [...nodeArgs, join(projectRoot, 'dist', 'main.js')], {
    cwd: projectRoot,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', BATON_DATA_DIR: dataDir, LOG_LEVEL: 'warn', NODE_ENV: 'production' },
  });
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await child.stop(10_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await child.waitReady(async () => (await fetch(`${baseUrl}/health`)).ok, opts.startTimeoutMs ?? 30_000);
  } catch (e) {
    await stop();
    throw e;
  }
  return { child, baseUrl, dataDir, stop };
}
