import pino from 'pino';
import { loadConfig } from '../../src/config';
import { openObjectStore } from '../../src/objects/open-object-store';
import { retentionRules } from '../../src/retention/policy';
import { Purger, type PassOutcome } from '../../src/retention/purger';
import { SqliteSearchIndex } from '../../src/search/sqlite/sqlite-index';
import { openSqliteStores } from '../../src/store/sqlite';
import { SqliteRetentionStore } from '../../src/store/sqlite/retention-store';

/** One purge pass over a stopped embedded server's data directory, as if it ran `aheadMs` from now. */
export async function purgeAhead(dataDir: string, aheadMs: number): Promise<PassOutcome> {
  const stores = openSqliteStores(dataDir);
  const { objects } = openObjectStore(loadConfig({ BATON_DATA_DIR: dataDir }));
  try {
    const index = new SqliteSearchIndex(stores.db);
    const purger = new Purger({
      store: stores.executions,
      removeFromIndex: (id) => index.removeWorkflow(id),
      search: index,
      retention: new SqliteRetentionStore(stores.db),
      objects,
      idempotencyKeys: stores.idempotencyKeys,
      rules: async () => retentionRules(await stores.metadata.listWorkflowDefs(), { days: 0, archive: false }),
      now: () => Date.now() + aheadMs,
      log: pino({ level: 'silent' }),
    });
    return await purger.passOnce(100);
  } finally {
    await objects.close();
    await stores.close();
  }
}
