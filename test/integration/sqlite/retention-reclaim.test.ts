import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { retentionRules } from '../../../src/retention/policy';
import { Purger } from '../../../src/retention/purger';
import { SqliteSearchIndex } from '../../../src/search/sqlite/sqlite-index';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';
import { SqliteRetentionStore } from '../../../src/store/sqlite/retention-store';
import { populate, type Group } from '../../support/retention-population';

// The reclaim step of a pass ends with the WAL checkpointed and truncated (the file really shrinks), and a
// pass says so when it could not: a reader holding a snapshot open across the pass keeps the WAL.

const NOW = Date.UTC(2026, 10, 28, 12);
const GROUPS: Group[] = [
  { name: 'wf', status: 'COMPLETED', endedDaysAgo: 40, count: 400 }, // due under 30 days
  { name: 'wf', status: 'COMPLETED', endedDaysAgo: 5, count: 100 },
];
const walBytes = (file: string): number => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);

describe('the retention pass gives the space back', () => {
  let dir: string;
  let stores: SqliteStores;
  let warnings: string[];
  let purger: Purger;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-reclaim-'));
    stores = openSqliteStores(dir);
    const index = new SqliteSearchIndex(stores.db);
    await populate(stores.executions, index, GROUPS, NOW);
    warnings = [];
    purger = new Purger({
      store: stores.executions,
      removeFromIndex: (id) => index.removeWorkflow(id),
      search: index,
      retention: new SqliteRetentionStore(stores.db),
      rules: async () => retentionRules([], { days: 30, archive: false }),
      now: () => NOW,
      reclaim: () => stores.reclaim(1_000_000),
      log: { info: () => undefined, warn: (_o: unknown, msg?: string) => void warnings.push(String(msg)) },
    });
  });
  afterEach(async () => {
    await stores.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('a pass ends with the freed pages out of the file and the WAL truncated', async () => {
    expect(walBytes(stores.db.name)).toBeGreaterThan(0);
    const out = await purger.passOnce(1000);
    expect(out).toMatchObject({ purged: 400, walTruncated: true });
    expect(out.reclaimedPages).toBeGreaterThan(0);
    expect(walBytes(stores.db.name)).toBe(0);
    expect(warnings).toEqual([]);
    expect(stores.db.pragma('freelist_count', { simple: true })).toBe(0);
  });

  test('a reader kept open across the pass: the pass finishes, says the WAL stayed, and the next one truncates it', async () => {
    const reader = new Database(stores.db.name, { readonly: true });
    try {
      reader.exec('BEGIN');
      expect((reader.prepare('SELECT COUNT(*) AS n FROM workflows').get() as { n: number }).n).toBe(500);
      const out = await purger.passOnce(1000);
      expect(out).toMatchObject({ purged: 400, walTruncated: false });
      expect(warnings).toEqual([expect.stringContaining('could not truncate the WAL')]);
      expect(walBytes(stores.db.name)).toBeGreaterThan(0);
      // The reader still sees its snapshot; the writer went on meanwhile.
      expect((reader.prepare('SELECT COUNT(*) AS n FROM workflows').get() as { n: number }).n).toBe(500);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
    const next = await purger.passOnce(1000);
    expect(next).toMatchObject({ purged: 0, walTruncated: true });
    expect(walBytes(stores.db.name)).toBe(0);
    expect((stores.db.prepare('SELECT COUNT(*) AS n FROM workflows').get() as { n: number }).n).toBe(100);
  });
});
