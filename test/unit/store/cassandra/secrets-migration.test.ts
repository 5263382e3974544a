import { readMigrationFiles } from '../../../../src/store/cassandra/migrate';
import { migrationStatements } from '../../../../src/store/cassandra/migrations';

describe('migration 006', () => {
  it('adds the secrets table, one row per name', () => {
    const file = readMigrationFiles().find((f) => f.version === 6)!;
    expect(file.name).toBe('006_secrets.cql');
    expect(migrationStatements(file.text, 'baton')).toEqual(['CREATE TABLE IF NOT EXISTS baton.secrets ( name text PRIMARY KEY, secret_json text )']);
  });
});
