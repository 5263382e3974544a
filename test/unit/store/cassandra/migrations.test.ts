import { readMigrationFiles } from '../../../../src/store/cassandra/migrate';
import { bookkeepingTables, checksumOf, migrationFiles, migrationStatements, pendingMigrations, tableIdOf } from '../../../../src/store/cassandra/migrations';
import { cassandraConfigFromEnv, consistencyOf, replicationClause } from '../../../../src/store/cassandra/config';
import { types } from 'cassandra-driver';

describe('migration files', () => {
  it('orders NNN_name.cql files by version and ignores other files', () => {
    const files = migrationFiles([
      { fileName: '010_more.cql', text: 'b' },
      { fileName: 'README.md', text: '' },
      { fileName: '002_next.cql', text: 'a' },
    ]);
    expect(files.map((f) => [f.version, f.name])).toEqual([
      [2, '002_next.cql'],
      [10, '010_more.cql'],
    ]);
  });

  it('refuses two files with the same version', () => {
    expect(() =>
      migrationFiles([
        { fileName: '001_a.cql', text: '' },
        { fileName: '1_b.cql', text: '' },
      ]),
    ).toThrow(/two migrations/);
  });

  it('splits statements on semicolons outside quotes, drops comments, substitutes the keyspace', () => {
    const text = "-- header; not a statement\nCREATE TABLE {{keyspace}}.t (a text); -- trailing\nINSERT INTO {{keyspace}}.t (a) VALUES ('x;y');\n\n";
    expect(migrationStatements(text, 'ks')).toEqual(['CREATE TABLE ks.t (a text)', "INSERT INTO ks.t (a) VALUES ('x;y')"]);
  });

  it('applies only files not recorded, and refuses edited or missing applied files', () => {
    const files = migrationFiles([
      { fileName: '001_a.cql', text: 'A' },
      { fileName: '002_b.cql', text: 'B' },
    ]);
    expect(pendingMigrations(files, []).map((f) => f.name)).toEqual(['001_a.cql', '002_b.cql']);
    expect(pendingMigrations(files, [{ version: 1, name: '001_a.cql', checksum: checksumOf('A') }]).map((f) => f.name)).toEqual(['002_b.cql']);
    expect(() => pendingMigrations(files, [{ version: 1, name: '001_a.cql', checksum: checksumOf('changed') }])).toThrow(/changed after it was applied/);
    expect(() => pendingMigrations(files, [{ version: 7, name: '007_x.cql', checksum: 'x' }])).toThrow(/file is missing/);
  });

  it('reads the repository migrations: 001_init creates every table the statements use, idempotently', () => {
    const files = readMigrationFiles();
    expect(files[0]?.name).toBe('001_init.cql');
    const statements = migrationStatements(files[0]!.text, 'baton');
    const tables = statements.map((s) => /^CREATE TABLE IF NOT EXISTS baton\.(\w+)/.exec(s)?.[1]);
    expect(tables).toEqual([
      'executions',
      'task_lookup',
      'running_by_name',
      'needs_recovery',
      'index_buckets',
      'workflows_by_correlation',
      'task_logs',
      'workflow_defs',
      'task_defs',
      'event_handlers',
      'event_executions',
      'event_execution_handlers',
    ]);
    expect(statements.find((s) => s.includes('baton.executions'))).toMatch(/rev bigint static/);
    expect(statements.find((s) => s.includes('baton.workflow_defs'))).toMatch(/CLUSTERING ORDER BY \(version DESC\)/);
  });

  it('002 replaces the running and recovery tables by the generation tables', () => {
    const file = readMigrationFiles().find((f) => f.version === 2)!;
    expect(file.name).toBe('002_open_generations.cql');
    const statements = migrationStatements(file.text, 'baton');
    expect(statements.map((s) => /^(CREATE TABLE IF NOT EXISTS|DROP TABLE IF EXISTS) baton\.(\w+)/.exec(s)?.slice(1).join(' '))).toEqual([
      'CREATE TABLE IF NOT EXISTS open_entries',
      'CREATE TABLE IF NOT EXISTS open_gens',
      'CREATE TABLE IF NOT EXISTS open_pages',
      'DROP TABLE IF EXISTS running_by_name',
      'DROP TABLE IF EXISTS needs_recovery',
    ]);
    expect(statements[2]).toMatch(/floor bigint static/);
  });

  it('003 adds applications, access keys, their listing and settings', () => {
    const file = readMigrationFiles().find((f) => f.version === 3)!;
    expect(file.name).toBe('003_applications.cql');
    const statements = migrationStatements(file.text, 'baton');
    expect(statements.map((s) => /^CREATE TABLE IF NOT EXISTS baton\.(\w+)/.exec(s)?.[1])).toEqual([
      'applications',
      'access_keys',
      'application_keys',
      'settings',
    ]);
    expect(statements[2]).toMatch(/PRIMARY KEY \(\(application_id\), key_id\)/);
  });

  it('005 adds idempotency keys (one partition per workflow name and key) and JSON schemas', () => {
    const file = readMigrationFiles().find((f) => f.version === 5)!;
    expect(file.name).toBe('005_idempotency_and_schemas.cql');
    const statements = migrationStatements(file.text, 'baton');
    expect(statements.map((s) => /^CREATE TABLE IF NOT EXISTS baton\.(\w+)/.exec(s)?.[1])).toEqual(['idempotency_keys', 'json_schemas']);
    expect(statements[0]).toMatch(/PRIMARY KEY \(\(workflow_name, idem_key\)\)/);
  });
});

