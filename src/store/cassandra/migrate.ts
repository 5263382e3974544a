import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Client, types } from 'cassandra-driver';
import { replicationClause } from './config';
import { checksumOf, migrationFiles, migrationStatements, pendingMigrations } from './migrations';
import { assertKeyspaceName } from './statements';

// Applies migrations/cassandra/NNN_name.cql in order and records each in <keyspace>.schema_migrations.
// A lease row taken with a lightweight transaction keeps two replicas starting together from
// running DDL at the same time (concurrent schema changes can disagree across nodes).

export const DEFAULT_MIGRATIONS_DIR = resolve(__dirname, '../../../migrations/cassandra');

export interface MigrateOptions {
  keyspace: string;
  /** See replicationClause: CQL map, replication factor, or dc:rf list. Used only when the keyspace is created. */
  replication?: string;
  dir?: string;
  /** How long to wait for another migrator's lease, ms. */
  lockWaitMs?: number;
  log?: (line: string) => void;
}

const LEASE_SECONDS = 600;
const serial = { prepare: true, consistency: types.consistencies.localQuorum, serialConsistency: types.consistencies.localSerial };

export function readMigrationFiles(dir: string = DEFAULT_MIGRATIONS_DIR) {
  return migrationFiles(readdirSync(dir).map((fileName) => ({ fileName, text: readFileSync(join(dir, fileName), 'utf8') })));
}

/** Creates the keyspace if needed and applies pending migrations; returns the names applied now. */
export async function migrate(client: Client, opts: MigrateOptions): Promise<string[]> {
  const ks = assertKeyspaceName(opts.keyspace);
  const log = opts.log ?? (() => undefined);
  const files = readMigrationFiles(opts.dir);
  await client.execute(`CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ${replicationClause(opts.replication)}`);
  await client.execute(
    `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations (version int PRIMARY KEY, name text, checksum text, applied_at timestamp)`,
  );
  await client.execute(`CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations_lock (id text PRIMARY KEY, owner text)`);

  const owner = randomUUID();
  const deadline = Date.now() + (opts.lockWaitMs ?? 120_000);
  for (;;) {
    const rs = await client.execute(
      `INSERT INTO ${ks}.schema_migrations_lock (id, owner) VALUES ('migrate', ?) IF NOT EXISTS USING TTL ${LEASE_SECONDS}`,
      [owner],
      serial,
    );
    if (rs.wasApplied()) break;
    if (Date.now() > deadline) throw new Error(`another migrator holds ${ks}.schema_migrations_lock; gave up waiting`);
    log(`waiting for another migrator (${String(rs.first()?.get('owner'))})`);
    await new Promise((r) => setTimeout(r, 2000));
  }

  try {
    const rs = await client.execute(`SELECT version, name, checksum FROM ${ks}.schema_migrations`, [], {
      prepare: true,
      consistency: types.consistencies.localQuorum,
    });
    const applied = rs.rows.map((r) => ({ version: Number(r.get('version')), name: String(r.get('name')), checksum: String(r.get('checksum')) }));
    const pending = pendingMigrations(files, applied);
    for (const f of pending) {
      log(`applying ${f.name}`);
      for (const statement of migrationStatements(f.text, ks)) await client.execute(statement);
      await client.execute(
        `INSERT INTO ${ks}.schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
        [f.version, f.name, checksumOf(f.text), new Date()],
        { prepare: true, consistency: types.consistencies.localQuorum },
      );
    }
    return pending.map((f) => f.name);
  } finally {
    await client.execute(`DELETE FROM ${ks}.schema_migrations_lock WHERE id = 'migrate' IF owner = ?`, [owner], serial);
  }
}
