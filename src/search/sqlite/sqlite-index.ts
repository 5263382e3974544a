import type BetterSqlite3 from 'better-sqlite3';
import type { Task, WorkflowRecord } from '../../model/execution';
import type { SearchResult, TaskSummary, WorkflowSummary } from '../../model/summaries';
import { mergeOverviewSlices, type OverviewRows, type OverviewSlice, type OverviewWindow } from '../overview';
import type { SearchIndex, SearchRequest } from '../ports';
import { MAX_SEARCH_SIZE, type SearchTarget } from '../search-fields';
import { summarizeTask, summarizeWorkflow } from '../summaries';
import { orderByOf, TABLE, whereOf, type SqlValue } from './sql-query';
import { TickBatch } from '../../store/sqlite/tick-batch';

/**
 * The embedded profile's search index: two tables in the shared SQLite file. Each row keeps the
 * filterable summary fields as columns (times as epoch millis), input/output JSON text for freeText,
 * and the rest of the summary as JSON, so a hit is returned exactly as it was summarised.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS idx_workflow (
  workflow_id TEXT PRIMARY KEY,
  workflow_type TEXT NOT NULL,
  version INTEGER NOT NULL,
  correlation_id TEXT,
  status TEXT NOT NULL,
  start_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL,
  end_time INTEGER,
  reason_for_incompletion TEXT,
  execution_time INTEGER NOT NULL,
  event TEXT,
  priority INTEGER NOT NULL,
  parent_workflow_id TEXT,
  created_by TEXT,
  input TEXT NOT NULL,
  output TEXT NOT NULL,
  summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_workflow_by_start ON idx_workflow (start_time);
CREATE INDEX IF NOT EXISTS idx_workflow_by_type_start ON idx_workflow (workflow_type, start_time);
CREATE INDEX IF NOT EXISTS idx_workflow_by_status_start ON idx_workflow (status, start_time);
CREATE INDEX IF NOT EXISTS idx_workflow_by_end ON idx_workflow (end_time);
CREATE INDEX IF NOT EXISTS idx_workflow_by_correlation ON idx_workflow (correlation_id);
CREATE INDEX IF NOT EXISTS idx_workflow_by_parent ON idx_workflow (parent_workflow_id);
CREATE TABLE IF NOT EXISTS idx_task (
  task_id TEXT PRIMARY KEY,
  task_type TEXT NOT NULL,
  task_def_name TEXT NOT NULL,
  status TEXT NOT NULL,
  workflow_id TEXT NOT NULL,
  workflow_type TEXT NOT NULL,
  correlation_id TEXT,
  scheduled_time INTEGER NOT NULL,
  start_time INTEGER NOT NULL,
  update_time INTEGER NOT NULL,
  end_time INTEGER NOT NULL,
  domain TEXT,
  reason_for_incompletion TEXT,
  execution_time INTEGER NOT NULL,
  queue_wait_time INTEGER NOT NULL,
  workflow_priority INTEGER NOT NULL,
  input TEXT NOT NULL,
  output TEXT NOT NULL,
  summary TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS idx_task_by_workflow ON idx_task (workflow_id);
CREATE INDEX IF NOT EXISTS idx_task_by_scheduled ON idx_task (scheduled_time);
CREATE INDEX IF NOT EXISTS idx_task_by_type_scheduled ON idx_task (task_type, scheduled_time);
CREATE INDEX IF NOT EXISTS idx_task_by_status_scheduled ON idx_task (status, scheduled_time);
`;

const WORKFLOW_COLUMNS = [
  'workflow_id',
  'workflow_type',
  'version',
  'correlation_id',
  'status',
  'start_time',
  'update_time',
  'end_time',
  'reason_for_incompletion',
  'execution_time',
  'event',
  'priority',
  'parent_workflow_id',
  'created_by',
  'input',
  'output',
  'summary',
];
const TASK_COLUMNS = [
  'task_id',
  'task_type',
  'task_def_name',
  'status',
  'workflow_id',
  'workflow_type',
  'correlation_id',
  'scheduled_time',
  'start_time',
  'update_time',
  'end_time',
  'domain',
  'reason_for_incompletion',
  'execution_time',
  'queue_wait_time',
  'workflow_priority',
  'input',
  'output',
  'summary',
];

/** Insert, or replace unless the stored row is newer (a late, stale update is dropped). */
function upsertSql(table: string, columns: string[]): string {
  const [key, ...rest] = columns;
  return (
    `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')}) ` +
    `ON CONFLICT (${key}) DO UPDATE SET ${rest.map((c) => `${c} = excluded.${c}`).join(', ')} ` +
    `WHERE excluded.update_time >= ${table}.update_time`
  );
}

