import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Client, type QueryOptions, types } from 'cassandra-driver';
import { replicationClause } from './config';
import { bookkeepingTables, checksumOf, migrationFiles, migrationStatements, pendingMigrations } from './migrations';
import { assertKeyspaceName } from './statements';

// Applies migrations/cassandra/NNN_name.cql in order and records each in <keyspace>.schema_migrations.
// Several replicas may start together on an empty cluster, each with BATON_CASSANDRA_MIGRATE=true:
// - the keyspace and the migrator's two tables are created by every one of them, with IF NOT EXISTS
//   and fixed table ids (tableIdOf), so simultaneous creations through different coordinators agree;
// - everything else runs under a lease row taken with a lightweight transaction, renewed while the
//   migrator works, so each migration is applied by exactly one replica while the others wait;
// - after every schema change the migrator waits until all live nodes report the same schema version.

export const DEFAULT_MIGRATIONS_DIR = resolve(__dirname, '../../../migrations/cassandra');

export interface MigrateOptions {
  keyspace: string;
  /** See replicationClause: CQL map, replication factor, or dc:rf list. Used only when the keyspace is created, and then required. */
  replication?: string;
  dir?: string;
  /** How long to wait for another migrator's lease, ms (its lease expires 60 s after it stops renewing). */
  lockWaitMs?: number;
  /** How long to wait for the nodes to agree on the schema after a change, ms. */
  schemaAgreementMs?: number;
  log?: (line: string) => void;
}

const LEASE_SECONDS = 60;
const RENEW_MS = 15_000;
// The migrator's bookkeeping is cluster-wide (a replica in another data centre may run it too): QUORUM and SERIAL, not their LOCAL_ forms.
const strong: QueryOptions = { prepare: true, consistency: types.consistencies.quorum, serialConsistency: types.consistencies.serial };

/** Metadata.checkSchemaAgreement is public (documented) in cassandra-driver 4, but missing from its type declarations. */
interface SchemaAgreement {
  checkSchemaAgreement(): Promise<boolean>;
}

/** Waits until every live node reports the same schema version. */
export async function awaitSchemaAgreement(client: Client, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await (client.metadata as unknown as SchemaAgreement).checkSchemaAgreement())) {
    if (Date.now() > deadline) throw new Error(`Cassandra nodes did not agree on the schema within ${timeoutMs} ms`);
    await sleep(200);
  }
}

export function readMigrationFiles(dir: string = DEFAULT_MIGRATIONS_DIR) {
  return migrationFiles(readdirSync(dir).map((fileName) => ({ fileName, text: readFileSync(join(dir, fileName), 'utf8') })));
}

/** Creates the keyspace if needed and applies pending migrations; returns the names applied now (empty when another migrator applied them). */
export async function migrate(client: Client, opts: MigrateOptions): Promise<string[]> {
  const ks = assertKeyspaceName(opts.keyspace);
  const log = opts.log ?? (() => undefined);
  const files = readMigrationFiles(opts.dir);
  const ddl = async (statement: string) => {
    await client.execute(statement);
    await awaitSchemaAgreement(client, opts.schemaAgreementMs);
  };

  await createKeyspace(client, ks, opts.replication, ddl, log);
  for (const statement of bookkeepingTables(ks)) await ddl(statement);

  const lease = await acquireLease(client, ks, opts.lockWaitMs ?? 300_000, log);
  try {
    // The previous holder's last change may still be spreading.
    await awaitSchemaAgreement(client, opts.schemaAgreementMs);
    const rs = await client.execute(`SELECT version, name, checksum FROM ${ks}.schema_migrations`, [], strong);
    const applied = rs.rows.map((r) => ({ version: Number(r.get('version')), name: String(r.get('name')), checksum: String(r.get('checksum')) }));
    const pending = pendingMigrations(files, applied);
    for (const f of pending) {
      log(`applying ${f.name}`);
      for (const statement of migrationStatements(f.text, ks)) {
        lease.check();
        await ddl(statement);
      }
      lease.check();
      await client.execute(
        `INSERT INTO ${ks}.schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)`,
        [f.version, f.name, checksumOf(f.text), new Date()],
        strong,
      );
    }
    return pending.map((f) => f.name);
  } finally {
    await lease.release();
  }
}

async function createKeyspace(client: Client, ks: string, replication: string | undefined, ddl: (s: string) => Promise<void>, log: (l: string) => void) {
  const existing = await client.execute('SELECT replication FROM system_schema.keyspaces WHERE keyspace_name = ?', [ks], { prepare: true });
  if (existing.rowLength > 0) {
    // Never altered here: changing replication needs a repair, an operator's decision.
    log(`keyspace ${ks} exists with replication ${JSON.stringify(existing.first().get('replication'))}`);
    return;
  }
  if (replication === undefined || replication.trim() === '')
    throw new Error(
      `keyspace ${ks} does not exist and CASSANDRA_REPLICATION is not set: say how to replicate it, e.g. datacenter1:3 (NetworkTopologyStrategy), or 1 for a development node`,
    );
  await ddl(`CREATE KEYSPACE IF NOT EXISTS ${ks} WITH replication = ${replicationClause(replication)}`);
}

interface Lease {
  /** Throws when a renewal found the lease taken over (this migrator stalled longer than the lease). */
  check(): void;
  release(): Promise<void>;
}

async function acquireLease(client: Client, ks: string, waitMs: number, log: (l: string) => void): Promise<Lease> {
  const owner = randomUUID();
  const deadline = Date.now() + waitMs;
  let waiting = false;
  for (;;) {
    const rs = await client.execute(
      `INSERT INTO ${ks}.schema_migrations_lock (id, owner) VALUES ('migrate', ?) IF NOT EXISTS USING TTL ${LEASE_SECONDS}`,
      [owner],
      strong,
    );
    if (rs.wasApplied()) break;
    if (Date.now() > deadline) throw new Error(`another migrator holds ${ks}.schema_migrations_lock; gave up waiting after ${waitMs} ms`);
    if (!waiting) log(`waiting for another migrator (${String(rs.first()?.get('owner'))})`);
    waiting = true;
    await sleep(1000);
  }

  let lost: Error | undefined;
  const renew = setInterval(() => {
    client
      .execute(`UPDATE ${ks}.schema_migrations_lock USING TTL ${LEASE_SECONDS} SET owner = ? WHERE id = 'migrate' IF owner = ?`, [owner, owner], strong)
      .then((rs) => {
        if (!rs.wasApplied()) lost = new Error(`lost ${ks}.schema_migrations_lock to ${String(rs.first()?.get('owner'))}`);
      })
      .catch(() => undefined); // a failed renewal is retried at the next tick; the lease outlives several ticks
  }, RENEW_MS);
  renew.unref();
  return {
    check() {
      if (lost) throw lost;
    },
    async release() {
      clearInterval(renew);
      await client.execute(`DELETE FROM ${ks}.schema_migrations_lock WHERE id = 'migrate' IF owner = ?`, [owner], strong);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
