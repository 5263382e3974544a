import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PAYLOAD_LIMITS } from '../../src/store/payload-limits';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeExecutionStoreContract } from './execution-store.contract';

describeExecutionStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-exec-store-'));
  const stores = openSqliteStores(dir, DEFAULT_PAYLOAD_LIMITS);
  return {
    store: stores.executions,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
