import type { Client } from 'cassandra-driver';
import type { StoredSecret } from '../../model/secrets';
import type { SecretStore } from '../ports';
import { JsonRows, type JsonRowsOptions } from './json-rows';

/** Sealed secrets over Cassandra (table from migration 006). Every statement is idempotent. */
export class CassandraSecretStore implements SecretStore {
  private readonly q;
  private readonly rows: JsonRows;

  constructor(client: Client, opts: JsonRowsOptions) {
    this.rows = new JsonRows(client, opts);
    const ks = this.rows.keyspace;
    this.q = {
      upsert: `INSERT INTO ${ks}.secrets (name, secret_json) VALUES (?, ?)`,
      select: `SELECT secret_json FROM ${ks}.secrets WHERE name = ?`,
      selectAll: `SELECT secret_json FROM ${ks}.secrets`,
      names: `SELECT name FROM ${ks}.secrets`,
      remove: `DELETE FROM ${ks}.secrets WHERE name = ?`,
    };
  }

  async putSecret(s: StoredSecret): Promise<void> {
    await this.rows.exec(this.q.upsert, [s.name, JSON.stringify(s)]);
  }

  getSecret(name: string): Promise<StoredSecret | undefined> {
    return this.rows.one(this.q.select, [name], 'secret_json');
  }

  async listSecrets(): Promise<StoredSecret[]> {
    return (await this.rows.all<StoredSecret>(this.q.selectAll, [], 'secret_json')).sort((a, b) => a.name.localeCompare(b.name));
  }

  countSecrets(atMost: number): Promise<number> {
    return this.rows.countUpTo(this.q.names, atMost);
  }

  async deleteSecret(name: string): Promise<boolean> {
    // Read, then delete: an admin operation, no race worth a transaction (as the metadata store does).
    if (!(await this.getSecret(name))) return false;
    await this.rows.exec(this.q.remove, [name]);
    return true;
  }
}
