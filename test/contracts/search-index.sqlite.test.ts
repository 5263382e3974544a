import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteSearchIndex } from '../../src/search/sqlite/sqlite-index';
import { describeSearchIndexContract } from './search-index.contract';

describeSearchIndexContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-index-'));
  const db = new Database(join(dir, 'baton.db'));
  db.pragma('journal_mode = WAL');
  const index = new SqliteSearchIndex(db);
  return {
    index,
    settle: async () => undefined,
    cleanup: async () => {
      await index.close();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
