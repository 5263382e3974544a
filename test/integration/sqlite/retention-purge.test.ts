import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { retentionRules } from '../../../src/retention/policy';
import { Purger } from '../../../src/retention/purger';
import { SqliteSearchIndex } from '../../../src/search/sqlite/sqlite-index';
import { openSqliteStores, type SqliteStores } from '../../../src/store/sqlite';
import { SqliteRetentionStore } from '../../../src/store/sqlite/retention-store';
import { MemoryObjectStore } from '../../support/memory-object-store';
import { populate, type Group } from '../../support/retention-population';

// 100,000 executions written straight through the store, purged with an injected clock: what is due goes
// (archived first where its policy says so), everything else stays, and the file shrinks after reclaiming:
// every pass ends with the WAL checkpointed and truncated, so the space is really given back.

const NOW = Date.UTC(2026, 10, 28, 12);
const DEFS = [
  { name: 'long_wf', version: 1, retention: { days: 365 } },
  { name: 'archived_wf', version: 1, retention: { days: 7, archive: true } },
  { name: 'failures_kept', version: 1, retention: { days: 7, statuses: ['COMPLETED'] } },
  { name: 'default_wf', version: 1 },
];
const GROUPS: Array<Group & { due: boolean }> = [
  { name: 'default_wf', status: 'COMPLETED', endedDaysAgo: 40, count: 40_000, due: true },
  { name: 'default_wf', status: 'FAILED', endedDaysAgo: 100, count: 10_000, due: true },
  { name: 'default_wf', status: 'TERMINATED', endedDaysAgo: 31, count: 10_000, due: true },
  { name: 'default_wf', status: 'COMPLETED', endedDaysAgo: 5, count: 10_000, due: false }, // young
  { name: 'default_wf', status: 'RUNNING', endedDaysAgo: 200, count: 5_000, due: false }, // open, started long ago
  { name: 'long_wf', status: 'COMPLETED', endedDaysAgo: 100, count: 10_000, due: false }, // longer policy
  { name: 'archived_wf', status: 'COMPLETED', endedDaysAgo: 10, count: 5_000, due: true },
  { name: 'failures_kept', status: 'FAILED', endedDaysAgo: 50, count: 5_000, due: false }, // status not purged
  { name: 'failures_kept', status: 'COMPLETED', endedDaysAgo: 50, count: 5_000, due: true },
];

const walBytes = (file: string): number => (fs.existsSync(`${file}-wal`) ? fs.statSync(`${file}-wal`).size : 0);
const fileBytes = (file: string): number => fs.statSync(file).size + walBytes(file);
const TRUNCATED = { busy: 0, log: 0, checkpointed: 0 };

