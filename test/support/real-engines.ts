import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where `npm run services` recorded the engines it started: one `<service>.env` file per service
 * (KEY=VALUE lines) in $BATON_RUN_DIR (default ~/.cache/baton/run). Variables already set in the
 * environment win, so a user can point the suites at servers of their own.
 */
export const runDir = (): string => process.env.BATON_RUN_DIR ?? join(process.env.BATON_CACHE_DIR ?? join(homedir(), '.cache', 'baton'), 'run');

export function loadServiceEnv(env: NodeJS.ProcessEnv = process.env): void {
  const dir = runDir();
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.env'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m && env[m[1]] === undefined) env[m[1]] = m[2];
    }
  }
}

/**
 * Decides at load time whether a real-engine suite runs. Missing engine: with CI=true the suite
 * fails (an engine CI could not provision is a failure, never a silent skip); elsewhere it is
 * skipped with the reason printed.
 */
export function engineSuite(engine: string, missing: string | undefined): typeof describe {
  if (!missing) return describe;
  const reason = `${engine} not available: ${missing} (run \`npm run services\`)`;
  if (process.env.CI === 'true') {
    return ((name: string) =>
      describe(name, () => {
        it(`needs ${engine}`, () => {
          throw new Error(reason);
        });
      })) as unknown as typeof describe;
  }
  console.warn(`[${engine}] skipped: ${reason}`);
  return describe.skip;
}
