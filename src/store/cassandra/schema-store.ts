import { type Client, type QueryOptions, types } from 'cassandra-driver';
import type { SchemaDef } from '../../model/schemas';
import type { SchemaStore } from '../ports';
import { countRowsUpTo } from './count-rows';
import { assertKeyspaceName } from './statements';

const PAGE = 500;

/** JSON schemas over Cassandra: a partition per name, versions newest first. Admin writes: read-then-delete reports existence. */
export class CassandraSchemaStore implements SchemaStore {
  private readonly q;

  constructor(
    private readonly client: Client,
    keyspace: string,
    private readonly consistency: types.consistencies = types.consistencies.localQuorum,
  ) {
    const ks = assertKeyspaceName(keyspace);
    this.q = {
      upsert: `INSERT INTO ${ks}.json_schemas (name, version, schema_json) VALUES (?, ?, ?)`,
      select: `SELECT schema_json FROM ${ks}.json_schemas WHERE name = ? AND version = ?`,
      latest: `SELECT schema_json FROM ${ks}.json_schemas WHERE name = ? LIMIT 1`,
      versions: `SELECT version FROM ${ks}.json_schemas WHERE name = ?`,
      all: `SELECT schema_json FROM ${ks}.json_schemas`,
      keys: `SELECT name, version FROM ${ks}.json_schemas`,
      deleteOne: `DELETE FROM ${ks}.json_schemas WHERE name = ? AND version = ?`,
      deleteAll: `DELETE FROM ${ks}.json_schemas WHERE name = ?`,
    };
  }

  private run(query: string, params: unknown[], extra: QueryOptions = {}) {
    return this.client.execute(query, params, { prepare: true, consistency: this.consistency, isIdempotent: true, ...extra });
  }

  async put(schema: SchemaDef): Promise<void> {
    await this.run(this.q.upsert, [schema.name, schema.version, JSON.stringify(schema)]);
  }

  async get(name: string, version?: number): Promise<SchemaDef | undefined> {
    const row = (await (version === undefined ? this.run(this.q.latest, [name]) : this.run(this.q.select, [name, version]))).first();
    return row ? (JSON.parse(row.get('schema_json') as string) as SchemaDef) : undefined;
  }

  async list(): Promise<SchemaDef[]> {
    const out: SchemaDef[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.run(this.q.all, [], { fetchSize: PAGE, pageState });
      for (const r of rs.rows) out.push(JSON.parse(r.get('schema_json') as string) as SchemaDef);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out.sort((a, b) => a.name.localeCompare(b.name) || a.version - b.version);
  }

  count(atMost: number): Promise<number> {
    return countRowsUpTo(this.client, this.q.keys, { prepare: true, consistency: this.consistency, isIdempotent: true }, atMost);
  }

  async delete(name: string, version?: number): Promise<boolean> {
    if (version === undefined) {
      const had = (await this.run(this.q.versions, [name])).rowLength > 0;
      if (had) await this.run(this.q.deleteAll, [name]);
      return had;
    }
    const had = (await this.run(this.q.select, [name, version])).rowLength > 0;
    if (had) await this.run(this.q.deleteOne, [name, version]);
    return had;
  }
}
