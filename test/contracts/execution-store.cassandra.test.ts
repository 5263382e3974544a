import { types } from 'cassandra-driver';
import { openCassandraStores } from '../../src/store/cassandra';
import { migrate } from '../../src/store/cassandra/migrate';
import { decodeKeys, encodeKeys } from '../../src/store/cassandra/rows';
import { executionStatements } from '../../src/store/cassandra/statements';
import { describeExecutionStoreContract } from './execution-store.contract';
import { describeCassandra, useCassandraStores } from './execution-store.cassandra-server';
import { makeWorkflowRecord } from './fixtures';

describeCassandra('cassandra execution store', () => {
  const c = useCassandraStores();
  describeExecutionStoreContract('cassandra', async () => ({ store: c.stores().executions, cleanup: async () => undefined }));

  it('records applied migrations and applies nothing the second time', async () => {
    const [shared, keyspace] = [c.stores(), c.keyspace()];
    const rs = await shared.client.execute(`SELECT version, name FROM ${keyspace}.schema_migrations`);
    expect(rs.rows.map((r) => r.get('name'))).toContain('001_init.cql');
    expect(await migrate(shared.client, { keyspace })).toEqual([]);
  });

  it('runs its statements prepared: the server holds them in its prepared-statement cache', async () => {
    const [shared, keyspace] = [c.stores(), c.keyspace()];
    const q = executionStatements(keyspace);
    const rs = await shared.client.execute('SELECT query_string FROM system.prepared_statements');
    const prepared = new Set(rs.rows.map((r) => r.get('query_string') as string));
    // Those of every turn, start and read the contract above exercised.
    for (const text of [
      q.insertExecution,
      q.updateExecution,
      q.upsertTask,
      q.selectExecution,
      q.upsertTaskLookup,
      q.insertOpenEntry,
      q.selectOpenEntries,
      q.selectHead,
    ])
      expect(prepared).toContain(text);
  });

  it('load() finishes index writes a turn left undone (indexed_keys behind keys)', async () => {
    const [shared, keyspace] = [c.stores(), c.keyspace()];
    const workflow = makeWorkflowRecord({ workflowId: `wf-${Date.now()}-repair`, workflowName: `repair_${Date.now()}` });
    await shared.executions.commit({ workflow, upsertTasks: [], deleteTaskIds: [], outbox: [], expectedRev: 0 });
    // Simulate a crash after the batch: the entry is gone and indexed_keys says nothing was indexed.
    const head = await shared.client.execute(`SELECT keys FROM ${keyspace}.executions WHERE workflow_id = ? LIMIT 1`, [workflow.workflowId], { prepare: true });
    const keys = decodeKeys(head.first().get('keys') as string)!;
    await shared.client.execute(
      `DELETE FROM ${keyspace}.open_entries WHERE index_name = ? AND gen = ? AND shard = 0 AND workflow_id = ?`,
      [`running:${keys.name}`, types.Long.fromNumber(keys.runningGen), workflow.workflowId],
      { prepare: true },
    );
    await shared.client.execute(`UPDATE ${keyspace}.executions SET indexed_keys = null WHERE workflow_id = ?`, [workflow.workflowId], { prepare: true });
    expect(await shared.executions.runningWorkflowIds(workflow.workflowName)).toEqual([]);

    const fresh = await openCassandraStores({ ...c.config(), keyspace, migrate: false });
    try {
      await fresh.executions.load(workflow.workflowId);
      expect(await fresh.executions.runningWorkflowIds(workflow.workflowName)).toEqual([workflow.workflowId]);
      const after = await fresh.client.execute(`SELECT indexed_keys FROM ${keyspace}.executions WHERE workflow_id = ? LIMIT 1`, [workflow.workflowId], {
        prepare: true,
      });
      expect(after.first().get('indexed_keys')).toBe(encodeKeys(keys));
    } finally {
      await fresh.close();
    }
  });
});
