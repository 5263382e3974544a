import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openSqliteStores } from '../../../src/store/sqlite';
import { makeTask, makeWorkflowRecord } from '../../contracts/fixtures';
import { eventually } from '../../support/baton';

// Commits land in the WAL; the worker-thread checkpointer copies them into the database file.
test('the WAL is checkpointed into the database file off the event loop', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'baton-ckpt-'));
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
