import pino, { type Logger } from 'pino';
import { openIndex, openStores } from '../composition/distributed';
import { ConfigError, loadConfig, type Config } from '../config';
import { reindexExecutions, type ReindexResult } from './reindex-executions';

// `npm run reindex`: rebuilds the search index from the execution store, with the same environment
// variables as the server (BATON_PROFILE selects SQLite, or Cassandra and Elasticsearch).

export async function runReindex(cfg: Config, log: Logger): Promise<ReindexResult> {
  const stores = await openStores(cfg);
  try {
    const search = await openIndex(cfg, stores.sqlite);
    try {
      const started = Date.now();
      const result = await reindexExecutions(stores.executions, search.index, {
        onBatch: (n) => log.info(n, 'reindexed so far'),
      });
      log.info({ ...result, ms: Date.now() - started }, 'reindex finished');
      return result;
    } finally {
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
  runReindex(cfg, pino({ level: cfg.LOG_LEVEL })).then(
    () => process.exit(0),
    (e) => {
      process.stderr.write(`reindex failed: ${e instanceof Error ? e.stack : String(e)}\n`);
      process.exit(1);
    },
  );
}
