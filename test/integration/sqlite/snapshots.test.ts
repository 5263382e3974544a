import Database from 'better-sqlite3';
import { SqliteExecutionStore } from '../../../src/store/sqlite';
import { makeTask, makeWorkflowRecord } from '../../contracts/fixtures';

// Workflow rows name a content-addressed definition snapshot instead of carrying the definition.

test('executions of one definition share one stored snapshot, loaded back as one object', async () => {
  const db = new Database(':memory:');
  const store = new SqliteExecutionStore(db);
  const a = makeWorkflowRecord({ workflowId: 'a' });
  const b = makeWorkflowRecord({ workflowId: 'b', workflowDefinition: a.workflowDefinition });
  for (const w of [a, b])
    await store.commit({
      workflow: w,
      upsertTasks: [makeTask({ taskId: `${w.workflowId}-t`, workflowInstanceId: w.workflowId })],
      deleteTaskIds: [],
      outbox: [],
      expectedRev: 0,
    });
  expect(db.prepare('SELECT COUNT(*) AS n FROM workflow_snapshots').get()).toEqual({ n: 1 });
  expect((db.prepare("SELECT data FROM workflows WHERE workflow_id = 'a'").get() as { data: string }).data).not.toContain('"workflowDefinition"');
  const fresh = new SqliteExecutionStore(db);
  const [la, lb] = [await fresh.load('a'), await fresh.load('b')];
  expect(la!.workflow.workflowDefinition).toEqual(a.workflowDefinition);
  expect(lb!.workflow.workflowDefinition).toBe(la!.workflow.workflowDefinition);
});

test('a file written before snapshots existed still loads (definition inline, column added)', async () => {
  const db = new Database(':memory:');
  db.exec(`CREATE TABLE workflows (workflow_id TEXT PRIMARY KEY, name TEXT NOT NULL, version INTEGER NOT NULL, status TEXT NOT NULL,
    correlation_id TEXT, rev INTEGER NOT NULL, data TEXT NOT NULL, outbox TEXT)`);
  const old = makeWorkflowRecord({ workflowId: 'old' });
  db.prepare("INSERT INTO workflows VALUES ('old', ?, 1, 'RUNNING', NULL, 3, ?, NULL)").run(old.workflowName, JSON.stringify(old));
  const store = new SqliteExecutionStore(db);
  const loaded = await store.load('old');
  expect(loaded).toMatchObject({ rev: 3, workflow: { workflowId: 'old', workflowDefinition: old.workflowDefinition } });
  await store.commit({ workflow: { ...loaded!.workflow, status: 'COMPLETED' }, upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev: 3 });
  expect((await new SqliteExecutionStore(db).load('old'))!.workflow).toMatchObject({ status: 'COMPLETED', workflowDefinition: old.workflowDefinition });
});
