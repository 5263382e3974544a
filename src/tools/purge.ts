import pino, { type Logger } from 'pino';
import { openIndex, openStores } from '../composition/distributed';
import { ConfigError, loadConfig, type Config } from '../config';
import { openObjectStore } from '../objects/open-object-store';
import { retentionRules } from '../retention/policy';
import { Purger, type PassOutcome } from '../retention/purger';
import { reclaimPages } from '../store/sqlite/retention-store';

// `npm run purge`: runs retention passes until nothing is due, with the server's environment variables
// (BATON_RETENTION_*, BATON_DATA_DIR, ...). For a first purge of a large backlog while the server is stopped;
// the server runs the same passes itself, paced, every BATON_RETENTION_INTERVAL_MS.

export async function runPurge(cfg: Config, log: Logger): Promise<PassOutcome> {
  const stores = await openStores(cfg);
  try {
    if (!stores.retention) throw new Error(`no purge journal for BATON_STORE=${cfg.BATON_STORE} yet (docs/retention.md)`);
    const search = await openIndex(cfg, stores.sqlite);
    const { objects } = openObjectStore(cfg);
    try {
      const sqlite = stores.sqlite;
      const purger = new Purger({
        store: stores.executions,
        removeFromIndex: (id) => search.index.removeWorkflow(id),
        search: search.index,
        retention: stores.retention,
        objects,
        idempotencyKeys: stores.idempotencyKeys,
        rules: async () => retentionRules(await stores.metadata.listWorkflowDefs(), { days: cfg.BATON_RETENTION_DAYS, archive: cfg.BATON_RETENTION_ARCHIVE }),
        now: Date.now,
        reclaim: sqlite && (() => reclaimPages(sqlite, cfg.BATON_RETENTION_RECLAIM_PAGES)),
        log,
      });
      const total: PassOutcome = { purged: 0, archived: 0, kept: 0, reclaimedPages: 0 };
      for (;;) {
        const out = await purger.passOnce(cfg.BATON_RETENTION_BATCH);
        for (const k of Object.keys(total) as Array<keyof PassOutcome>) total[k] += out[k];
        if (out.purged === 0) break;
      }
      log.info(total, 'purge finished');
      return total;
    } finally {
      await objects.close();
      await search.close();
    }
  } finally {
    await stores.close();
  }
}

if (require.main === module) {
  let cfg: Config;
  try {
    cfg = loadConfig();
  } catch (e) {
    process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
    process.exit(2);
  }
  runPurge(cfg, pino({ level: cfg.LOG_LEVEL })).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`purge failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
