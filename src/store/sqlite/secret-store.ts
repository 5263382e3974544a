import type Database from 'better-sqlite3';
import type { StoredSecret } from '../../model/secrets';
import type { SecretStore } from '../ports';

const SCHEMA = `CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, data TEXT NOT NULL);`;

type Row = { data: string };

/** Sealed secrets in the embedded SQLite file. */
export class SqliteSecretStore implements SecretStore {
  private readonly s;

  constructor(db: Database.Database) {
    db.exec(SCHEMA);
    this.s = {
      put: db.prepare('INSERT INTO secrets (name, data) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET data = excluded.data'),
      get: db.prepare<[string], Row>('SELECT data FROM secrets WHERE name = ?'),
      list: db.prepare<[], Row>('SELECT data FROM secrets ORDER BY name'),
      count: db.prepare<[number], { n: number }>('SELECT COUNT(*) AS n FROM (SELECT 1 FROM secrets LIMIT ?)'),
      del: db.prepare('DELETE FROM secrets WHERE name = ?'),
    };
  }

  async putSecret(s: StoredSecret): Promise<void> {
    this.s.put.run(s.name, JSON.stringify(s));
  }
  async getSecret(name: string): Promise<StoredSecret | undefined> {
    const r = this.s.get.get(name);
    return r ? (JSON.parse(r.data) as StoredSecret) : undefined;
  }
  async listSecrets(): Promise<StoredSecret[]> {
    return this.s.list.all().map((r) => JSON.parse(r.data) as StoredSecret);
  }
  async countSecrets(atMost: number): Promise<number> {
    return this.s.count.get(atMost)!.n;
  }
  async deleteSecret(name: string): Promise<boolean> {
    return this.s.del.run(name).changes > 0;
  }
}
