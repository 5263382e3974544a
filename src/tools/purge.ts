import type { Logger } from 'pino';
import type { Config } from '../config';
import { openObjectStore } from '../objects/open-object-store';
import { retentionRules } from '../retention/policy';
import { Purger, type PassOutcome } from '../retention/purger';
import { runCli, withIndex, withStores } from './cli';

// `npm run purge`: runs retention passes until nothing is due, with the server's environment variables
// (BATON_RETENTION_*, BATON_DATA_DIR, ...). For a first purge of a large backlog while the server is stopped;
// the server runs the same passes itself, paced, every BATON_RETENTION_INTERVAL_MS.

export async function runPurge(cfg: Config, log: Logger): Promise<PassOutcome> {
  return withStores(cfg, async (stores) => {
    const retention = stores.retention;
    if (!retention) throw new Error(`no purge journal for BATON_STORE=${cfg.BATON_STORE} yet (docs/retention.md)`);
    return withIndex(cfg, stores, async (search) => {
      const { objects } = openObjectStore(cfg);
      try {
        const purger = new Purger({
          store: stores.executions,
          removeFromIndex: (id) => search.index.removeWorkflow(id),
          search: search.index,
          periods: search.index.periodIndices?.(),
          retention,
          objects,
          idempotencyKeys: stores.idempotencyKeys,
          rules: async () => retentionRules(await stores.metadata.listWorkflowDefs(), { days: cfg.BATON_RETENTION_DAYS, archive: cfg.BATON_RETENTION_ARCHIVE }),
          now: Date.now,
          reclaim: stores.reclaim,
          log,
        });
        const total: PassOutcome = { purged: 0, archived: 0, kept: 0, reclaimedPages: 0 };
        for (;;) {
          const out = await purger.passOnce(cfg.BATON_RETENTION_BATCH);
          for (const k of ['purged', 'archived', 'kept', 'reclaimedPages'] as const) total[k] += out[k];
          // The last pass's answer: whether the file ended with its WAL truncated.
          if (out.walTruncated !== undefined) total.walTruncated = out.walTruncated;
          if (out.purged === 0) break;
        }
        log.info(total, 'purge finished');
        return total;
      } finally {
        await objects.close();
      }
    });
  });
}

if (require.main === module) runCli('purge', runPurge);
