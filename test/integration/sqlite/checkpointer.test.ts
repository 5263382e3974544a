import Database from 'better-sqlite3';
import fs from 'node:fs';
import path from 'node:path';
import { openSqliteStores } from '../../../src/store/sqlite';
import { makeTask, makeWorkflowRecord } from '../../contracts/fixtures';
import { eventually } from '../../support/baton';
import { tempDir } from '../../support/temp-dirs';

// Commits land in the WAL; the worker-thread checkpointer copies them into the database file.
test('the WAL is checkpointed into the database file off the event loop', async () => {
  const dir = tempDir('baton-ckpt-');
  const stores = openSqliteStores(dir);
  const file = path.join(dir, 'baton.db');
  const before = fs.statSync(file).size;
  for (let i = 0; i < 200; i++) {
    const workflow = makeWorkflowRecord({ workflowId: `wf-${i}` });
    const tasks = Array.from({ length: 5 }, (_, j) =>
      makeTask({ taskId: `t-${i}-${j}`, workflowInstanceId: workflow.workflowId, seq: j + 1, inputData: { pad: 'x'.repeat(500) } }),
    );
    await stores.executions.commit({ workflow, upsertTasks: tasks, deleteTaskIds: [], outbox: [], expectedRev: 0 });
  }
  expect(stores.db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
  await eventually(async () => fs.statSync(file).size > before + 200 * 5 * 500, 20_000, 100);
  await stores.close();
  const reopened = openSqliteStores(dir);
  expect((await reopened.executions.load('wf-199'))?.tasks).toHaveLength(5);
  await reopened.close();
});

test('truncate answers what SQLite did: done when nothing holds the WAL, busy while a reader holds a snapshot', async () => {
  const dir = tempDir('baton-ckpt-');
  const stores = openSqliteStores(dir);
  try {
    await stores.executions.commit({ workflow: makeWorkflowRecord({ workflowId: 'wf-1' }), upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev: 0 });
    const reader = new Database(stores.db.name, { readonly: true });
    reader.exec('BEGIN');
    reader.prepare('SELECT COUNT(*) FROM workflows').get();
    await stores.executions.commit({ workflow: makeWorkflowRecord({ workflowId: 'wf-2' }), upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev: 0 });
    expect(await stores.truncateWal()).toMatchObject({ busy: 1 });
    // Commits go on while the checkpoint could not finish.
    await stores.executions.commit({ workflow: makeWorkflowRecord({ workflowId: 'wf-3' }), upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev: 0 });
    reader.exec('COMMIT');
    reader.close();
    expect(await stores.truncateWal()).toEqual({ busy: 0, log: 0, checkpointed: 0 });
    expect(fs.statSync(`${stores.db.name}-wal`).size).toBe(0);
    expect((await stores.executions.load('wf-3'))?.workflow.workflowId).toBe('wf-3');
  } finally {
    await stores.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
