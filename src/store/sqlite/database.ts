import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';

/** The WAL's size limit: cut back to it when the writer restarts the WAL, truncated by the checkpointer past it. */
export const WAL_LIMIT_BYTES = 64 * 1024 * 1024;

/** Opens (creating when missing) the embedded profile's single SQLite file in WAL mode. */
export function openDatabase(dataDir: string, fileName = 'baton.db'): Database.Database {
  fs.mkdirSync(dataDir, { recursive: true });
  const db = new Database(path.join(dataDir, fileName));
  // Only takes effect in a new file (before its first table): purged space can then be given back in paced steps.
  db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  // NORMAL in WAL mode: a commit survives a process crash; only an OS crash can lose the last commits.
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  // 8 MiB of page cache per connection. 64 MiB filled up over a 100k-workflow soak and read as RSS growth
  // (+63 MB in its second half); at 8 MiB RSS stayed flat and tasks/s did not change (2026-11-26, `npm run
  // bench -- --quick --only simple3 --soak 100000`): the hot rows are the recent ones, the OS caches the rest.
  db.pragma('cache_size = -8192');
  db.pragma('temp_store = MEMORY');
  // Checkpoints run on a worker thread (WalCheckpointer), not inside commits on the event loop.
  db.pragma('wal_autocheckpoint = 0');
  // After a burst the WAL is cut back to 64 MiB when the writer restarts it (never blocks).
  db.pragma(`journal_size_limit = ${WAL_LIMIT_BYTES}`);
  return db;
}
