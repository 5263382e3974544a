import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeSecretStoreContract } from './secret-store.contract';

describeSecretStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-secret-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: stores.secrets,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
