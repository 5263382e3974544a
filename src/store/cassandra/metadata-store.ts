import { type Client, type QueryOptions, types } from 'cassandra-driver';
import type { TaskDef, WorkflowDef } from '../../model/definitions';
import type { AccessKeyRecord, ApplicationRecord } from '../../model/applications';
import type { EventExecution, EventHandler } from '../../model/events';
import type { MetadataStore } from '../ports';
import { countRowsUpTo } from './count-rows';
import { bucketOf, DEFAULT_INDEX_LAYOUT, eventIndexName, type IndexLayout, toNumber } from './rows';
import { metadataStatements, type MetadataStatements } from './statements';

export interface CassandraMetadataStoreOptions {
  keyspace: string;
  consistency?: types.consistencies;
  layout?: IndexLayout;
  /** TTL of event executions in seconds; 0 keeps them. */
  eventExecutionTtlSeconds?: number;
}

const PAGE = 500;
export const DEFAULT_EVENT_EXECUTION_TTL_SECONDS = 7 * 24 * 3600;

/** A table of one JSON document per key (definitions, event handlers, applications): its statements, its column, a row's key, the listing order. */
interface JsonTable<T> {
  upsert: string;
  select: string;
  selectAll: string;
  remove: string;
  column: string;
  key(row: T): unknown[];
  order(a: T, b: T): number;
}

const byName = (a: { name: string }, b: { name: string }): number => a.name.localeCompare(b.name);

/** MetadataStore over Cassandra. Every statement is idempotent; deletes report whether the row existed (read, then delete: admin operations, no race worth a transaction). */
export class CassandraMetadataStore implements MetadataStore {
  private readonly q: MetadataStatements;
  private readonly consistency: types.consistencies;
  private readonly layout: IndexLayout;
  private readonly eventTtl: number;
  private readonly taskDefs: JsonTable<TaskDef>;
  private readonly workflowDefs: JsonTable<WorkflowDef>;
  private readonly eventHandlers: JsonTable<EventHandler>;
  private readonly applications: JsonTable<ApplicationRecord>;

  constructor(
    private readonly client: Client,
    opts: CassandraMetadataStoreOptions,
  ) {
    this.q = metadataStatements(opts.keyspace);
    this.consistency = opts.consistency ?? types.consistencies.localQuorum;
    this.layout = opts.layout ?? DEFAULT_INDEX_LAYOUT;
    this.eventTtl = opts.eventExecutionTtlSeconds ?? DEFAULT_EVENT_EXECUTION_TTL_SECONDS;
    const q = this.q;
    this.taskDefs = {
      upsert: q.upsertTaskDef,
      select: q.selectTaskDef,
      selectAll: q.selectTaskDefs,
      remove: q.deleteTaskDef,
      column: 'def_json',
      key: (d) => [d.name],
      order: byName,
    };
    this.workflowDefs = {
      upsert: q.upsertWorkflowDef,
      select: q.selectWorkflowDef,
      selectAll: q.selectWorkflowDefs,
      remove: q.deleteWorkflowDef,
      column: 'def_json',
      key: (d) => [d.name, d.version],
      order: (a, b) => byName(a, b) || a.version - b.version,
    };
    this.eventHandlers = {
      upsert: q.upsertEventHandler,
      select: q.selectEventHandler,
      selectAll: q.selectEventHandlers,
      remove: q.deleteEventHandler,
      column: 'handler_json',
      key: (h) => [h.name],
      order: byName,
    };
    this.applications = {
      upsert: q.upsertApplication,
      select: q.selectApplication,
      selectAll: q.selectApplications,
      remove: q.deleteApplication,
      column: 'app_json',
      key: (a) => [a.id],
      order: (a, b) => a.id.localeCompare(b.id),
    };
  }

  private idempotent(extra: QueryOptions = {}): QueryOptions {
    return { prepare: true, consistency: this.consistency, isIdempotent: true, ...extra };
  }

  private async exec(query: string, params: unknown[]) {
    return this.client.execute(query, params, this.idempotent());
  }

