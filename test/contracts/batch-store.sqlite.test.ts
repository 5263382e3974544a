import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeBatchStoreContract } from './batch-store.contract';

describeBatchStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-batch-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: stores.batches,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
