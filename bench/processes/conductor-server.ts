import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port';
import { ManagedChild } from './managed-child';

export interface RunningConductor {
  child: ManagedChild;
  baseUrl: string;
  version: string;
  stop(): Promise<void>;
}

/** Why Conductor cannot run here, or undefined when CONDUCTOR_JAR and CONDUCTOR_JAVA (from `npm run services -- conductor`) exist. */
export function missingConductor(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const { CONDUCTOR_JAR: jar, CONDUCTOR_JAVA: java } = env;
  if (!jar || !java) return 'CONDUCTOR_JAR / CONDUCTOR_JAVA not recorded (run `npm run services -- conductor`)';
  if (!existsSync(jar)) return `CONDUCTOR_JAR ${jar} does not exist`;
  if (!existsSync(java)) return `CONDUCTOR_JAVA ${java} does not exist`;
  return undefined;
}

/**
 * Conductor OSS's own server from its boot jar, with the configuration it ships (SQLite for data,
 * queues and index: the same shape as Baton's embedded profile). Its datasource URL is relative
 * (`jdbc:sqlite:c123.db`), so the working directory is a fresh temp dir that holds the data and is
 * removed afterwards. Only the port and the listen address are set on the command line, plus `properties`
 * (Spring properties, e.g. another persistence) when given.
 */
export async function startConductor(opts: { heap?: string; startTimeoutMs?: number; properties?: Record<string, string> } = {}): Promise<RunningConductor> {
  const missing = missingConductor();
  if (missing) throw new Error(missing);
  const jar = process.env.CONDUCTOR_JAR as string;
  const java = process.env.CONDUCTOR_JAVA as string;
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'baton-bench-conductor-'));
  const child = ManagedChild.spawn(
    'conductor',
    java,
    [
      `-Xms${opts.heap ?? '2g'}`,
      `-Xmx${opts.heap ?? '2g'}`,
      '-XX:+UseG1GC',
      `-Duser.home=${dir}`,
      '-jar',
      jar,
      `--server.port=${port}`,
      '--server.address=127.0.0.1',
      ...Object.entries(opts.properties ?? {}).map(([k, v]) => `--${k}=${v}`),
    ],
    // user.home too: its AI module writes worker payloads there
    { cwd: dir },
  );
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    await child.stop(20_000);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // the REST API answers only once every bean is up, so a metadata read is the readiness probe
    await child.waitReady(
      async () => (await fetch(`${baseUrl}/api/metadata/taskdefs`, { signal: AbortSignal.timeout(5000) })).ok,
      opts.startTimeoutMs ?? 300_000,
    );
  } catch (e) {
    await stop();
    throw e;
  }
  return { child, baseUrl, version: process.env.CONDUCTOR_VERSION ?? 'unknown', stop };
}
