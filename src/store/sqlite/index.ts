import type Database from 'better-sqlite3';
import type { PayloadLimits } from '../payload-limits';
import { WalCheckpointer } from './checkpointer';
import { openDatabase } from './database';
import { SqliteExecutionStore } from './execution-store';
import { SqliteIdempotencyKeys } from './idempotency-keys';
import { SqliteSchemaStore } from './schema-store';
import { SqliteMetadataStore } from './metadata-store';
import { SqliteScheduleStore } from './schedule-store';
import { SqliteSecretStore } from './secret-store';
import { SqliteAuthorizationStore } from './authorization-store';
import { SqliteBatchStore } from './batch-store';

export {
  openDatabase,
  SqliteExecutionStore,
  SqliteMetadataStore,
  SqliteScheduleStore,
  SqliteIdempotencyKeys,
  SqliteSchemaStore,
  SqliteSecretStore,
  SqliteAuthorizationStore,
  SqliteBatchStore,
};

export interface SqliteStores {
  db: Database.Database;
  executions: SqliteExecutionStore;
  metadata: SqliteMetadataStore;
  schedules: SqliteScheduleStore;
  idempotencyKeys: SqliteIdempotencyKeys;
  schemas: SqliteSchemaStore;
  secrets: SqliteSecretStore;
  authorization: SqliteAuthorizationStore;
  batches: SqliteBatchStore;
  close(): Promise<void>;
}

/** The embedded profile's stores, sharing one SQLite file under `dir`. */
export function openSqliteStores(dir: string, limits?: PayloadLimits, onError?: (message: string) => void): SqliteStores {
  const db = openDatabase(dir);
  const checkpointer = new WalCheckpointer(db.name, 500, onError);
  return {
    db,
    executions: new SqliteExecutionStore(db, limits),
    metadata: new SqliteMetadataStore(db),
    schedules: new SqliteScheduleStore(db),
    idempotencyKeys: new SqliteIdempotencyKeys(db),
    schemas: new SqliteSchemaStore(db),
    secrets: new SqliteSecretStore(db),
    authorization: new SqliteAuthorizationStore(db),
    batches: new SqliteBatchStore(db),
    async close() {
      await checkpointer.stop();
      if (db.open) db.close();
    },
  };
}
