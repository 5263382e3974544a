import { assertKeyspaceName, executionStatements, metadataStatements } from '../../../../src/store/cassandra/statements';

describe('Cassandra statements', () => {
  const q = executionStatements('baton');
  const m = metadataStatements('baton');

  it('fences a new execution with IF NOT EXISTS on the static row and later turns with IF rev = ?', () => {
    expect(q.insertExecution).toBe(
      'INSERT INTO baton.executions (workflow_id, rev, commit_id, workflow_json, outbox_json, keys) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS',
    );
    expect(q.updateExecution).toBe(
      'UPDATE baton.executions SET rev = ?, commit_id = ?, workflow_json = ?, outbox_json = ?, keys = ? WHERE workflow_id = ? IF rev = ?',
    );
  });

  it('writes tasks as clustering rows of the execution partition', () => {
    expect(q.upsertTask).toBe('INSERT INTO baton.executions (workflow_id, task_id, task_json) VALUES (?, ?, ?)');
    expect(q.deleteTask).toBe('DELETE FROM baton.executions WHERE workflow_id = ? AND task_id = ?');
    expect(q.selectExecution).toBe(
      'SELECT rev, workflow_json, outbox_json, keys, indexed_keys, task_id, task_json FROM baton.executions WHERE workflow_id = ?',
    );
    expect(q.selectTask).toBe('SELECT task_id, task_json FROM baton.executions WHERE workflow_id = ? AND task_id = ?');
    expect(q.deleteExecution).toBe('DELETE FROM baton.executions WHERE workflow_id = ?');
  });

  it('reads every secondary table by its full partition key (no ALLOW FILTERING, no scans)', () => {
    expect(q.selectTaskLookup).toBe('SELECT workflow_id FROM baton.task_lookup WHERE task_id = ?');
    expect(q.selectOpenEntries).toBe('SELECT workflow_id, workflow_version, from_gen FROM baton.open_entries WHERE index_name = ? AND gen = ? AND shard = ?');
    expect(q.selectOpenFloor).toBe('SELECT floor FROM baton.open_pages WHERE index_name = ? LIMIT 1');
    expect(q.selectCorrelation).toBe('SELECT workflow_id, terminal FROM baton.workflows_by_correlation WHERE workflow_name = ? AND correlation_id = ?');
    expect(q.selectTaskLogs).toBe('SELECT created_time, log FROM baton.task_logs WHERE task_id = ? LIMIT ?');
    expect(q.countTaskLogs).toBe('SELECT COUNT(*) AS n FROM baton.task_logs WHERE task_id = ?');
    for (const text of [...Object.values(q), ...Object.values(m)]) expect(text).not.toMatch(/ALLOW FILTERING/);
  });

  it('reads the open-index registries from the floor on (a slice that starts above the rows deleted below it)', () => {
    expect(q.selectOpenPages).toBe('SELECT page FROM baton.open_pages WHERE index_name = ? AND page >= ?');
    expect(q.selectOpenGens).toBe('SELECT gen FROM baton.open_gens WHERE index_name = ? AND page = ? AND gen >= ?');
    expect(q.dropOpenGeneration).toBe('DELETE FROM baton.open_entries WHERE index_name = ? AND gen = ? AND shard = ?');
  });

  it('reads the latest workflow definition as the first row of a version-descending partition', () => {
    expect(m.selectLatestWorkflowDef).toBe('SELECT def_json FROM baton.workflow_defs WHERE name = ? LIMIT 1');
    expect(m.selectWorkflowDef).toBe('SELECT def_json FROM baton.workflow_defs WHERE name = ? AND version = ?');
    expect(m.insertEventExecution).toBe(
      'INSERT INTO baton.event_executions (handler_name, bucket, created, id, execution_json) VALUES (?, ?, ?, ?, ?) USING TTL ?',
    );
  });

  it('qualifies every statement with the keyspace', () => {
    const other = executionStatements('prod_ks');
    for (const text of Object.values(other)) expect(text).toMatch(/ prod_ks\.\w+/);
  });

  it('refuses keyspace names that are not plain identifiers', () => {
    expect(assertKeyspaceName('baton_1')).toBe('baton_1');
    for (const bad of ['', '1abc', 'a-b', 'ks; DROP KEYSPACE x', 'x'.repeat(49)]) expect(() => assertKeyspaceName(bad)).toThrow(/invalid/);
  });
});
