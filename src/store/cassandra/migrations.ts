import { createHash } from 'node:crypto';
import { assertKeyspaceName } from './statements';

// Pure side of schema migrations: naming, parsing, checksums and which files are still to apply.

export interface MigrationFile {
  version: number;
  name: string;
  text: string;
}

export interface AppliedMigration {
  version: number;
  name: string;
  checksum: string;
}

const FILE_NAME = /^(\d+)_([\w-]+)\.cql$/;

/** Migration files from (file name, text) pairs, ordered by version; other file names are ignored, duplicate versions refused. */
export function migrationFiles(files: Array<{ fileName: string; text: string }>): MigrationFile[] {
  const out: MigrationFile[] = [];
  for (const f of files) {
    const m = FILE_NAME.exec(f.fileName);
    if (!m) continue;
    out.push({ version: Number(m[1]), name: f.fileName, text: f.text });
  }
  out.sort((a, b) => a.version - b.version);
  for (let i = 1; i < out.length; i++)
    if (out[i]!.version === out[i - 1]!.version) throw new Error(`two migrations with version ${out[i]!.version}: ${out[i - 1]!.name}, ${out[i]!.name}`);
  return out;
}

export const checksumOf = (text: string): string => createHash('sha256').update(text).digest('hex');

/**
 * A table id derived from the keyspace and table name (a UUID with version 8, "custom"). Replicas
 * that create the same table at the same moment through different coordinators then make the very
 * same schema change: with random ids (Cassandra's default) the two creations conflict, and the
 * nodes can end up disagreeing about which id the table has.
 */
export function tableIdOf(keyspace: string, table: string): string {
  const h = createHash('sha256')
    .update(`baton:${assertKeyspaceName(keyspace)}.${table}`)
    .digest();
  h[6] = (h[6]! & 0x0f) | 0x80;
  h[8] = (h[8]! & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The migrator's own tables, created before it holds its lease (so possibly by several replicas at once). */
export function bookkeepingTables(keyspace: string): string[] {
  const ks = assertKeyspaceName(keyspace);
  return [
    `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations (version int PRIMARY KEY, name text, checksum text, applied_at timestamp) WITH id = ${tableIdOf(ks, 'schema_migrations')}`,
    `CREATE TABLE IF NOT EXISTS ${ks}.schema_migrations_lock (id text PRIMARY KEY, owner text) WITH id = ${tableIdOf(ks, 'schema_migrations_lock')}`,
  ];
}

/** The CQL statements of a migration, with `{{keyspace}}` substituted, comments dropped, split on `;` outside quotes. */
export function migrationStatements(text: string, keyspace: string): string[] {
  const ks = assertKeyspaceName(keyspace);
  const statements: string[] = [];
  let current = '';
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      current += c;
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      current += c;
    } else if (c === '-' && text[i + 1] === '-') {
      while (i < text.length && text[i] !== '\n') i++;
      current += '\n';
    } else if (c === ';') {
      statements.push(current);
      current = '';
    } else current += c;
  }
  statements.push(current);
  return statements
    .map((s) =>
      s
        .replace(/\{\{keyspace\}\}/g, ks)
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((s) => s.length > 0);
}

/** Files not applied yet, in order; throws when an applied file was edited or is missing (migrations are immutable once applied). */
export function pendingMigrations(files: MigrationFile[], applied: AppliedMigration[]): MigrationFile[] {
  const byVersion = new Map(files.map((f) => [f.version, f]));
  for (const a of applied) {
    const f = byVersion.get(a.version);
    if (!f) throw new Error(`migration ${a.version} (${a.name}) is recorded as applied but its file is missing`);
    if (checksumOf(f.text) !== a.checksum) throw new Error(`migration ${f.name} changed after it was applied (checksum mismatch); add a new migration instead`);
  }
  const done = new Set(applied.map((a) => a.version));
  return files.filter((f) => !done.has(f.version));
}
