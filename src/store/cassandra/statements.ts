// Every CQL statement the Cassandra adapters run, prepared by the driver (`prepare: true`).
// Tables are keyspace-qualified so one client can serve any keyspace without `USE`.

const KEYSPACE_NAME = /^[A-Za-z][A-Za-z0-9_]{0,47}$/;

/** Throws unless `name` is a valid unquoted Cassandra keyspace name (it is spliced into CQL text). */
export function assertKeyspaceName(name: string): string {
  if (!KEYSPACE_NAME.test(name)) throw new Error(`invalid Cassandra keyspace name: ${JSON.stringify(name)}`);
  return name;
}

export function executionStatements(keyspace: string) {
  const ks = assertKeyspaceName(keyspace);
  return {
    /** Creates the execution (static row) if it does not exist: the fence for rev 0. */
    insertExecution: `INSERT INTO ${ks}.executions (workflow_id, rev, commit_id, workflow_json, outbox_json, keys) VALUES (?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    /** Replaces the static row when rev is still the expected one: the fence for every later turn. */
    updateExecution: `UPDATE ${ks}.executions SET rev = ?, commit_id = ?, workflow_json = ?, outbox_json = ?, keys = ? WHERE workflow_id = ? IF rev = ?`,
    /** The two above, also recording `keys` as indexed: the turn's index writes all preceded the batch. */
    insertExecutionIndexed: `INSERT INTO ${ks}.executions (workflow_id, rev, commit_id, workflow_json, outbox_json, keys, indexed_keys) VALUES (?, ?, ?, ?, ?, ?, ?) IF NOT EXISTS`,
    updateExecutionIndexed: `UPDATE ${ks}.executions SET rev = ?, commit_id = ?, workflow_json = ?, outbox_json = ?, keys = ?, indexed_keys = ? WHERE workflow_id = ? IF rev = ?`,
    upsertTask: `INSERT INTO ${ks}.executions (workflow_id, task_id, task_json) VALUES (?, ?, ?)`,
    deleteTask: `DELETE FROM ${ks}.executions WHERE workflow_id = ? AND task_id = ?`,
    selectExecution: `SELECT rev, workflow_json, outbox_json, keys, indexed_keys, task_id, task_json FROM ${ks}.executions WHERE workflow_id = ?`,
    selectHead: `SELECT rev, commit_id, keys, indexed_keys FROM ${ks}.executions WHERE workflow_id = ? LIMIT 1`,
    /** The fence alone: the static column of the partition, no lock (an activation checking it still holds the execution). */
    selectRev: `SELECT rev FROM ${ks}.executions WHERE workflow_id = ? LIMIT 1`,
    selectTaskIds: `SELECT task_id, keys, indexed_keys FROM ${ks}.executions WHERE workflow_id = ?`,
    selectTask: `SELECT task_id, task_json FROM ${ks}.executions WHERE workflow_id = ? AND task_id = ?`,
    setIndexedKeys: `UPDATE ${ks}.executions SET indexed_keys = ? WHERE workflow_id = ?`,
    deleteExecution: `DELETE FROM ${ks}.executions WHERE workflow_id = ?`,
    /** Every partition key: a full token-range scan, paged (reindexing only). */
    selectAllIds: `SELECT DISTINCT workflow_id FROM ${ks}.executions`,

    upsertTaskLookup: `INSERT INTO ${ks}.task_lookup (task_id, workflow_id) VALUES (?, ?)`,
    deleteTaskLookup: `DELETE FROM ${ks}.task_lookup WHERE task_id = ?`,
    selectTaskLookup: `SELECT workflow_id FROM ${ks}.task_lookup WHERE task_id = ?`,

    // Open-execution indexes by generation (generations.ts, open-index.ts).
    insertOpenEntry: `INSERT INTO ${ks}.open_entries (index_name, gen, shard, workflow_id, workflow_version, from_gen) VALUES (?, ?, ?, ?, ?, ?)`,
    deleteOpenEntry: `DELETE FROM ${ks}.open_entries WHERE index_name = ? AND gen = ? AND shard = ? AND workflow_id = ?`,
    selectOpenEntries: `SELECT workflow_id, workflow_version, from_gen FROM ${ks}.open_entries WHERE index_name = ? AND gen = ? AND shard = ?`,
    dropOpenGeneration: `DELETE FROM ${ks}.open_entries WHERE index_name = ? AND gen = ? AND shard = ?`,
    insertOpenGen: `INSERT INTO ${ks}.open_gens (index_name, page, gen) VALUES (?, ?, ?)`,
    selectOpenGens: `SELECT gen FROM ${ks}.open_gens WHERE index_name = ? AND page = ? AND gen >= ?`,
    dropOpenGens: `DELETE FROM ${ks}.open_gens WHERE index_name = ? AND page = ?`,
    insertOpenPage: `INSERT INTO ${ks}.open_pages (index_name, page) VALUES (?, ?)`,
    selectOpenPages: `SELECT page FROM ${ks}.open_pages WHERE index_name = ? AND page >= ?`,
    deleteOpenPage: `DELETE FROM ${ks}.open_pages WHERE index_name = ? AND page = ?`,
    selectOpenFloor: `SELECT floor FROM ${ks}.open_pages WHERE index_name = ? LIMIT 1`,
    /** Written with the floor itself as the write timestamp, so the highest floor wins whatever the order of writes. */
    setOpenFloor: `UPDATE ${ks}.open_pages SET floor = ? WHERE index_name = ?`,

    upsertCorrelation: `INSERT INTO ${ks}.workflows_by_correlation (workflow_name, correlation_id, workflow_id, terminal) VALUES (?, ?, ?, ?)`,
    deleteCorrelation: `DELETE FROM ${ks}.workflows_by_correlation WHERE workflow_name = ? AND correlation_id = ? AND workflow_id = ?`,
    selectCorrelation: `SELECT workflow_id, terminal FROM ${ks}.workflows_by_correlation WHERE workflow_name = ? AND correlation_id = ?`,

    insertTaskLog: `INSERT INTO ${ks}.task_logs (task_id, created_time, log_id, log) VALUES (?, ?, ?, ?)`,
    selectTaskLogs: `SELECT created_time, log FROM ${ks}.task_logs WHERE task_id = ? LIMIT ?`,
    countTaskLogs: `SELECT COUNT(*) AS n FROM ${ks}.task_logs WHERE task_id = ?`,
    deleteTaskLogs: `DELETE FROM ${ks}.task_logs WHERE task_id = ?`,
  };
}

export function metadataStatements(keyspace: string) {
  const ks = assertKeyspaceName(keyspace);
  return {
    upsertTaskDef: `INSERT INTO ${ks}.task_defs (name, def_json) VALUES (?, ?)`,
    selectTaskDef: `SELECT def_json FROM ${ks}.task_defs WHERE name = ?`,
    selectTaskDefs: `SELECT def_json FROM ${ks}.task_defs`,
    deleteTaskDef: `DELETE FROM ${ks}.task_defs WHERE name = ?`,

    upsertWorkflowDef: `INSERT INTO ${ks}.workflow_defs (name, version, def_json) VALUES (?, ?, ?)`,
    selectWorkflowDef: `SELECT def_json FROM ${ks}.workflow_defs WHERE name = ? AND version = ?`,
    selectLatestWorkflowDef: `SELECT def_json FROM ${ks}.workflow_defs WHERE name = ? LIMIT 1`,
    selectWorkflowDefs: `SELECT def_json FROM ${ks}.workflow_defs`,
    deleteWorkflowDef: `DELETE FROM ${ks}.workflow_defs WHERE name = ? AND version = ?`,

    upsertEventHandler: `INSERT INTO ${ks}.event_handlers (name, handler_json) VALUES (?, ?)`,
    selectEventHandler: `SELECT handler_json FROM ${ks}.event_handlers WHERE name = ?`,
    selectEventHandlers: `SELECT handler_json FROM ${ks}.event_handlers`,
    deleteEventHandler: `DELETE FROM ${ks}.event_handlers WHERE name = ?`,

    insertEventExecution: `INSERT INTO ${ks}.event_executions (handler_name, bucket, created, id, execution_json) VALUES (?, ?, ?, ?, ?) USING TTL ?`,
    selectEventExecutions: `SELECT execution_json FROM ${ks}.event_executions WHERE handler_name = ? AND bucket = ?`,
    insertEventBucket: `INSERT INTO ${ks}.index_buckets (index_name, bucket) VALUES (?, ?) USING TTL ?`,
    selectEventBuckets: `SELECT bucket FROM ${ks}.index_buckets WHERE index_name = ?`,
    upsertEventExecutionHandler: `INSERT INTO ${ks}.event_execution_handlers (shard, handler_name) VALUES (0, ?)`,
    selectEventExecutionHandlers: `SELECT handler_name FROM ${ks}.event_execution_handlers WHERE shard = 0`,

    upsertApplication: `INSERT INTO ${ks}.applications (id, app_json) VALUES (?, ?)`,
    selectApplication: `SELECT app_json FROM ${ks}.applications WHERE id = ?`,
    selectApplications: `SELECT app_json FROM ${ks}.applications`,
    selectApplicationIds: `SELECT id FROM ${ks}.applications`,
    deleteApplication: `DELETE FROM ${ks}.applications WHERE id = ?`,
    upsertAccessKey: `INSERT INTO ${ks}.access_keys (id, key_json) VALUES (?, ?)`,
    selectAccessKey: `SELECT key_json FROM ${ks}.access_keys WHERE id = ?`,
    deleteAccessKey: `DELETE FROM ${ks}.access_keys WHERE id = ?`,
    insertApplicationKey: `INSERT INTO ${ks}.application_keys (application_id, key_id) VALUES (?, ?)`,
    selectApplicationKeys: `SELECT key_id FROM ${ks}.application_keys WHERE application_id = ?`,
    deleteApplicationKey: `DELETE FROM ${ks}.application_keys WHERE application_id = ? AND key_id = ?`,
    insertSettingIfAbsent: `INSERT INTO ${ks}.settings (name, value) VALUES (?, ?) IF NOT EXISTS`,
  };
}

export type ExecutionStatements = ReturnType<typeof executionStatements>;
export type MetadataStatements = ReturnType<typeof metadataStatements>;
