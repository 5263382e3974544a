import type Database from 'better-sqlite3';
import type { SchemaDef } from '../../model/schemas';
import type { SchemaStore } from '../ports';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS json_schemas (
  name TEXT NOT NULL,
  version INTEGER NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (name, version)
);
`;

/** JSON schemas in the SQLite file, one row per version. */
export class SqliteSchemaStore implements SchemaStore {
  private readonly stmt;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.stmt = {
      upsert: db.prepare('INSERT INTO json_schemas (name, version, data) VALUES (?, ?, ?) ON CONFLICT(name, version) DO UPDATE SET data = excluded.data'),
      select: db.prepare<[string, number], { data: string }>('SELECT data FROM json_schemas WHERE name = ? AND version = ?'),
      latest: db.prepare<[string], { data: string }>('SELECT data FROM json_schemas WHERE name = ? ORDER BY version DESC LIMIT 1'),
      all: db.prepare<[], { data: string }>('SELECT data FROM json_schemas ORDER BY name, version'),
      count: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM (SELECT 1 FROM json_schemas LIMIT ?)'),
      deleteOne: db.prepare('DELETE FROM json_schemas WHERE name = ? AND version = ?'),
      deleteAll: db.prepare('DELETE FROM json_schemas WHERE name = ?'),
    };
  }

  async put(schema: SchemaDef): Promise<void> {
    this.stmt.upsert.run(schema.name, schema.version, JSON.stringify(schema));
  }

  async get(name: string, version?: number): Promise<SchemaDef | undefined> {
    const row = version === undefined ? this.stmt.latest.get(name) : this.stmt.select.get(name, version);
    return row ? (JSON.parse(row.data) as SchemaDef) : undefined;
  }

  async list(): Promise<SchemaDef[]> {
    return this.stmt.all.all().map((r) => JSON.parse(r.data) as SchemaDef);
  }

  async count(atMost: number): Promise<number> {
    return this.stmt.count.get(atMost)!.n;
  }

  async delete(name: string, version?: number): Promise<boolean> {
    return (version === undefined ? this.stmt.deleteAll.run(name) : this.stmt.deleteOne.run(name, version)).changes > 0;
  }
}
