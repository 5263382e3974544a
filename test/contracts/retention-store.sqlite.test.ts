import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { SqliteRetentionStore } from '../../src/store/sqlite/retention-store';
import { describeRetentionStoreContract } from './retention-store.contract';

describeRetentionStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-retention-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: new SqliteRetentionStore(stores.db),
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
