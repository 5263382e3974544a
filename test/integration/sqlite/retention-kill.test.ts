import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { SqliteSearchIndex } from '../../../src/search/sqlite/sqlite-index';
import { openSqliteStores } from '../../../src/store/sqlite';
import { populate } from '../../support/retention-population';

// A purging process killed with SIGKILL in the middle of a pass: what it leaves is whole executions
// (never tasks without their workflow, never an index document without its execution), and the next
// run finishes the killed pass from its journal.

const PURGE = path.join(__dirname, '../../../dist/tools/purge.js');

/** Runs the purge tool; `killOn` kills it with SIGKILL once its log holds that text twice (inside the second pass). */
function runPurge(dataDir: string, killOn?: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const child = spawn(process.execPath, [PURGE], {
    env: { ...process.env, BATON_DATA_DIR: dataDir, BATON_RETENTION_DAYS: '30', BATON_RETENTION_BATCH: '5000', LOG_LEVEL: 'info' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let seen = '';
  child.stdout.on('data', (b: Buffer) => {
    seen += b.toString();
    if (killOn && seen.split(killOn).length > 2) child.kill('SIGKILL');
  });
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

describe('retention purge killed mid-pass', () => {
  let dir: string;
  afterAll(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('SIGKILL mid-pass leaves no half execution; the next run finishes the pass', async () => {
    if (!fs.existsSync(PURGE)) throw new Error('dist/tools/purge.js missing: run `npm run build` (npm test does it in pretest)');
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-retention-kill-'));
    const now = Date.now();
    let stores = openSqliteStores(dir);
    const ids = await populate(
      stores.executions,
      new SqliteSearchIndex(stores.db),
      [
        { name: 'kill_wf', status: 'COMPLETED', endedDaysAgo: 100, count: 20_000 },
        { name: 'kill_wf', status: 'FAILED', endedDaysAgo: 2, count: 2_000 },
      ],
      now,
    );
    await stores.close();

    const killed = await runPurge(dir, 'retention pass begun');
    expect(killed.signal).toBe('SIGKILL');

    stores = openSqliteStores(dir);
    const count = (sql: string): number => (stores.db.prepare(sql).get() as { n: number }).n;
    const orphans = (): number[] => [
      count('SELECT COUNT(*) AS n FROM tasks WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)'),
      count('SELECT COUNT(*) AS n FROM idx_workflow WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)'),
      count('SELECT COUNT(*) AS n FROM idx_task WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)'),
    ];
    // Killed inside the second pass (of four): its journal is there, the first pass's executions are gone.
    expect(count('SELECT COUNT(*) AS n FROM retention_passes')).toBeGreaterThan(0);
    const left = count("SELECT COUNT(*) AS n FROM workflows WHERE status = 'COMPLETED'");
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThanOrEqual(15_000);
    expect(orphans()).toEqual([0, 0, 0]);
    await stores.close();

    const rerun = await runPurge(dir);
    expect(rerun.code).toBe(0);

    stores = openSqliteStores(dir);
    try {
      expect(count('SELECT COUNT(*) AS n FROM retention_passes')).toBe(0);
      expect(count("SELECT COUNT(*) AS n FROM workflows WHERE status = 'COMPLETED'")).toBe(0);
      expect(count("SELECT COUNT(*) AS n FROM idx_workflow WHERE status = 'COMPLETED'")).toBe(0);
      expect(count("SELECT COUNT(*) AS n FROM workflows WHERE status = 'FAILED'")).toBe(2_000);
      expect(count("SELECT COUNT(*) AS n FROM idx_workflow WHERE status = 'FAILED'")).toBe(2_000);
      expect(orphans()).toEqual([0, 0, 0]);
      expect((await stores.executions.load(ids.get('kill_wf/FAILED')![0]!))?.tasks).toHaveLength(2);
    } finally {
      await stores.close();
    }
  }, 300_000);
});