type Row = Record<string, SqlValue | null>;
interface HitRow {
  input: string;
  output: string;
  summary: string;
}

function workflowRow(w: WorkflowRecord): Row {
  const { input, output, ...rest } = summarizeWorkflow(w);
  return {
    workflow_id: w.workflowId,
    workflow_type: rest.workflowType,
    version: rest.version,
    correlation_id: w.correlationId ?? null,
    status: w.status,
    start_time: w.startTime,
    update_time: w.updateTime,
    end_time: w.endTime > 0 ? w.endTime : null,
    reason_for_incompletion: w.reasonForIncompletion ?? null,
    execution_time: rest.executionTime,
    event: w.event ?? null,
    priority: w.priority,
    // Conductor reports "" for a top-level workflow; NULL here makes `parentWorkflowId IS NULL` find them.
    parent_workflow_id: w.parentWorkflowId ? w.parentWorkflowId : null,
    created_by: w.createdBy ?? null,
    input,
    output,
    summary: JSON.stringify(rest),
  };
}

function taskRow(t: Task): Row {
  const { input, output, ...rest } = summarizeTask(t);
  return {
    task_id: t.taskId,
    task_type: t.taskType,
    task_def_name: t.taskDefName,
    status: t.status,
    workflow_id: t.workflowInstanceId,
    workflow_type: t.workflowType,
    correlation_id: t.correlationId ?? null,
    scheduled_time: t.scheduledTime,
    start_time: t.startTime,
    update_time: t.updateTime,
    end_time: t.endTime,
    domain: t.domain ?? null,
    reason_for_incompletion: t.reasonForIncompletion ?? null,
    execution_time: rest.executionTime,
    queue_wait_time: rest.queueWaitTime,
    workflow_priority: t.workflowPriority,
    input,
    output,
    summary: JSON.stringify(rest),
  };
}

const STATEMENT_CACHE_LIMIT = 256;

/**
 * A flush of a busy second holds hundreds of documents: written at once it blocked the event loop
 * for ~20-30 ms (the update p99 at 70% load); in transactions of CHUNK with a turn of the loop
 * between them, requests are answered in between.
 */
const CHUNK = 64;
async function inChunks<T>(items: T[], write: (chunk: T[]) => void): Promise<void> {
  for (let i = 0; i < items.length; i += CHUNK) {
    if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
    write(items.slice(i, i + CHUNK));
  }
}

export class SqliteSearchIndex implements SearchIndex {
  private readonly writeWorkflows: (rows: Row[]) => void;
  private readonly writeTasks: (rows: Row[]) => void;
  private readonly removals: TickBatch<string>;
  /** Search SQL varies with the query's shape; prepared statements are reused per distinct text. */
  private readonly statements = new Map<string, BetterSqlite3.Statement>();

  constructor(private readonly db: BetterSqlite3.Database) {
    db.exec(SCHEMA);
    const upsertWorkflow = db.prepare(upsertSql(TABLE.workflow, WORKFLOW_COLUMNS));
    const upsertTask = db.prepare(upsertSql(TABLE.task, TASK_COLUMNS));
    const deleteWorkflow = db.prepare(`DELETE FROM ${TABLE.workflow} WHERE workflow_id = ?`);
    const deleteTasks = db.prepare(`DELETE FROM ${TABLE.task} WHERE workflow_id = ?`);
    this.writeWorkflows = db.transaction((rows: Row[]) => {
      for (const row of rows) upsertWorkflow.run(row);
    });
    this.writeTasks = db.transaction((rows: Row[]) => {
      for (const row of rows) upsertTask.run(row);
    });
    this.removals = new TickBatch(
      db.transaction((workflowIds: string[]) => {
        for (const id of workflowIds) {
          deleteWorkflow.run(id);
          deleteTasks.run(id);
        }
      }),
    );
  }

