import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeIdempotencyKeysContract } from './idempotency-keys.contract';
import { describeSchemaStoreContract } from './schema-store.contract';

// Idempotency keys and JSON schemas share the SQLite file with the other stores.
const open = () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-keys-store-'));
  const stores = openSqliteStores(dir);
  const cleanup = async () => {
    await stores.close();
    rmSync(dir, { recursive: true, force: true });
  };
  return { stores, cleanup };
};

describeIdempotencyKeysContract('sqlite', async () => {
  const { stores, cleanup } = open();
  return { store: stores.idempotencyKeys, cleanup };
});

describeSchemaStoreContract('sqlite', async () => {
  const { stores, cleanup } = open();
  return { store: stores.schemas, cleanup };
});
