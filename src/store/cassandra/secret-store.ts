import { type Client, types } from 'cassandra-driver';
import type { StoredSecret } from '../../model/secrets';
import type { SecretStore } from '../ports';
import { countRowsUpTo } from './count-rows';
import { assertKeyspaceName } from './statements';

const PAGE = 500;

/** Sealed secrets over Cassandra (table from migration 006). Every statement is idempotent. */
export class CassandraSecretStore implements SecretStore {
  private readonly q;

  constructor(
    private readonly client: Client,
    opts: { keyspace: string; consistency?: types.consistencies },
    private readonly consistency = opts.consistency ?? types.consistencies.localQuorum,
  ) {
    const ks = assertKeyspaceName(opts.keyspace);
    this.q = {
      upsert: `INSERT INTO ${ks}.secrets (name, secret_json) VALUES (?, ?)`,
      select: `SELECT secret_json FROM ${ks}.secrets WHERE name = ?`,
      selectAll: `SELECT secret_json FROM ${ks}.secrets`,
      names: `SELECT name FROM ${ks}.secrets`,
      remove: `DELETE FROM ${ks}.secrets WHERE name = ?`,
    };
  }

  private exec(query: string, params: unknown[], pageState?: string) {
    return this.client.execute(query, params, { prepare: true, consistency: this.consistency, isIdempotent: true, fetchSize: PAGE, pageState });
  }

  async putSecret(s: StoredSecret): Promise<void> {
    await this.exec(this.q.upsert, [s.name, JSON.stringify(s)]);
  }

  async getSecret(name: string): Promise<StoredSecret | undefined> {
    const json = (await this.exec(this.q.select, [name])).first()?.get('secret_json') as string | null | undefined;
    return json ? (JSON.parse(json) as StoredSecret) : undefined;
  }

  async listSecrets(): Promise<StoredSecret[]> {
    const out: StoredSecret[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.exec(this.q.selectAll, [], pageState);
      for (const r of rs.rows) out.push(JSON.parse(r.get('secret_json') as string) as StoredSecret);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out.sort((a, b) => a.name.localeCompare(b.name));
  }

  countSecrets(atMost: number): Promise<number> {
    return countRowsUpTo(this.client, this.q.names, { prepare: true, consistency: this.consistency, isIdempotent: true }, atMost);
  }

  async deleteSecret(name: string): Promise<boolean> {
    // Read, then delete: an admin operation, no race worth a transaction (as the metadata store does).
    if (!(await this.getSecret(name))) return false;
    await this.exec(this.q.remove, [name]);
    return true;
  }
}