describe("the migrator's own tables", () => {
  it('get a table id fixed by keyspace and name, so simultaneous creations are one and the same change', () => {
    expect(tableIdOf('baton', 'schema_migrations')).toBe(tableIdOf('baton', 'schema_migrations'));
    expect(tableIdOf('baton', 'schema_migrations')).not.toBe(tableIdOf('other', 'schema_migrations'));
    expect(tableIdOf('baton', 'schema_migrations')).not.toBe(tableIdOf('baton', 'schema_migrations_lock'));
    expect(tableIdOf('baton', 'x')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const [migrations, lock] = bookkeepingTables('baton');
    expect(migrations).toBe(
      `CREATE TABLE IF NOT EXISTS baton.schema_migrations (version int PRIMARY KEY, name text, checksum text, applied_at timestamp) WITH id = ${tableIdOf('baton', 'schema_migrations')}`,
    );
    expect(lock).toMatch(/^CREATE TABLE IF NOT EXISTS baton\.schema_migrations_lock \(id text PRIMARY KEY, owner text\) WITH id = /);
  });
});

describe('Cassandra settings', () => {
  it('maps consistency names to driver codes', () => {
    expect(consistencyOf('LOCAL_QUORUM')).toBe(types.consistencies.localQuorum);
    expect(consistencyOf('each_quorum')).toBe(types.consistencies.eachQuorum);
    expect(consistencyOf('ONE')).toBe(types.consistencies.one);
    expect(() => consistencyOf('MOSTLY')).toThrow(/unknown Cassandra consistency/);
  });

  it('builds the keyspace replication map from the shorthand forms and CQL maps', () => {
    expect(replicationClause('1')).toBe("{'class': 'SimpleStrategy', 'replication_factor': 1}");
    expect(() => replicationClause(' ')).toThrow(/CASSANDRA_REPLICATION is empty/);
    expect(replicationClause('3')).toBe("{'class': 'SimpleStrategy', 'replication_factor': 3}");
    expect(replicationClause('dc1:3, dc2:2')).toBe("{'class': 'NetworkTopologyStrategy', 'dc1': 3, 'dc2': 2}");
    expect(replicationClause("{'class':'NetworkTopologyStrategy','dc1':3}")).toBe("{'class':'NetworkTopologyStrategy','dc1':3}");
    expect(replicationClause('{"class":"SimpleStrategy","replication_factor":1}')).toBe("{'class':'SimpleStrategy','replication_factor':1}");
    expect(() => replicationClause("{'dc1':3}")).toThrow(/invalid/);
    expect(() => replicationClause("{'class':'X'}; DROP KEYSPACE y")).toThrow(/invalid/);
    expect(() => replicationClause('lots')).toThrow(/invalid/);
  });

  it('reads the environment', () => {
    expect(cassandraConfigFromEnv({})).toBeUndefined();
    expect(
      cassandraConfigFromEnv({
        CASSANDRA_CONTACT_POINTS: 'a:9042, b',
        CASSANDRA_LOCAL_DC: 'dc1',
        BATON_CASSANDRA_MIGRATE: 'true',
        CASSANDRA_REPLICATION: 'dc1:3',
      }),
    ).toEqual({
      contactPoints: ['a:9042', 'b'],
      localDataCenter: 'dc1',
      keyspace: 'baton',
      username: undefined,
      password: undefined,
      consistency: undefined,
      replication: 'dc1:3',
      migrate: true,
    });
  });
});
