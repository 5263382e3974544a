import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStores } from '../../src/store/sqlite';
import { describeScheduleStoreContract } from './schedule-store.contract';

describeScheduleStoreContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'baton-schedule-store-'));
  const stores = openSqliteStores(dir);
  return {
    store: stores.schedules,
    cleanup: async () => {
      await stores.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
