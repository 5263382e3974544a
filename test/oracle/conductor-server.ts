import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, TestProcess, waitFor, GiveUp } from '../support/processes';

/** Why Conductor cannot be started here (undefined when it can): `npm run services` records CONDUCTOR_JAR and CONDUCTOR_JAVA. */
export function conductorMissing(env: NodeJS.ProcessEnv = process.env): string | undefined {
  if (env.ORACLE_CONDUCTOR_URL) return undefined;
  if (!env.CONDUCTOR_JAR || !env.CONDUCTOR_JAVA) return 'CONDUCTOR_JAR / CONDUCTOR_JAVA not recorded (scripts/services/conductor.sh provision && start)';
  return undefined;
}

export interface RunningConductor {
  url: string;
  /** How long the server took from spawn to a healthy answer, in ms (0 when an external one is used). */
  bootMs: number;
  stop(): Promise<void>;
}

/**
 * Conductor OSS's own server with its default configuration (SQLite for persistence, queues and
 * index), on a free port, its database in a fresh temp dir (the working directory), -Xmx2g.
 * ORACLE_CONDUCTOR_URL points the suite at a server already running instead (for iterating on
 * scenarios without paying the boot each time).
 */
export async function startConductor(env: NodeJS.ProcessEnv = process.env): Promise<RunningConductor> {
  if (env.ORACLE_CONDUCTOR_URL) return { url: env.ORACLE_CONDUCTOR_URL.replace(/\/$/, ''), bootMs: 0, stop: async () => undefined };
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'oracle-conductor-'));
  const started = Date.now();
  const proc = new TestProcess(
    'conductor',
    env.CONDUCTOR_JAVA!,
    ['-Xmx2g', '-jar', env.CONDUCTOR_JAR!, `--server.port=${port}`, '--server.address=127.0.0.1'],
    join(dir, 'conductor.log'),
    env,
    dir,
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    // Its boot takes minutes on a loaded two-core machine (Spring, GraalJS, every AI provider's client).
    await waitFor(
      async () => {
        if (!proc.running) throw new GiveUp(`conductor exited (${proc.exitCode}); log: ${proc.logFile}\n${proc.tail()}`);
        const res = await fetch(`${url}/health`);
        return res.ok && ((await res.json()) as { healthy?: boolean }).healthy ? true : undefined;
      },
      'conductor health',
      600_000,
      1_000,
    );
  } catch (err) {
    await proc.kill();
    throw err;
  }
  return {
    url,
    bootMs: Date.now() - started,
    async stop() {
      await proc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
