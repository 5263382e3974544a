import type Database from 'better-sqlite3';
import type { IdempotencyClaim, IdempotencyKeyStore } from '../ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS idempotency_keys (
  workflow_name TEXT NOT NULL,
  idem_key TEXT NOT NULL,
  workflow_id TEXT NOT NULL,
  claimed_at INTEGER NOT NULL,
  PRIMARY KEY (workflow_name, idem_key)
);
`;

/** Idempotency keys in the SQLite file: the primary key makes a claim atomic (INSERT OR IGNORE, then read the holder). */
export class SqliteIdempotencyKeys implements IdempotencyKeyStore {
  private readonly stmt;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      insert: db.prepare('INSERT OR IGNORE INTO idempotency_keys (workflow_name, idem_key, workflow_id, claimed_at) VALUES (?, ?, ?, ?)'),
      select: db.prepare<[string, string], { workflow_id: string; claimed_at: number }>(
        'SELECT workflow_id, claimed_at FROM idempotency_keys WHERE workflow_name = ? AND idem_key = ?',
      ),
      reassign: db.prepare('UPDATE idempotency_keys SET workflow_id = ?, claimed_at = ? WHERE workflow_name = ? AND idem_key = ? AND workflow_id = ?'),
      release: db.prepare('DELETE FROM idempotency_keys WHERE workflow_name = ? AND idem_key = ? AND workflow_id = ?'),
    };
  }

  async claim(name: string, key: string, workflowId: string, now: number): Promise<IdempotencyClaim> {
    // better-sqlite3 is synchronous: the insert and the read run with nothing in between on this connection,
    // and another process on the same file loses the insert to the primary key.
    this.stmt.insert.run(name, key, workflowId, now);
    const row = this.stmt.select.get(name, key)!;
    return { workflowId: row.workflow_id, claimedAt: row.claimed_at };
  }

  async reassign(name: string, key: string, from: string, to: string, now: number): Promise<boolean> {
    return this.stmt.reassign.run(to, now, name, key, from).changes === 1;
  }

  async release(name: string, key: string, workflowId: string): Promise<void> {
    this.stmt.release.run(name, key, workflowId);
  }
}
