import type Database from 'better-sqlite3';
import type { ScheduleExecution, WorkflowSchedule } from '../../model/schedules';
import type { ScheduleExecutionQuery, ScheduleStore } from '../schedule-store';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS schedules (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS schedule_slots (name TEXT PRIMARY KEY, last_slot INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS schedule_executions (
  execution_id TEXT PRIMARY KEY, schedule_name TEXT NOT NULL, workflow_name TEXT NOT NULL, state TEXT NOT NULL,
  scheduled_time INTEGER NOT NULL, execution_time INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS schedule_executions_by_time ON schedule_executions(scheduled_time DESC, execution_id);
CREATE INDEX IF NOT EXISTS schedule_executions_by_execution_time ON schedule_executions(execution_time);
CREATE TABLE IF NOT EXISTS scheduler_settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/** Execution records older than this are dropped (Cassandra writes them with the same TTL). */
export const SCHEDULE_EXECUTION_RETENTION_MS = 7 * 24 * 3600 * 1000;

type Row = { data: string };

/** Schedules in the embedded SQLite file; `now` only dates the retention of execution records. */
export class SqliteScheduleStore implements ScheduleStore {
  private readonly s;

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => number = Date.now,
  ) {
    db.exec(SCHEMA);
    this.s = {
      put: db.prepare('INSERT INTO schedules (name, data) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data'),
      get: db.prepare<[string], Row>('SELECT data FROM schedules WHERE name = ?'),
      list: db.prepare<[], Row>('SELECT data FROM schedules ORDER BY name'),
      count: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM (SELECT 1 FROM schedules LIMIT ?)'),
      del: db.prepare('DELETE FROM schedules WHERE name = ?'),
      delSlot: db.prepare('DELETE FROM schedule_slots WHERE name = ?'),
      slot: db.prepare<[string], { last_slot: number }>('SELECT last_slot FROM schedule_slots WHERE name = ?'),
      firstSlot: db.prepare('INSERT INTO schedule_slots (name, last_slot) VALUES (?, ?) ON CONFLICT(name) DO NOTHING'),
      moveSlot: db.prepare('UPDATE schedule_slots SET last_slot = ? WHERE name = ? AND last_slot = ?'),
      putExec: db.prepare(
        'INSERT OR REPLACE INTO schedule_executions (execution_id, schedule_name, workflow_name, state, scheduled_time, execution_time, data) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      prune: db.prepare('DELETE FROM schedule_executions WHERE execution_time < ?'),
      setSetting: db.prepare('INSERT INTO scheduler_settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET value = excluded.value'),
      getSetting: db.prepare<[string], { value: string }>('SELECT value FROM scheduler_settings WHERE name = ?'),
    };
  }

  async putSchedule(s: WorkflowSchedule): Promise<void> {
    this.s.put.run(s.name, JSON.stringify(s));
  }
  async getSchedule(name: string): Promise<WorkflowSchedule | undefined> {
    const r = this.s.get.get(name);
    return r ? (JSON.parse(r.data) as WorkflowSchedule) : undefined;
  }
  async listSchedules(): Promise<WorkflowSchedule[]> {
    return this.s.list.all().map((r) => JSON.parse(r.data) as WorkflowSchedule);
  }
  async countSchedules(atMost: number): Promise<number> {
    return this.s.count.get(atMost)!.n;
  }
  async deleteSchedule(name: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.s.delSlot.run(name);
      return this.s.del.run(name).changes > 0;
    })();
  }
  async lastSlot(name: string): Promise<number | undefined> {
    return this.s.slot.get(name)?.last_slot;
  }
  async advanceSlot(name: string, expected: number | undefined, slot: number): Promise<boolean> {
    const r = expected === undefined ? this.s.firstSlot.run(name, slot) : this.s.moveSlot.run(slot, name, expected);
    return r.changes > 0;
  }
  async putExecution(e: ScheduleExecution): Promise<void> {
    this.s.putExec.run(e.executionId, e.scheduleName, e.workflowName, e.state, e.scheduledTime, e.executionTime, JSON.stringify(e));
    this.s.prune.run(this.now() - SCHEDULE_EXECUTION_RETENTION_MS);
  }
  async searchExecutions(q: ScheduleExecutionQuery): Promise<{ results: ScheduleExecution[]; totalHits: number }> {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.scheduleName !== undefined) {
      where.push('schedule_name = ?');
      args.push(q.scheduleName);
    }
    if (q.workflowName !== undefined) {
      where.push('workflow_name = ?');
      args.push(q.workflowName);
    }
    if (q.state !== undefined) {
      where.push('state = ?');
      args.push(q.state);
    }
    if (q.text !== undefined) {
      where.push("(schedule_name = ? OR workflow_name = ? OR json_extract(data, '$.workflowId') = ?)");
      args.push(q.text, q.text, q.text);
    }
    const clause = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.db.prepare<unknown[], { n: number }>(`SELECT COUNT(*) AS n FROM schedule_executions ${clause}`).get(...args)!.n;
    const rows = this.db
      .prepare<unknown[], Row>(
        `SELECT data FROM schedule_executions ${clause} ORDER BY scheduled_time ${q.ascending ? 'ASC' : 'DESC'}, execution_id LIMIT ? OFFSET ?`,
      )
      .all(...args, q.size, q.start);
    return { results: rows.map((r) => JSON.parse(r.data) as ScheduleExecution), totalHits: total };
  }
  async setAllPaused(paused: boolean): Promise<void> {
    this.s.setSetting.run('allPaused', String(paused));
  }
  async allPaused(): Promise<boolean> {
    return this.s.getSetting.get('allPaused')?.value === 'true';
  }
}
