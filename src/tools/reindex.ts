import type { Logger } from 'pino';
import type { Config } from '../config';
import { runCli, withIndex, withStores } from './cli';
import { reindexExecutions, type ReindexResult } from './reindex-executions';

// `npm run reindex`: rebuilds the search index from the execution store, with the same environment
// variables as the server (BATON_PROFILE selects SQLite, or Cassandra and Elasticsearch).

export async function runReindex(cfg: Config, log: Logger): Promise<ReindexResult> {
  return withStores(cfg, (stores) =>
    withIndex(cfg, stores, async (search) => {
      const started = Date.now();
      const result = await reindexExecutions(stores.executions, search.index, {
        onBatch: (n) => log.info(n, 'reindexed so far'),
      });
      log.info({ ...result, ms: Date.now() - started }, 'reindex finished');
      return result;
    }),
  );
}

if (require.main === module) runCli('reindex', runReindex);
