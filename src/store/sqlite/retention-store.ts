import type Database from 'better-sqlite3';
import { PeriodWalkSchema, type ArchivedExecution, type PeriodWalk, type PurgeItem, type RetentionStore } from '../../retention/ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS retention_passes (
  pass_id TEXT NOT NULL,
  workflow_id TEXT NOT NULL,
  archive INTEGER NOT NULL,
  started_at INTEGER NOT NULL,
  PRIMARY KEY (pass_id, workflow_id)
);
CREATE TABLE IF NOT EXISTS archived_workflows (
  workflow_id TEXT PRIMARY KEY,
  archive_key TEXT NOT NULL,
  workflow_name TEXT NOT NULL,
  status TEXT NOT NULL,
  end_time INTEGER NOT NULL,
  archived_at INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS retention_period_walks (
  index_name TEXT PRIMARY KEY,
  walk TEXT NOT NULL
);
`;

/** The purge journal and the archive lookup in the embedded SQLite file. */
export class SqliteRetentionStore implements RetentionStore {
  private readonly stmt;
  private readonly insertPass: (passId: string, items: PurgeItem[], now: number) => void;

  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      addItem: db.prepare('INSERT OR IGNORE INTO retention_passes (pass_id, workflow_id, archive, started_at) VALUES (?, ?, ?, ?)'),
      items: db.prepare<[], { pass_id: string; workflow_id: string; archive: number }>(
        'SELECT pass_id, workflow_id, archive FROM retention_passes ORDER BY started_at, pass_id, workflow_id',
      ),
      finish: db.prepare('DELETE FROM retention_passes WHERE pass_id = ?'),
      putArchive: db.prepare(
        'INSERT OR REPLACE INTO archived_workflows (workflow_id, archive_key, workflow_name, status, end_time, archived_at) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      archived: db.prepare<[string], { archive_key: string; workflow_name: string; status: string; end_time: number; archived_at: number }>(
        'SELECT archive_key, workflow_name, status, end_time, archived_at FROM archived_workflows WHERE workflow_id = ?',
      ),
      walk: db.prepare<[string], { walk: string }>('SELECT walk FROM retention_period_walks WHERE index_name = ?'),
      putWalk: db.prepare('INSERT OR REPLACE INTO retention_period_walks (index_name, walk) VALUES (?, ?)'),
      clearWalk: db.prepare('DELETE FROM retention_period_walks WHERE index_name = ?'),
    };
    this.insertPass = db.transaction((passId: string, items: PurgeItem[], now: number) => {
      for (const i of items) this.stmt.addItem.run(passId, i.workflowId, i.archive ? 1 : 0, now);
    });
  }

  async beginPass(passId: string, items: PurgeItem[], now: number): Promise<void> {
    this.insertPass(passId, items, now);
  }

  async unfinishedPasses(): Promise<Array<{ passId: string; items: PurgeItem[] }>> {
    const passes = new Map<string, PurgeItem[]>();
    for (const r of this.stmt.items.all()) {
      const items = passes.get(r.pass_id) ?? [];
      items.push({ workflowId: r.workflow_id, archive: r.archive === 1 });
      passes.set(r.pass_id, items);
    }
    return [...passes].map(([passId, items]) => ({ passId, items }));
  }

  async finishPass(passId: string): Promise<void> {
    this.stmt.finish.run(passId);
  }

  async recordArchive(a: ArchivedExecution): Promise<void> {
    this.stmt.putArchive.run(a.workflowId, a.key, a.workflowName, a.status, a.endTime, a.archivedAt);
  }

  async archived(workflowId: string): Promise<ArchivedExecution | undefined> {
    const r = this.stmt.archived.get(workflowId);
    return r ? { workflowId, key: r.archive_key, workflowName: r.workflow_name, status: r.status, endTime: r.end_time, archivedAt: r.archived_at } : undefined;
  }

  async periodWalk(index: string): Promise<PeriodWalk | undefined> {
    const r = this.stmt.walk.get(index);
    return r ? PeriodWalkSchema.parse(JSON.parse(r.walk)) : undefined;
  }

  async savePeriodWalk(index: string, walk: PeriodWalk | undefined): Promise<void> {
    if (walk) this.stmt.putWalk.run(index, JSON.stringify(walk));
    else this.stmt.clearWalk.run(index);
  }
}

/**
 * Gives at most `pages` free pages back to the file system (incremental vacuum: paced, unlike VACUUM, which
 * rewrites the whole file in one transaction). Files created before auto_vacuum was INCREMENTAL answer 0:
 * they need one offline `VACUUM` (docs/retention.md). Answers the pages freed.
 */
export function reclaimPages(db: Database.Database, pages: number): number {
  if (pages <= 0 || db.pragma('auto_vacuum', { simple: true }) !== 2) return 0;
  const before = db.pragma('freelist_count', { simple: true }) as number;
  db.pragma(`incremental_vacuum(${Math.trunc(pages)})`);
  return before - (db.pragma('freelist_count', { simple: true }) as number);
}
