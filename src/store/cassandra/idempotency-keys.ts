import { type Client, types } from 'cassandra-driver';
import type { IdempotencyClaim, IdempotencyKeyStore } from '../ports';
import { assertKeyspaceName } from './statements';

/** Idempotency keys over Cassandra: every step is a lightweight transaction on the key's partition (Paxos at LOCAL_SERIAL). */
export class CassandraIdempotencyKeys implements IdempotencyKeyStore {
  private readonly q;

  constructor(
    private readonly client: Client,
    keyspace: string,
    private readonly consistency: types.consistencies = types.consistencies.localQuorum,
  ) {
    const ks = assertKeyspaceName(keyspace);
    this.q = {
      insert: `INSERT INTO ${ks}.idempotency_keys (workflow_name, idem_key, workflow_id, claimed_at) VALUES (?, ?, ?, ?) IF NOT EXISTS`,
      reassign: `UPDATE ${ks}.idempotency_keys SET workflow_id = ?, claimed_at = ? WHERE workflow_name = ? AND idem_key = ? IF workflow_id = ?`,
      release: `DELETE FROM ${ks}.idempotency_keys WHERE workflow_name = ? AND idem_key = ? IF workflow_id = ?`,
    };
  }

  // A conditional write that times out may have applied: it is not marked idempotent, so the driver does not retry it blindly.
  private lwt(query: string, params: unknown[]) {
    return this.client.execute(query, params, { prepare: true, consistency: this.consistency, serialConsistency: types.consistencies.localSerial });
  }

  async claim(name: string, key: string, workflowId: string, now: number): Promise<IdempotencyClaim> {
    const row = (await this.lwt(this.q.insert, [name, key, workflowId, types.Long.fromNumber(now)])).first();
    if (row.get('[applied]') === true) return { workflowId, claimedAt: now };
    return { workflowId: row.get('workflow_id') as string, claimedAt: Number(row.get('claimed_at')) };
  }

  async reassign(name: string, key: string, from: string, to: string, now: number): Promise<boolean> {
    return (await this.lwt(this.q.reassign, [to, types.Long.fromNumber(now), name, key, from])).first().get('[applied]') === true;
  }

  async release(name: string, key: string, workflowId: string): Promise<void> {
    await this.lwt(this.q.release, [name, key, workflowId]);
  }
}
