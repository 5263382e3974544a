import { concurrent, type Client, type QueryOptions, types } from 'cassandra-driver';
import { BatchRecordSchema, type BatchFailure, type BatchRecord } from '../../model/batch';
import type { BatchStore } from '../batch-store';
import { assertKeyspaceName } from './statements';

const dataOf = (b: BatchRecord): string => JSON.stringify({ ...b, cancelRequested: undefined });

/** Batches over Cassandra (migration 009). The cancel flag is its own column, so the runner's progress writes never clear it. */
export class CassandraBatchStore implements BatchStore {
  private readonly q;

  constructor(
    private readonly client: Client,
    keyspace: string,
    private readonly consistency: types.consistencies = types.consistencies.localQuorum,
  ) {
    const ks = assertKeyspaceName(keyspace);
    this.q = {
      item: `INSERT INTO ${ks}.batch_items (batch_id, seq, workflow_id) VALUES (?, ?, ?)`,
      save: `UPDATE ${ks}.batches SET created_at = ?, batch_json = ? WHERE id = ?`,
      get: `SELECT batch_json, cancel_requested FROM ${ks}.batches WHERE id = ?`,
      list: `SELECT batch_json, cancel_requested FROM ${ks}.batches`,
      cancel: `UPDATE ${ks}.batches SET cancel_requested = true WHERE id = ?`,
      at: `SELECT workflow_id FROM ${ks}.batch_items WHERE batch_id = ? AND seq = ?`,
      fail: `INSERT INTO ${ks}.batch_failures (batch_id, seq, workflow_id, reason) VALUES (?, ?, ?, ?)`,
      failures: `SELECT workflow_id, reason FROM ${ks}.batch_failures WHERE batch_id = ?`,
      del: `DELETE FROM ${ks}.batches WHERE id = ?`,
      delItems: `DELETE FROM ${ks}.batch_items WHERE batch_id = ?`,
      delFailures: `DELETE FROM ${ks}.batch_failures WHERE batch_id = ?`,
    };
  }

  private opts(): QueryOptions {
    return { prepare: true, consistency: this.consistency, isIdempotent: true };
  }

  private recordOf(row: types.Row | undefined): BatchRecord | undefined {
    const json = row?.get('batch_json') as string | null | undefined;
    // A cancel racing a removal can leave a row with the flag alone: no batch.
    if (!json) return undefined;
    return BatchRecordSchema.parse({ ...JSON.parse(json), cancelRequested: row!.get('cancel_requested') === true });
  }

  /** The snapshot first, the batch row last: a batch is never seen without every id it matched. */
  async create(batch: BatchRecord, workflowIds: readonly string[]): Promise<void> {
    await concurrent.executeConcurrent(
      this.client,
      this.q.item,
      workflowIds.map((w, seq) => [batch.id, seq, w]),
      { concurrencyLevel: 32 },
    );
    await this.saveProgress(batch);
  }
  async get(id: string): Promise<BatchRecord | undefined> {
    return this.recordOf((await this.client.execute(this.q.get, [id], this.opts())).first());
  }
  async list(): Promise<BatchRecord[]> {
    const out: BatchRecord[] = [];
    for await (const row of await this.client.execute(this.q.list, [], this.opts())) {
      const b = this.recordOf(row);
      if (b) out.push(b);
    }
    return out.sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : b.id > a.id ? 1 : 0));
  }
  async saveProgress(batch: BatchRecord): Promise<void> {
    await this.client.execute(this.q.save, [types.Long.fromNumber(batch.createdAt), dataOf(batch), batch.id], this.opts());
  }
  async requestCancel(id: string): Promise<void> {
    await this.client.execute(this.q.cancel, [id], this.opts());
  }
  async workflowIdAt(id: string, seq: number): Promise<string | undefined> {
    return (await this.client.execute(this.q.at, [id, seq], this.opts())).first()?.get('workflow_id') as string | undefined;
  }
  async addFailure(id: string, seq: number, f: BatchFailure): Promise<void> {
    await this.client.execute(this.q.fail, [id, seq, f.workflowId, f.reason], this.opts());
  }
  async failures(id: string): Promise<BatchFailure[]> {
    const out: BatchFailure[] = [];
    for await (const row of await this.client.execute(this.q.failures, [id], this.opts())) {
      const r = row as types.Row;
      out.push({ workflowId: r.get('workflow_id') as string, reason: r.get('reason') as string });
    }
    return out;
  }
  async remove(id: string): Promise<void> {
    await this.client.execute(this.q.del, [id], this.opts());
    await this.client.execute(this.q.delItems, [id], this.opts());
    await this.client.execute(this.q.delFailures, [id], this.opts());
  }
}
