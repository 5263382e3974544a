import type Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import type { WorkflowDef } from '../../model/definitions';
import type { Task, TaskExecLog, WorkflowRecord } from '../../model/execution';
import type { Effect } from '../../model/effects';
import { StaleWriteError, type ExecutionCommit, type ExecutionStore, type StoredExecution } from '../ports';
import { assertPayloadLimits, type PayloadLimits } from '../payload-limits';
import { DEFAULT_TASK_LOG_LIMITS, storedLogLine, type TaskLogLimits } from '../task-log-limits';
import { TickBatch } from './tick-batch';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS workflows (
  workflow_id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  status TEXT NOT NULL,
  correlation_id TEXT,
  rev INTEGER NOT NULL,
  data TEXT NOT NULL,
  outbox TEXT,
  def_key TEXT
);
-- Definition snapshots, content-addressed: a workflow row names its definition instead of carrying it.
CREATE TABLE IF NOT EXISTS workflow_snapshots (
  def_key TEXT PRIMARY KEY,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS workflows_open ON workflows(name, version) WHERE status IN ('RUNNING', 'PAUSED');
CREATE INDEX IF NOT EXISTS workflows_correlation ON workflows(name, correlation_id) WHERE correlation_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS workflows_recovery ON workflows(workflow_id) WHERE status IN ('RUNNING', 'PAUSED') OR outbox IS NOT NULL;
CREATE TABLE IF NOT EXISTS tasks (
  task_id TEXT PRIMARY KEY,
  workflow_id TEXT NOT NULL,
  seq INTEGER NOT NULL,
  data TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tasks_by_workflow ON tasks(workflow_id, seq);
CREATE TABLE IF NOT EXISTS task_logs (
  task_id TEXT NOT NULL,
  created_time INTEGER NOT NULL,
  log TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS task_logs_by_task ON task_logs(task_id, created_time);
`;

const OPEN = new Set(['RUNNING', 'PAUSED']);

interface PendingCommit {
  c: ExecutionCommit;
  /** Serialised workflow row; undefined when only rev and outbox change. */
  data: string | undefined;
  /** Content key of the workflow's definition snapshot, and its JSON when not known to be stored yet. */
  defKey?: string;
  defJson?: string;
  tasks: string[];
  resolve(): void;
  reject(e: unknown): void;
  stale: boolean;
}

/** Executions in the embedded SQLite file: one row per workflow, one row per task, outbox beside the workflow. */
export class SqliteExecutionStore implements ExecutionStore {
  private readonly stmt;
  private readonly commitTx: (batch: PendingCommit[]) => void;
  private pending: PendingCommit[] = [];
  private readonly removals: TickBatch<string>;
  /** Snapshot keys per definition object, keys known to be stored, and definitions by key (shared by loaded executions). */
  private readonly defKeys = new WeakMap<object, string>();
  private readonly storedDefKeys = new Set<string>();
  private readonly defsByKey = new Map<string, WorkflowDef>();

  constructor(
    private readonly db: Database.Database,
    private readonly limits?: PayloadLimits,
  ) {
    db.exec(SCHEMA);
    // Files written before definition snapshots existed get the column (their rows keep the definition inline).
    if (!(db.prepare("SELECT name FROM pragma_table_info('workflows')").all() as Array<{ name: string }>).some((c) => c.name === 'def_key')) {
      db.exec('ALTER TABLE workflows ADD COLUMN def_key TEXT');
    }
    this.stmt = {
      insertWf: db.prepare(
        'INSERT OR IGNORE INTO workflows (workflow_id, name, version, status, correlation_id, rev, data, outbox, def_key) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?)',
      ),
      insertDef: db.prepare('INSERT OR IGNORE INTO workflow_snapshots (def_key, data) VALUES (?, ?)'),
      loadDef: db.prepare<[string], { data: string }>('SELECT data FROM workflow_snapshots WHERE def_key = ?'),
      bumpWf: db.prepare('UPDATE workflows SET rev = rev + 1, outbox = ? WHERE workflow_id = ? AND rev = ?'),
      updateWf: db.prepare(
        'UPDATE workflows SET name = ?, version = ?, status = ?, correlation_id = ?, rev = rev + 1, data = ?, outbox = ?, def_key = ? WHERE workflow_id = ? AND rev = ?',
      ),
      upsertTask: db.prepare(
        'INSERT INTO tasks (task_id, workflow_id, seq, data) VALUES (?, ?, ?, ?) ON CONFLICT(task_id) DO UPDATE SET seq = excluded.seq, data = excluded.data',
      ),
      deleteTask: db.prepare('DELETE FROM tasks WHERE task_id = ?'),
      loadWf: db.prepare<[string], { data: string; outbox: string | null; rev: number; def_key: string | null }>(
        'SELECT data, outbox, rev, def_key FROM workflows WHERE workflow_id = ?',
      ),
      revOf: db.prepare<[string], { rev: number }>('SELECT rev FROM workflows WHERE workflow_id = ?'),
      loadTasks: db.prepare<[string], { data: string }>('SELECT data FROM tasks WHERE workflow_id = ? ORDER BY seq'),
      getTask: db.prepare<[string], { data: string }>('SELECT data FROM tasks WHERE task_id = ?'),
      wfOfTask: db.prepare<[string], { workflow_id: string }>('SELECT workflow_id FROM tasks WHERE task_id = ?'),
      removeWf: db.prepare('DELETE FROM workflows WHERE workflow_id = ?'),
      removeTasks: db.prepare('DELETE FROM tasks WHERE workflow_id = ?'),
      running: db.prepare<[string], { workflow_id: string }>("SELECT workflow_id FROM workflows WHERE name = ? AND status IN ('RUNNING', 'PAUSED')"),
      runningVersion: db.prepare<[string, number], { workflow_id: string }>(
        "SELECT workflow_id FROM workflows WHERE name = ? AND version = ? AND status IN ('RUNNING', 'PAUSED')",
      ),
      byCorrelation: db.prepare<[string, string], { workflow_id: string; status: string }>(
        'SELECT workflow_id, status FROM workflows WHERE name = ? AND correlation_id = ?',
      ),
      recovery: db.prepare<[], { workflow_id: string }>("SELECT workflow_id FROM workflows WHERE status IN ('RUNNING', 'PAUSED') OR outbox IS NOT NULL"),
      addLog: db.prepare('INSERT INTO task_logs (task_id, created_time, log) VALUES (?, ?, ?)'),
      logs: db.prepare<[string, number], { task_id: string; created_time: number; log: string }>(
        'SELECT task_id, created_time, log FROM task_logs WHERE task_id = ? ORDER BY created_time, rowid LIMIT ?',
      ),
      countLogs: db.prepare<[string], { n: number }>('SELECT COUNT(*) AS n FROM task_logs WHERE task_id = ?'),
    };
    this.removals = new TickBatch(
      db.transaction((ids: string[]) => {
        for (const id of ids) {
          this.stmt.removeTasks.run(id);
          this.stmt.removeWf.run(id);
        }
      }),
    );
    // Group commit: every turn committed in the same event-loop tick shares one transaction.
    this.commitTx = db.transaction((batch: PendingCommit[]) => {
      for (const p of batch) p.stale = !this.write(p);
    });
  }

  /** Writes one turn inside the group transaction; false (and nothing written) when fenced out. */
  private write(p: PendingCommit): boolean {
    const { c, data, tasks, defKey } = p;
    const wf = c.workflow;
    const outbox = c.outbox.length > 0 ? JSON.stringify(c.outbox) : null;
    const s = this.stmt;
    if (p.defJson !== undefined) s.insertDef.run(defKey, p.defJson);
    if (c.expectedRev === 0) {
      if (s.insertWf.run(wf.workflowId, wf.workflowName, wf.workflowVersion, wf.status, wf.correlationId ?? null, data, outbox, defKey ?? null).changes !== 1)
        return false;
    } else if (data === undefined) {
      if (s.bumpWf.run(outbox, wf.workflowId, c.expectedRev).changes !== 1) return false;
    } else if (
      s.updateWf.run(wf.workflowName, wf.workflowVersion, wf.status, wf.correlationId ?? null, data, outbox, defKey ?? null, wf.workflowId, c.expectedRev)
        .changes !== 1
    ) {
      return false;
    }
    for (const id of c.deleteTaskIds) s.deleteTask.run(id);
    c.upsertTasks.forEach((t, i) => s.upsertTask.run(t.taskId, wf.workflowId, t.seq, tasks[i]));
    return true;
  }

  /** The snapshot key of a definition: a hash of its JSON, computed once per definition object. */
  private defKeyOf(def: WorkflowDef): { key: string; json?: string } {
    let key = this.defKeys.get(def);
    let json: string | undefined;
    if (!key) {
      json = JSON.stringify(def);
      key = createHash('sha1').update(json).digest('hex');
      this.defKeys.set(def, key);
    }
    if (this.storedDefKeys.has(key)) return { key };
    return { key, json: json ?? JSON.stringify(def) };
  }

  async commit(c: ExecutionCommit): Promise<void> {
    let data: string | undefined;
    let def: { key: string; json?: string } | undefined;
    if (!(c.workflowUnchanged && c.expectedRev > 0)) {
      def = this.defKeyOf(c.workflow.workflowDefinition);
      data = JSON.stringify({ ...c.workflow, workflowDefinition: undefined });
    }
    const tasks = c.upsertTasks.map((t) => JSON.stringify(t));
    // The exact per-field check only runs when a serialised record is big enough to possibly be over a limit.
    if (this.limits) {
      const min = Math.min(this.limits.taskPayloadBytes, this.limits.workflowPayloadBytes);
      if ((data?.length ?? 0) * 3 > min || tasks.some((t) => t.length * 3 > min)) assertPayloadLimits(c, this.limits);
    }
    return new Promise<void>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => this.flush());
      this.pending.push({ c, data, defKey: def?.key, defJson: def?.json, tasks, resolve, reject, stale: false });
    });
  }

  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    try {
      this.commitTx(batch);
    } catch (e) {
      for (const p of batch) p.reject(e);
      return;
    }
    for (const p of batch) {
      if (p.defJson !== undefined && p.defKey) this.storedDefKeys.add(p.defKey);
      if (p.stale) p.reject(new StaleWriteError(p.c.workflow.workflowId, p.c.expectedRev));
      else p.resolve();
    }
  }

  async load(workflowId: string): Promise<StoredExecution | undefined> {
    const row = this.stmt.loadWf.get(workflowId);
    if (!row) return undefined;
    const tasks = this.stmt.loadTasks.all(workflowId).map((r) => JSON.parse(r.data) as Task);
    const workflow = JSON.parse(row.data) as WorkflowRecord;
    if (row.def_key) workflow.workflowDefinition = this.snapshot(row.def_key);
    return {
      workflow,
      tasks,
      outbox: row.outbox ? (JSON.parse(row.outbox) as Effect[]) : [],
      rev: row.rev,
    };
  }

  async revOf(workflowId: string): Promise<number | undefined> {
    return this.stmt.revOf.get(workflowId)?.rev;
  }

  /** A stored definition snapshot, parsed once and shared by every execution that uses it. */
  private snapshot(key: string): WorkflowDef {
    let def = this.defsByKey.get(key);
    if (!def) {
      const row = this.stmt.loadDef.get(key);
      if (!row) throw new Error(`definition snapshot ${key} is missing`);
      def = JSON.parse(row.data) as WorkflowDef;
      if (this.defsByKey.size >= 1000) this.defsByKey.clear();
      this.defsByKey.set(key, def);
      this.defKeys.set(def, key);
      this.storedDefKeys.add(key);
    }
    return def;
  }

  remove(workflowId: string): Promise<void> {
    return this.removals.add(workflowId);
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    const row = this.stmt.getTask.get(taskId);
    return row ? (JSON.parse(row.data) as Task) : undefined;
  }

  async workflowIdOfTask(taskId: string): Promise<string | undefined> {
    return this.stmt.wfOfTask.get(taskId)?.workflow_id;
  }

  async runningWorkflowIds(name: string, version?: number): Promise<string[]> {
    const rows = version === undefined ? this.stmt.running.all(name) : this.stmt.runningVersion.all(name, version);
    return rows.map((r) => r.workflow_id);
  }

  async workflowIdsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<string[]> {
    return this.stmt.byCorrelation
      .all(name, correlationId)
      .filter((r) => includeClosed || OPEN.has(r.status))
      .map((r) => r.workflow_id);
  }

  async *idsNeedingRecovery(): AsyncIterable<string> {
    for (const r of this.stmt.recovery.all()) yield r.workflow_id;
  }

  /** Pages by key, so no statement stays open across the awaits of the caller. */
  async *listWorkflowIds(): AsyncIterable<string> {
    const page = this.db.prepare<[string, number], { workflow_id: string }>(
      'SELECT workflow_id FROM workflows WHERE workflow_id > ? ORDER BY workflow_id LIMIT ?',
    );
    for (let after = ''; ;) {
      const rows = page.all(after, 500);
      for (const r of rows) yield r.workflow_id;
      if (rows.length < 500) return;
      after = rows[rows.length - 1]!.workflow_id;
    }
  }

  get taskLogLimits(): TaskLogLimits {
    return this.limits?.taskLogs ?? DEFAULT_TASK_LOG_LIMITS;
  }

  async appendTaskLogs(logs: Array<TaskExecLog & { taskId: string; createdTime: number }>): Promise<number> {
    const limits = this.taskLogLimits;
    // Counted and written in one transaction: racing appends cannot take a task past its limit.
    return this.db.transaction(() => {
      const held = new Map<string, number>();
      let stored = 0;
      for (const l of logs) {
        const n = held.get(l.taskId) ?? this.stmt.countLogs.get(l.taskId)!.n;
        if (n >= limits.lines) {
          held.set(l.taskId, n);
          continue;
        }
        this.stmt.addLog.run(l.taskId, l.createdTime, storedLogLine(l.log, limits));
        held.set(l.taskId, n + 1);
        stored++;
      }
      return stored;
    })();
  }

  async taskLogs(taskId: string): Promise<TaskExecLog[]> {
    return this.stmt.logs.all(taskId, this.taskLogLimits.lines).map((r) => ({ log: r.log, taskId: r.task_id, createdTime: r.created_time }));
  }

  async close(): Promise<void> {
    /* the database is closed by its owner */
  }
}
