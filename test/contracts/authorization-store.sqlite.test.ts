import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeAuthorizationStoreContract } from './authorization-store.contract';

describeAuthorizationStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-authz-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: stores.authorization,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
