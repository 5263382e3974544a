import pino from 'pino';
import { loadConfig } from '../../src/config';
import { TABLE } from '../../src/search/sqlite/sql-query';
import { openDatabase } from '../../src/store/sqlite';
import { runReindex } from '../../src/tools/reindex';
import { call, eventually, startBaton } from '../support/baton';

// `npm run reindex` (src/tools/reindex.ts) rebuilds the search index from the execution store, here
// on the SQLite store and index the distributed profile can be configured with for tests.

test('reindex restores every execution and task summary from the store', async () => {
  const b = await startBaton();
  const name = `reindex_${Date.now().toString(36)}`;
  let done: string;
  let open: string;
  try {
    expect(
      (
        await call(b.url, 'POST', '/api/metadata/workflowdef', {
          name,
          version: 1,
          schemaVersion: 2,
          tasks: [{ name: 'approve', taskReferenceName: 'h', type: 'HUMAN' }],
        })
      ).status,
    ).toBe(200);
    done = (await call(b.url, 'POST', '/api/workflow', { name, correlationId: 'r-1' })).text;
    open = (await call(b.url, 'POST', '/api/workflow', { name, correlationId: 'r-2' })).text;
    expect((await call(b.url, 'POST', `/api/queue/update/${done}/h/COMPLETED`, { ok: 1 })).status).toBe(200);
    await eventually(
      async () =>
        (await call(b.url, 'GET', `/api/workflow/search?query=${encodeURIComponent(`workflowType = '${name}' AND status = 'COMPLETED'`)}`)).body.totalHits ===
        1,
    );
  } finally {
    await b.stop();
  }

  const db = openDatabase(b.dataDir);
  db.exec(`DELETE FROM ${TABLE.workflow}; DELETE FROM ${TABLE.task};`); // a lost index
  db.close();

  const cfg = loadConfig({ BATON_PROFILE: 'distributed', BATON_STORE: 'sqlite', BATON_INDEX: 'sqlite', BATON_DATA_DIR: b.dataDir, LOG_LEVEL: 'silent' });
  const result = await runReindex(cfg, pino({ level: 'silent' }));
  expect(result).toEqual({ workflows: 2, tasks: 2 });

  const again = await startBaton({ BATON_DATA_DIR: b.dataDir });
  try {
    const found = await call(again.url, 'GET', `/api/workflow/search?sort=correlationId:ASC&query=${encodeURIComponent(`workflowType = '${name}'`)}`);
    expect(found.body.results.map((r: any) => [r.workflowId, r.status])).toEqual([
      [done, 'COMPLETED'],
      [open, 'RUNNING'],
    ]);
    const tasks = await call(again.url, 'GET', `/api/tasks/search?query=${encodeURIComponent(`workflowId = '${done}'`)}`);
    expect(tasks.body.results).toEqual([
      expect.objectContaining({ workflowId: done, status: 'COMPLETED', taskType: 'HUMAN', output: JSON.stringify({ ok: 1 }) }),
    ]);
  } finally {
    await again.stop();
  }
});