  private async jsonColumn<T>(query: string, params: unknown[], column: string): Promise<T[]> {
    const out: T[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(query, params, this.idempotent({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) out.push(JSON.parse(r.get(column) as string) as T);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  private async one<T>(query: string, params: unknown[], column: string): Promise<T | undefined> {
    const json = (await this.exec(query, params)).first()?.get(column) as string | null | undefined;
    return json ? (JSON.parse(json) as T) : undefined;
  }

  private async putRow<T>(table: JsonTable<T>, row: T): Promise<void> {
    await this.exec(table.upsert, [...table.key(row), JSON.stringify(row)]);
  }

  private getRow<T>(table: JsonTable<T>, key: unknown[]): Promise<T | undefined> {
    return this.one<T>(table.select, key, table.column);
  }

  private async listRows<T>(table: JsonTable<T>): Promise<T[]> {
    return (await this.jsonColumn<T>(table.selectAll, [], table.column)).sort((a, b) => table.order(a, b));
  }

  private async deleteRow<T>(table: JsonTable<T>, key: unknown[]): Promise<boolean> {
    if (!(await this.getRow(table, key))) return false;
    await this.exec(table.remove, key);
    return true;
  }

  putTaskDef(def: TaskDef): Promise<void> {
    return this.putRow(this.taskDefs, def);
  }

  getTaskDef(name: string): Promise<TaskDef | undefined> {
    return this.getRow(this.taskDefs, [name]);
  }

  listTaskDefs(): Promise<TaskDef[]> {
    return this.listRows(this.taskDefs);
  }

  deleteTaskDef(name: string): Promise<boolean> {
    return this.deleteRow(this.taskDefs, [name]);
  }

  putWorkflowDef(def: WorkflowDef): Promise<void> {
    return this.putRow(this.workflowDefs, def);
  }

  getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    // Versions cluster newest first, so the latest is the first row of the partition.
    return version === undefined ? this.one<WorkflowDef>(this.q.selectLatestWorkflowDef, [name], 'def_json') : this.getRow(this.workflowDefs, [name, version]);
  }

  listWorkflowDefs(): Promise<WorkflowDef[]> {
    return this.listRows(this.workflowDefs);
  }

  deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    return this.deleteRow(this.workflowDefs, [name, version]);
  }

  putEventHandler(h: EventHandler): Promise<void> {
    return this.putRow(this.eventHandlers, h);
  }

  getEventHandler(name: string): Promise<EventHandler | undefined> {
    return this.getRow(this.eventHandlers, [name]);
  }

  listEventHandlers(): Promise<EventHandler[]> {
    return this.listRows(this.eventHandlers);
  }

  deleteEventHandler(name: string): Promise<boolean> {
    return this.deleteRow(this.eventHandlers, [name]);
  }

  async addEventExecution(e: EventExecution): Promise<void> {
    const bucket = bucketOf(e.created, this.layout.eventBucketMs);
    // The registry row lives as long as the executions it points at.
    const registryTtl = this.eventTtl === 0 ? 0 : this.eventTtl + Math.ceil(this.layout.eventBucketMs / 1000);
    await this.exec(this.q.insertEventExecution, [e.name, bucket, e.created, e.id, JSON.stringify(e), this.eventTtl]);
    await Promise.all([
      this.exec(this.q.insertEventBucket, [eventIndexName(e.name), bucket, registryTtl]),
      this.exec(this.q.upsertEventExecutionHandler, [e.name]),
    ]);
  }

  async listEventExecutions(handlerName?: string): Promise<EventExecution[]> {
    const names =
      handlerName !== undefined
        ? [handlerName]
        : (await this.client.execute(this.q.selectEventExecutionHandlers, [], this.idempotent())).rows.map((r) => r.get('handler_name') as string);
    const out: EventExecution[] = [];
    for (const name of names) {
      const buckets = (await this.client.execute(this.q.selectEventBuckets, [eventIndexName(name)], this.idempotent())).rows.map((r) =>
        toNumber(r.get('bucket')),
      );
      for (const bucket of buckets) out.push(...(await this.jsonColumn<EventExecution>(this.q.selectEventExecutions, [name, bucket], 'execution_json')));
    }
    return out.sort((a, b) => a.created - b.created || a.id.localeCompare(b.id));
  }

  putApplication(app: ApplicationRecord): Promise<void> {
    return this.putRow(this.applications, app);
  }

  getApplication(id: string): Promise<ApplicationRecord | undefined> {
    return this.getRow(this.applications, [id]);
  }

  listApplications(): Promise<ApplicationRecord[]> {
    return this.listRows(this.applications);
  }

  countApplications(atMost: number): Promise<number> {
    return countRowsUpTo(this.client, this.q.selectApplicationIds, this.idempotent(), atMost);
  }

  deleteApplication(id: string): Promise<boolean> {
    return this.deleteRow(this.applications, [id]);
  }

  async putAccessKey(key: AccessKeyRecord): Promise<void> {
    // The listing row first: a key is never stored without being listed under its application.
    await this.exec(this.q.insertApplicationKey, [key.applicationId, key.id]);
    await this.exec(this.q.upsertAccessKey, [key.id, JSON.stringify(key)]);
  }

  getAccessKey(id: string): Promise<AccessKeyRecord | undefined> {
    return this.one<AccessKeyRecord>(this.q.selectAccessKey, [id], 'key_json');
  }

  async listAccessKeys(applicationId: string): Promise<AccessKeyRecord[]> {
    const ids = (await this.exec(this.q.selectApplicationKeys, [applicationId])).rows.map((r) => r.get('key_id') as string);
    const keys = await Promise.all(ids.map((id) => this.getAccessKey(id)));
    // A listing row whose key was deleted, or moved by a put under another application, is not a key of this one.
    return keys.filter((k): k is AccessKeyRecord => k !== undefined && k.applicationId === applicationId).sort((a, b) => a.id.localeCompare(b.id));
  }

  async deleteAccessKey(id: string): Promise<boolean> {
    const key = await this.getAccessKey(id);
    if (!key) return false;
    await this.exec(this.q.deleteAccessKey, [id]);
    await this.exec(this.q.deleteApplicationKey, [key.applicationId, id]);
    return true;
  }

  async putSettingIfAbsent(name: string, value: string): Promise<string> {
    // A lightweight transaction: of replicas racing, exactly one value wins and every one of them reads it back.
    const rs = await this.client.execute(this.q.insertSettingIfAbsent, [name, value], {
      prepare: true,
      consistency: this.consistency,
      serialConsistency: types.consistencies.localSerial,
      isIdempotent: true,
    });
    const row = rs.first();
    return row.get('[applied]') === true ? value : (row.get('value') as string);
  }

  async close(): Promise<void> {
    // The client belongs to openCassandraStores, which shuts it down.
  }
}
