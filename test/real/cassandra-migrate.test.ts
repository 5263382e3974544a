import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from 'cassandra-driver';
import { createCassandraClient } from '../../src/store/cassandra';
import { awaitSchemaAgreement, migrate, readMigrationFiles } from '../../src/store/cassandra/migrate';
import { tableIdOf } from '../../src/store/cassandra/migrations';
import { describeCassandra, testConfig } from '../contracts/execution-store.cassandra-server';

// First install with several replicas: each runs the migrator (BATON_CASSANDRA_MIGRATE=true) against
// an empty keyspace at the same moment. Each migrator here is its own Node process with its own
// driver connection, running src/store/cassandra/migrate-cli.ts (transpiled on load).

const ROOT = resolve(__dirname, '../..');
// Loads .ts files through TypeScript's transpiler, so the child needs no build.
const CHILD = `
const ts = require('typescript');
const fs = require('fs');
require.extensions['.ts'] = (m, file) =>
  m._compile(ts.transpileModule(fs.readFileSync(file, 'utf8'), { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } }).outputText, file);
require(${JSON.stringify(resolve(ROOT, 'src/store/cassandra/migrate-cli.ts'))});
`;

interface Outcome {
  code: number | null;
  out: string;
}

function runMigrator(env: NodeJS.ProcessEnv): Promise<Outcome> {
  const child = spawn(process.execPath, ['-e', CHILD], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise<Outcome>((res) => child.on('exit', (code) => res({ code, out })));
}

describeCassandra('cassandra migrations on first install', () => {
  let admin: Client;
  const emptyDir = mkdtempSync(join(tmpdir(), 'baton-no-migrations-'));
  const keyspaces: string[] = [];

  beforeAll(async () => {
    admin = createCassandraClient(testConfig());
    await admin.connect();
  });
  afterAll(async () => {
    for (const ks of keyspaces) await admin.execute(`DROP KEYSPACE IF EXISTS ${ks}`);
    await admin.shutdown();
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('three migrators started together on an empty keyspace all succeed, and each migration is applied once', async () => {
    const cfg = testConfig();
    keyspaces.push(cfg.keyspace);
    const env = {
      ...process.env,
      CASSANDRA_CONTACT_POINTS: cfg.contactPoints.join(','),
      CASSANDRA_LOCAL_DC: cfg.localDataCenter,
      CASSANDRA_KEYSPACE: cfg.keyspace,
      CASSANDRA_REPLICATION: cfg.replication,
    };
    const outcomes = await Promise.all([runMigrator(env), runMigrator(env), runMigrator(env)]);

    for (const o of outcomes) expect(o).toMatchObject({ code: 0 });
    const files = readMigrationFiles().map((f) => f.name);
    // Exactly one process applied the files; the others found the keyspace up to date.
    const appliers = outcomes.filter((o) => o.out.includes(`applied ${files.join(', ')}`));
    expect(appliers).toHaveLength(1);
    expect(outcomes.filter((o) => o.out.includes(`keyspace ${cfg.keyspace} is up to date`))).toHaveLength(outcomes.length - 1);

    const rs = await admin.execute(`SELECT version, name FROM ${cfg.keyspace}.schema_migrations`);
    expect(rs.rows.map((r) => r.get('name') as string).sort()).toEqual(files);
    // Every table of the schema exists, and the node agrees on one schema version.
    const tables = await admin.execute('SELECT table_name FROM system_schema.tables WHERE keyspace_name = ?', [cfg.keyspace], { prepare: true });
    const names = tables.rows.map((r) => r.get('table_name') as string);
    expect(names).not.toContain('running_by_name');
    expect(names).toEqual(expect.arrayContaining(['executions', 'open_entries', 'open_gens', 'open_pages', 'task_defs']));
    await expect(awaitSchemaAgreement(admin, 1000)).resolves.toBeUndefined();
    // The tables every migrator creates before it holds the lease carry the same fixed id, whichever coordinator created them.
    for (const table of ['schema_migrations', 'schema_migrations_lock']) {
      const row = await admin.execute('SELECT id FROM system_schema.tables WHERE keyspace_name = ? AND table_name = ?', [cfg.keyspace, table], {
        prepare: true,
      });
      expect(String(row.first().get('id'))).toBe(tableIdOf(cfg.keyspace, table));
    }
  });

  it('a migrator that died holding the lease holds the others up only until the lease expires', async () => {
    const cfg = testConfig();
    keyspaces.push(cfg.keyspace);
    const lines: string[] = [];
    // A first run creates the bookkeeping tables; then a dead migrator's lease, with 3 s left.
    await migrate(admin, { keyspace: cfg.keyspace, replication: cfg.replication, dir: emptyDir });
    await admin.execute(`INSERT INTO ${cfg.keyspace}.schema_migrations_lock (id, owner) VALUES ('migrate', 'dead') USING TTL 3`);
    const started = Date.now();
    expect(await migrate(admin, { keyspace: cfg.keyspace, replication: cfg.replication, log: (l) => lines.push(l) })).toEqual(
      readMigrationFiles().map((f) => f.name),
    );
    expect(lines).toContain('waiting for another migrator (dead)');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('refuses to create the keyspace without an explicit replication', async () => {
    const cfg = testConfig();
    await expect(migrate(admin, { keyspace: cfg.keyspace })).rejects.toThrow(/CASSANDRA_REPLICATION is not set/);
    const rs = await admin.execute('SELECT keyspace_name FROM system_schema.keyspaces WHERE keyspace_name = ?', [cfg.keyspace], { prepare: true });
    expect(rs.rowLength).toBe(0);
  });
});
