import type Database from 'better-sqlite3';
import { BatchRecordSchema, type BatchFailure, type BatchRecord } from '../../model/batch';
import type { BatchStore } from '../batch-store';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS batches (id TEXT PRIMARY KEY, created_at INTEGER NOT NULL, data TEXT NOT NULL, cancel_requested INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS batch_items (batch_id TEXT NOT NULL, seq INTEGER NOT NULL, workflow_id TEXT NOT NULL, PRIMARY KEY (batch_id, seq)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS batch_failures (batch_id TEXT NOT NULL, seq INTEGER NOT NULL, workflow_id TEXT NOT NULL, reason TEXT NOT NULL, PRIMARY KEY (batch_id, seq)) WITHOUT ROWID;
`;

type Row = { data: string; cancel_requested: number };

const recordOf = (r: Row): BatchRecord => BatchRecordSchema.parse({ ...JSON.parse(r.data), cancelRequested: r.cancel_requested === 1 });
/** The progress columns: the cancel flag lives in its own column so the runner's writes never clear it. */
const dataOf = (b: BatchRecord): string => JSON.stringify({ ...b, cancelRequested: undefined });

/** Batches in the embedded SQLite file; a batch and its snapshot are written in one transaction. */
export class SqliteBatchStore implements BatchStore {
  private readonly s;
  private readonly createTx;
  private readonly removeTx;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.s = {
      insert: db.prepare('INSERT INTO batches (id, created_at, data, cancel_requested) VALUES (?, ?, ?, 0)'),
      item: db.prepare('INSERT INTO batch_items (batch_id, seq, workflow_id) VALUES (?, ?, ?)'),
      get: db.prepare<[string], Row>('SELECT data, cancel_requested FROM batches WHERE id = ?'),
      list: db.prepare<[], Row>('SELECT data, cancel_requested FROM batches ORDER BY created_at DESC, id DESC'),
      save: db.prepare('UPDATE batches SET data = ? WHERE id = ?'),
      cancel: db.prepare('UPDATE batches SET cancel_requested = 1 WHERE id = ?'),
      at: db.prepare<[string, number], { workflow_id: string }>('SELECT workflow_id FROM batch_items WHERE batch_id = ? AND seq = ?'),
      fail: db.prepare('INSERT OR REPLACE INTO batch_failures (batch_id, seq, workflow_id, reason) VALUES (?, ?, ?, ?)'),
      failures: db.prepare<[string], { workflow_id: string; reason: string }>('SELECT workflow_id, reason FROM batch_failures WHERE batch_id = ? ORDER BY seq'),
      del: db.prepare('DELETE FROM batches WHERE id = ?'),
      delItems: db.prepare('DELETE FROM batch_items WHERE batch_id = ?'),
      delFailures: db.prepare('DELETE FROM batch_failures WHERE batch_id = ?'),
    };
    this.createTx = db.transaction((b: BatchRecord, ids: readonly string[]) => {
      this.s.insert.run(b.id, b.createdAt, dataOf(b));
      ids.forEach((w, seq) => this.s.item.run(b.id, seq, w));
    });
    this.removeTx = db.transaction((id: string) => {
      this.s.delItems.run(id);
      this.s.delFailures.run(id);
      this.s.del.run(id);
    });
  }

  async create(batch: BatchRecord, workflowIds: readonly string[]): Promise<void> {
    this.createTx(batch, workflowIds);
  }
  async get(id: string): Promise<BatchRecord | undefined> {
    const r = this.s.get.get(id);
    return r && recordOf(r);
  }
  async list(): Promise<BatchRecord[]> {
    return this.s.list.all().map(recordOf);
  }
  async saveProgress(batch: BatchRecord): Promise<void> {
    this.s.save.run(dataOf(batch), batch.id);
  }
  async requestCancel(id: string): Promise<void> {
    this.s.cancel.run(id);
  }
  async workflowIdAt(id: string, seq: number): Promise<string | undefined> {
    return this.s.at.get(id, seq)?.workflow_id;
  }
  async addFailure(id: string, seq: number, f: BatchFailure): Promise<void> {
    this.s.fail.run(id, seq, f.workflowId, f.reason);
  }
  async failures(id: string): Promise<BatchFailure[]> {
    return this.s.failures.all(id).map((r) => ({ workflowId: r.workflow_id, reason: r.reason }));
  }
  async remove(id: string): Promise<void> {
    this.removeTx(id);
  }
}