  async indexWorkflows(docs: WorkflowRecord[]): Promise<void> {
    await inChunks(docs, (chunk) => this.writeWorkflows(chunk.map(workflowRow)));
  }

  async indexTasks(tasks: Task[]): Promise<void> {
    await inChunks(tasks, (chunk) => this.writeTasks(chunk.map(taskRow)));
  }

  /** Removes the workflow's record and the records of its tasks. */
  removeWorkflow(workflowId: string): Promise<void> {
    return this.removals.add(workflowId);
  }

  async searchWorkflows(req: SearchRequest): Promise<SearchResult<WorkflowSummary>> {
    return this.search<WorkflowSummary>('workflow', req);
  }

  async searchTasks(req: SearchRequest): Promise<SearchResult<TaskSummary>> {
    return this.search<TaskSummary>('task', req);
  }

  /**
   * The overview's aggregates, one minute of the window per statement group with a turn of the event loop
   * between minutes: an hour of a busy embedded server (100,000 executions) read at once held the loop for
   * seconds, a minute's share of it for milliseconds.
   */
  async overview(w: OverviewWindow): Promise<OverviewRows> {
    const started = this.statement(
      `SELECT workflow_type AS name, COUNT(*) AS count FROM ${TABLE.workflow} WHERE start_time >= @from AND start_time < @to GROUP BY workflow_type`,
    );
    const ended = this.statement(
      `SELECT workflow_type AS name, status, COUNT(*) AS count, SUM(execution_time) AS sumMs, MAX(execution_time) AS maxMs FROM ${TABLE.workflow}
       WHERE end_time >= @from AND end_time < @to GROUP BY workflow_type, status`,
    );
    const waits = this.statement(
      `SELECT task_type AS taskType, COUNT(*) AS count, SUM(queue_wait_time) AS sumMs, MAX(queue_wait_time) AS maxMs FROM ${TABLE.task}
       WHERE scheduled_time >= @from AND scheduled_time < @to AND start_time > 0 GROUP BY task_type`,
    );
    const slices: OverviewSlice[] = [];
    for (let at = w.from, bucket = 0; at < w.to; at += w.bucketMs, bucket++) {
      if (bucket > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const p = { from: at, to: at + w.bucketMs };
      slices.push({
        bucket,
        started: started.all(p) as OverviewSlice['started'],
        ended: ended.all(p) as OverviewSlice['ended'],
        waits: waits.all(p) as OverviewSlice['waits'],
      });
    }
    return mergeOverviewSlices(slices, w.maxNames);
  }

  /** The database belongs to the composition root, which closes it; only cached statements go. */
  async close(): Promise<void> {
    this.statements.clear();
  }

  private search<T>(target: SearchTarget, req: SearchRequest): SearchResult<T> {
    const where = whereOf(target, req.query, req.freeText);
    const table = TABLE[target];
    const count = this.statement(`SELECT COUNT(*) AS n FROM ${table} WHERE ${where.sql}`).get(...where.params) as { n: number };
    const start = Math.max(0, Math.trunc(req.start));
    const size = Math.min(MAX_SEARCH_SIZE, Math.max(0, Math.trunc(req.size)));
    if (size === 0 || start >= count.n) return { totalHits: count.n, results: [] };
    const rows = this.statement(`SELECT input, output, summary FROM ${table} WHERE ${where.sql} ORDER BY ${orderByOf(target, req.sort)} LIMIT ? OFFSET ?`).all(
      ...where.params,
      size,
      start,
    ) as HitRow[];
    return { totalHits: count.n, results: rows.map((r) => ({ ...JSON.parse(r.summary), input: r.input, output: r.output }) as T) };
  }

  private statement(sql: string): BetterSqlite3.Statement {
    let stmt = this.statements.get(sql);
    if (stmt) {
      // Refresh recency so the cache drops the least recently used text first.
      this.statements.delete(sql);
    } else {
      stmt = this.db.prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_LIMIT) this.statements.delete(this.statements.keys().next().value!);
    }
    this.statements.set(sql, stmt);
    return stmt;
  }
}
