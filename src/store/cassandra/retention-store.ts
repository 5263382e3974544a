import { type Client, types } from 'cassandra-driver';
import { PeriodWalkSchema, type ArchivedExecution, type PeriodWalk, type PurgeItem, type RetentionStore } from '../../retention/ports';
import { JsonRows, type JsonRowsOptions } from './json-rows';

const STATE = 'purge';
/** A period walk is a row of its own in the same table (`name` = this and the index), its state in `items_json`. */
const WALK = 'period:';

/** The purge's journal (one overwritten row) and the archive lookup over Cassandra (tables from migration 008). */
export class CassandraRetentionStore implements RetentionStore {
  private readonly rows: JsonRows;
  private readonly q;

  constructor(client: Client, opts: JsonRowsOptions) {
    this.rows = new JsonRows(client, opts);
    const ks = this.rows.keyspace;
    this.q = {
      begin: `UPDATE ${ks}.retention_state SET pass_id = ?, started_at = ?, items_json = ? WHERE name = ?`,
      state: `SELECT pass_id, items_json FROM ${ks}.retention_state WHERE name = ?`,
      // Cleared with values, not nulls (a null is a tombstone), and only by the pass that wrote it.
      finish: `UPDATE ${ks}.retention_state SET pass_id = '', items_json = '[]' WHERE name = ? IF pass_id = ?`,
      walk: `SELECT items_json FROM ${ks}.retention_state WHERE name = ?`,
      putWalk: `UPDATE ${ks}.retention_state SET pass_id = '', items_json = ? WHERE name = ?`,
      putArchive: `INSERT INTO ${ks}.archived_executions (workflow_id, archive_key, workflow_name, status, end_time, archived_at) VALUES (?, ?, ?, ?, ?, ?)`,
      archived: `SELECT archive_key, workflow_name, status, end_time, archived_at FROM ${ks}.archived_executions WHERE workflow_id = ?`,
    };
  }

  async beginPass(passId: string, items: PurgeItem[], now: number): Promise<void> {
    await this.rows.exec(this.q.begin, [passId, types.Long.fromNumber(now), JSON.stringify(items), STATE]);
  }

  async unfinishedPasses(): Promise<Array<{ passId: string; items: PurgeItem[] }>> {
    const row = (await this.rows.exec(this.q.state, [STATE])).first();
    const passId = row?.get('pass_id') as string | null | undefined;
    if (!passId) return [];
    return [{ passId, items: JSON.parse((row!.get('items_json') as string | null) ?? '[]') as PurgeItem[] }];
  }

  async finishPass(passId: string): Promise<void> {
    // Repeating it is harmless (the condition fails the second time), so it is marked idempotent.
    await this.rows.exec(this.q.finish, [STATE, passId]);
  }

  async periodWalk(index: string): Promise<PeriodWalk | undefined> {
    const walk = await this.rows.one<unknown>(this.q.walk, [WALK + index], 'items_json');
    return walk === undefined ? undefined : PeriodWalkSchema.parse(walk);
  }

  async savePeriodWalk(index: string, walk: PeriodWalk | undefined): Promise<void> {
    // Cleared with an empty value, not a delete (no tombstone).
    await this.rows.exec(this.q.putWalk, [walk ? JSON.stringify(walk) : '', WALK + index]);
  }

  async recordArchive(a: ArchivedExecution): Promise<void> {
    await this.rows.exec(this.q.putArchive, [
      a.workflowId,
      a.key,
      a.workflowName,
      a.status,
      types.Long.fromNumber(a.endTime),
      types.Long.fromNumber(a.archivedAt),
    ]);
  }

  async archived(workflowId: string): Promise<ArchivedExecution | undefined> {
    const r = (await this.rows.exec(this.q.archived, [workflowId])).first();
    if (!r) return undefined;
    return {
      workflowId,
      key: r.get('archive_key') as string,
      workflowName: r.get('workflow_name') as string,
      status: r.get('status') as string,
      endTime: Number(r.get('end_time')),
      archivedAt: Number(r.get('archived_at')),
    };
  }
}
