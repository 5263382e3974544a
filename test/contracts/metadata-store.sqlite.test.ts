import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeMetadataStoreContract } from './metadata-store.contract';

describeMetadataStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-meta-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: stores.metadata,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