describe('retention purge over 100,000 SQLite executions', () => {
  let dir: string;
  let stores: SqliteStores;
  afterAll(async () => {
    await stores?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  test('due executions go (archived where asked), the rest stays, no orphans, and the file shrinks', async () => {
    expect(GROUPS.reduce((n, g) => n + g.count, 0)).toBe(100_000);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-retention-'));
    stores = openSqliteStores(dir);
    const { db } = stores;
    const index = new SqliteSearchIndex(db);
    const retention = new SqliteRetentionStore(db);
    const objects = new MemoryObjectStore();
    let t = Date.now();
    const ids = await populate(stores.executions, index, GROUPS, NOW);
    const populateMs = Date.now() - t;
    const walWritten = walBytes(db.name);
    t = Date.now();
    // Through the checkpointer's thread: a checkpoint of this connection would answer busy while it copies.
    expect(await stores.truncateWal()).toEqual(TRUNCATED);
    const before = fileBytes(db.name);

    const purger = new Purger({
      store: stores.executions,
      removeFromIndex: (id) => index.removeWorkflow(id),
      search: index,
      retention,
      objects,
      rules: async () => retentionRules(DEFS, { days: 30, archive: false }),
      now: () => NOW,
      reclaim: () => stores.reclaim(1_000_000),
      log: pino({ level: 'silent' }),
    });
    const budget = 10_000;
    let purged = 0;
    let archived = 0;
    let passes = 0;
    for (;;) {
      const out = await purger.passOnce(budget);
      passes++;
      expect(out.purged).toBeLessThanOrEqual(budget); // the budget paces a pass
      // The reclaim step ends with the WAL truncated: it does not grow from pass to pass.
      expect({ pass: passes, walTruncated: out.walTruncated, walBytes: walBytes(db.name) }).toEqual({ pass: passes, walTruncated: true, walBytes: 0 });
      purged += out.purged;
      archived += out.archived;
      if (out.purged === 0) break;
    }
    const purgeMs = Date.now() - t;
    expect(await stores.truncateWal()).toEqual(TRUNCATED);
    const after = fileBytes(db.name);

    const due = GROUPS.filter((g) => g.due).reduce((n, g) => n + g.count, 0);
    expect(purged).toBe(due);
    expect(archived).toBe(5_000);
    expect(passes).toBe(Math.ceil(due / budget) + 1);
    const count = (sql: string, ...p: unknown[]): number => (db.prepare(sql).get(...p) as { n: number }).n;
    for (const g of GROUPS) {
      const n = count('SELECT COUNT(*) AS n FROM workflows WHERE name = ? AND status = ?', g.name, g.status);
      const indexed = count('SELECT COUNT(*) AS n FROM idx_workflow WHERE workflow_type = ? AND status = ?', g.name, g.status);
      // Groups share name and status only when both are kept or both due, except default_wf COMPLETED (40k due, 10k young).
      const same = GROUPS.filter((x) => x.name === g.name && x.status === g.status);
      const kept = same.filter((x) => !x.due).reduce((s, x) => s + x.count, 0);
      expect({ group: `${g.name}/${g.status}`, n, indexed }).toEqual({ group: `${g.name}/${g.status}`, n: kept, indexed: kept });
    }
    // A young one stays whole; a due one is gone from the store, the index and its tasks with it.
    const young = ids.get('default_wf/COMPLETED')!.at(-1)!;
    expect((await stores.executions.load(young))?.tasks).toHaveLength(2);
    const gone = ids.get('default_wf/COMPLETED')![0]!;
    expect(await stores.executions.load(gone)).toBeUndefined();
    // No half executions: tasks without their workflow, index documents without their execution.
    expect(count('SELECT COUNT(*) AS n FROM tasks WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM idx_workflow WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM idx_task WHERE workflow_id NOT IN (SELECT workflow_id FROM workflows)')).toBe(0);
    expect(count('SELECT COUNT(*) AS n FROM retention_passes')).toBe(0);
    // Archived: one object per execution, with its tasks, found through the lookup row.
    const archivedId = ids.get('archived_wf/COMPLETED')![0]!;
    const entry = await retention.archived(archivedId);
    expect(entry).toMatchObject({ workflowName: 'archived_wf', status: 'COMPLETED', archivedAt: NOW });
    expect(entry!.key).toMatch(/^archive\/2026\/11\/1[78]\/wf-\d+\.json$/);
    const doc = JSON.parse(objects.objects.get(entry!.key)!.toString()) as { workflow: { workflowId: string; tasks: unknown[] } };
    expect(doc.workflow.workflowId).toBe(archivedId);
    expect(doc.workflow.tasks).toHaveLength(2);
    expect(objects.objects.size).toBe(5_000);
    // Space: 70% of the executions went; the file gives most of it back (incremental vacuum).
    process.stdout.write(
      `retention: ${before} bytes before, ${after} after purging ${purged} of 100000 (${passes} passes; written in ${populateMs} ms with the WAL at ${walWritten} bytes at the end, purged in ${purgeMs} ms)\n`,
    );
    expect(after).toBeLessThan(before * 0.5);
  }, 300_000);
});
