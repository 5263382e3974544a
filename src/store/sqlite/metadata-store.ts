import type Database from 'better-sqlite3';
import type { TaskDef, WorkflowDef } from '../../model/definitions';
import type { AccessKeyRecord, ApplicationRecord } from '../../model/applications';
import type { EventExecution, EventHandler } from '../../model/events';
import type { MetadataStore } from '../ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS task_defs (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS workflow_defs (name TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (name, version));
CREATE TABLE IF NOT EXISTS event_handlers (name TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS event_executions (id TEXT PRIMARY KEY, handler TEXT NOT NULL, created INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS event_executions_by_handler ON event_executions(handler, created);
CREATE TABLE IF NOT EXISTS applications (id TEXT PRIMARY KEY, data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS access_keys (id TEXT PRIMARY KEY, application_id TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS access_keys_by_application ON access_keys(application_id);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

type Row = { data: string };
const parse = <T>(r: Row | undefined): T | undefined => (r ? (JSON.parse(r.data) as T) : undefined);

/** Definitions and event handlers in the embedded SQLite file. */
export class SqliteMetadataStore implements MetadataStore {
  private readonly s;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.s = {
      putTask: db.prepare('INSERT INTO task_defs (name, data) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data'),
      getTask: db.prepare<[string], Row>('SELECT data FROM task_defs WHERE name = ?'),
      listTasks: db.prepare<[], Row>('SELECT data FROM task_defs ORDER BY name'),
      delTask: db.prepare('DELETE FROM task_defs WHERE name = ?'),
      putWf: db.prepare('INSERT INTO workflow_defs (name, version, data) VALUES (?, ?, ?) ON CONFLICT(name, version) DO UPDATE SET data = excluded.data'),
      getWf: db.prepare<[string, number], Row>('SELECT data FROM workflow_defs WHERE name = ? AND version = ?'),
      latestWf: db.prepare<[string], Row>('SELECT data FROM workflow_defs WHERE name = ? ORDER BY version DESC LIMIT 1'),
      listWf: db.prepare<[], Row>('SELECT data FROM workflow_defs ORDER BY name, version'),
      delWf: db.prepare('DELETE FROM workflow_defs WHERE name = ? AND version = ?'),
      putHandler: db.prepare('INSERT INTO event_handlers (name, data) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data'),
      getHandler: db.prepare<[string], Row>('SELECT data FROM event_handlers WHERE name = ?'),
      listHandlers: db.prepare<[], Row>('SELECT data FROM event_handlers ORDER BY name'),
      delHandler: db.prepare('DELETE FROM event_handlers WHERE name = ?'),
      addExec: db.prepare('INSERT OR REPLACE INTO event_executions (id, handler, created, data) VALUES (?, ?, ?, ?)'),
      execsAll: db.prepare<[], Row>('SELECT data FROM event_executions ORDER BY created, id'),
      execsOf: db.prepare<[string], Row>('SELECT data FROM event_executions WHERE handler = ? ORDER BY created, id'),
      putApp: db.prepare('INSERT INTO applications (id, data) VALUES (?, ?) ON CONFLICT(id) DO UPDATE SET data = excluded.data'),
      getApp: db.prepare<[string], Row>('SELECT data FROM applications WHERE id = ?'),
      listApps: db.prepare<[], Row>('SELECT data FROM applications ORDER BY id'),
      countApps: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM (SELECT 1 FROM applications LIMIT ?)'),
      delApp: db.prepare('DELETE FROM applications WHERE id = ?'),
      putKey: db.prepare(
        'INSERT INTO access_keys (id, application_id, data) VALUES (?, ?, ?) ON CONFLICT(id) DO UPDATE SET application_id = excluded.application_id, data = excluded.data',
      ),
      getKey: db.prepare<[string], Row>('SELECT data FROM access_keys WHERE id = ?'),
      keysOf: db.prepare<[string], Row>('SELECT data FROM access_keys WHERE application_id = ? ORDER BY id'),
      delKey: db.prepare('DELETE FROM access_keys WHERE id = ?'),
      addSetting: db.prepare('INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT(name) DO NOTHING'),
      getSetting: db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE name = ?'),
    };
  }

  async putTaskDef(def: TaskDef): Promise<void> {
    this.s.putTask.run(def.name, JSON.stringify(def));
  }
  async getTaskDef(name: string): Promise<TaskDef | undefined> {
    return parse<TaskDef>(this.s.getTask.get(name));
  }
  async listTaskDefs(): Promise<TaskDef[]> {
    return this.s.listTasks.all().map((r) => JSON.parse(r.data) as TaskDef);
  }
  async deleteTaskDef(name: string): Promise<boolean> {
    return this.s.delTask.run(name).changes > 0;
  }
  async putWorkflowDef(def: WorkflowDef): Promise<void> {
    this.s.putWf.run(def.name, def.version, JSON.stringify(def));
  }
  async getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    return parse<WorkflowDef>(version === undefined ? this.s.latestWf.get(name) : this.s.getWf.get(name, version));
  }
  async listWorkflowDefs(): Promise<WorkflowDef[]> {
    return this.s.listWf.all().map((r) => JSON.parse(r.data) as WorkflowDef);
  }
  async deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    return this.s.delWf.run(name, version).changes > 0;
  }
  async putEventHandler(h: EventHandler): Promise<void> {
    this.s.putHandler.run(h.name, JSON.stringify(h));
  }
  async getEventHandler(name: string): Promise<EventHandler | undefined> {
    return parse<EventHandler>(this.s.getHandler.get(name));
  }
  async listEventHandlers(): Promise<EventHandler[]> {
    return this.s.listHandlers.all().map((r) => JSON.parse(r.data) as EventHandler);
  }
  async deleteEventHandler(name: string): Promise<boolean> {
    return this.s.delHandler.run(name).changes > 0;
  }
  async addEventExecution(e: EventExecution): Promise<void> {
    this.s.addExec.run(e.id, e.name, e.created, JSON.stringify(e));
  }
  async listEventExecutions(handlerName?: string): Promise<EventExecution[]> {
    const rows = handlerName ? this.s.execsOf.all(handlerName) : this.s.execsAll.all();
    return rows.map((r) => JSON.parse(r.data) as EventExecution);
  }
  async putApplication(app: ApplicationRecord): Promise<void> {
    this.s.putApp.run(app.id, JSON.stringify(app));
  }
  async getApplication(id: string): Promise<ApplicationRecord | undefined> {
    return parse<ApplicationRecord>(this.s.getApp.get(id));
  }
  async listApplications(): Promise<ApplicationRecord[]> {
    return this.s.listApps.all().map((r) => JSON.parse(r.data) as ApplicationRecord);
  }
  async countApplications(atMost: number): Promise<number> {
    return this.s.countApps.get(atMost)!.n;
  }
  async deleteApplication(id: string): Promise<boolean> {
    return this.s.delApp.run(id).changes > 0;
  }
  async putAccessKey(key: AccessKeyRecord): Promise<void> {
    this.s.putKey.run(key.id, key.applicationId, JSON.stringify(key));
  }
  async getAccessKey(id: string): Promise<AccessKeyRecord | undefined> {
    return parse<AccessKeyRecord>(this.s.getKey.get(id));
  }
  async listAccessKeys(applicationId: string): Promise<AccessKeyRecord[]> {
    return this.s.keysOf.all(applicationId).map((r) => JSON.parse(r.data) as AccessKeyRecord);
  }
  async deleteAccessKey(id: string): Promise<boolean> {
    return this.s.delKey.run(id).changes > 0;
  }
  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    this.s.addSetting.run(name, value);
    return this.s.getSetting.get(name)!.value;
  }
  async close(): Promise<void> {
    /* the database is closed by its owner */
  }
}
