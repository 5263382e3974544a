import type Database from 'better-sqlite3';
import type { PayloadLimits } from '../payload-limits';
import type { Reclaimed } from '../../retention/ports';
import { WalCheckpointer, type WalCheckpoint } from './checkpointer';
import { openDatabase, WAL_LIMIT_BYTES } from './database';
import { reclaimPages } from './retention-store';
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
  /** Checkpoints the whole WAL and truncates it, on the checkpointer's thread (busy 1 when it could not). */
  truncateWal(): Promise<WalCheckpoint>;
  /** The retention pass's last step: at most `pages` free pages given back, then the WAL holding them truncated. */
  reclaim(pages: number): Promise<Reclaimed>;
  close(): Promise<void>;
}

/** The embedded profile's stores, sharing one SQLite file under `dir`. */
export function openSqliteStores(dir: string, limits?: PayloadLimits, onError?: (message: string) => void): SqliteStores {
  const db = openDatabase(dir);
  const checkpointer = new WalCheckpointer(db.name, { limitBytes: WAL_LIMIT_BYTES, onError });
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
    truncateWal: () => checkpointer.truncate(),
    async reclaim(pages) {
      const freed = reclaimPages(db, pages);
      // The file only shrinks once the vacuum's commit is checkpointed, and the WAL holds what was given back.
      const wal = await checkpointer.truncate();
      return { pages: freed, walTruncated: wal.busy === 0 && wal.log === 0 };
    },
    async close() {
      await checkpointer.stop();
      if (db.open) db.close();
    },
  };
}
