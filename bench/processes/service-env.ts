import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * What `npm run services` recorded about the engines it provisioned: one `<service>.env` file per
 * service (KEY=VALUE lines) in $BATON_RUN_DIR (default ~/.cache/baton/run). Variables already set in
 * the environment win. Same reading as the real-engine suites (test/support/real-engines.ts), which
 * the bench cannot import (that module needs jest's globals).
 */
export function loadServiceEnv(env: NodeJS.ProcessEnv = process.env): void {
  const dir = env.BATON_RUN_DIR ?? join(env.BATON_CACHE_DIR ?? join(homedir(), '.cache', 'baton'), 'run');
  if (!existsSync(dir)) return;
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.env'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const m = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
      if (m && m[1] && env[m[1]] === undefined) env[m[1]] = m[2];
    }
  }
}
