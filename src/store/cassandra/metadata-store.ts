import { type Client, type QueryOptions, types } from 'cassandra-driver';
import type { TaskDef, WorkflowDef } from '../../model/definitions';
import type { AccessKeyRecord, ApplicationRecord } from '../../model/applications';
import type { EventExecution, EventHandler } from '../../model/events';
import type { MetadataStore } from '../ports';
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

/** MetadataStore over Cassandra. Every statement is idempotent; deletes report whether the row existed (read, then delete: admin operations, no race worth a transaction). */
export class CassandraMetadataStore implements MetadataStore {
  private readonly q: MetadataStatements;
  private readonly consistency: types.consistencies;
  private readonly layout: IndexLayout;
  private readonly eventTtl: number;

  constructor(
    private readonly client: Client,
    opts: CassandraMetadataStoreOptions,
  ) {
    this.q = metadataStatements(opts.keyspace);
    this.consistency = opts.consistency ?? types.consistencies.localQuorum;
    this.layout = opts.layout ?? DEFAULT_INDEX_LAYOUT;
    this.eventTtl = opts.eventExecutionTtlSeconds ?? DEFAULT_EVENT_EXECUTION_TTL_SECONDS;
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

  async putTaskDef(def: TaskDef): Promise<void> {
    await this.exec(this.q.upsertTaskDef, [def.name, JSON.stringify(def)]);
  }

  getTaskDef(name: string): Promise<TaskDef | undefined> {
    return this.one<TaskDef>(this.q.selectTaskDef, [name], 'def_json');
  }

  async listTaskDefs(): Promise<TaskDef[]> {
    const defs = await this.jsonColumn<TaskDef>(this.q.selectTaskDefs, [], 'def_json');
    return defs.sort((a, b) => a.name.localeCompare(b.name));
  }

  async deleteTaskDef(name: string): Promise<boolean> {
    if (!(await this.getTaskDef(name))) return false;
    await this.exec(this.q.deleteTaskDef, [name]);
    return true;
  }

  async putWorkflowDef(def: WorkflowDef): Promise<void> {
    await this.exec(this.q.upsertWorkflowDef, [def.name, def.version, JSON.stringify(def)]);
  }

  getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined> {
    // Versions cluster newest first, so the latest is the first row of the partition.
    return version === undefined
      ? this.one<WorkflowDef>(this.q.selectLatestWorkflowDef, [name], 'def_json')
      : this.one<WorkflowDef>(this.q.selectWorkflowDef, [name, version], 'def_json');
  }

  async listWorkflowDefs(): Promise<WorkflowDef[]> {
    const defs = await this.jsonColumn<WorkflowDef>(this.q.selectWorkflowDefs, [], 'def_json');
    return defs.sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
  }

  async deleteWorkflowDef(name: string, version: number): Promise<boolean> {
    if (!(await this.getWorkflowDef(name, version))) return false;
    await this.exec(this.q.deleteWorkflowDef, [name, version]);
    return true;
  }

  async putEventHandler(h: EventHandler): Promise<void> {
    await this.exec(this.q.upsertEventHandler, [h.name, JSON.stringify(h)]);
  }

  getEventHandler(name: string): Promise<EventHandler | undefined> {
    return this.one<EventHandler>(this.q.selectEventHandler, [name], 'handler_json');
  }

  async listEventHandlers(): Promise<EventHandler[]> {
    const handlers = await this.jsonColumn<EventHandler>(this.q.selectEventHandlers, [], 'handler_json');
    return handlers.sort((a, b) => a.name.localeCompare(b.name));
  }

  async deleteEventHandler(name: string): Promise<boolean> {
    if (!(await this.getEventHandler(name))) return false;
    await this.exec(this.q.deleteEventHandler, [name]);
    return true;
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

  async putApplication(app: ApplicationRecord): Promise<void> {
    await this.exec(this.q.upsertApplication, [app.id, JSON.stringify(app)]);
  }

  getApplication(id: string): Promise<ApplicationRecord | undefined> {
    return this.one<ApplicationRecord>(this.q.selectApplication, [id], 'app_json');
  }

  async listApplications(): Promise<ApplicationRecord[]> {
    const apps = await this.jsonColumn<ApplicationRecord>(this.q.selectApplications, [], 'app_json');
    return apps.sort((a, b) => a.id.localeCompare(b.id));
  }

  async deleteApplication(id: string): Promise<boolean> {
    if (!(await this.getApplication(id))) return false;
    await this.exec(this.q.deleteApplication, [id]);
    return true;
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
