import type { Logger } from 'pino';
import type { Config } from '../config';
import { LocalEventBus } from '../events/local/local-event-bus';
import { SqliteSearchIndex } from '../search/sqlite/sqlite-index';
import { LocalFailedAttempts } from '../limits/local/local-failed-attempts';
import { LocalLineageCounters } from '../limits/local/local-lineage-counters';
import { LocalTaskLimits } from '../limits/local/local-task-limits';
import { LocalWakeUps } from '../limits/local/local-wake-ups';
import { LocalQueueDirectory } from '../limits/local/local-queue-directory';
import { LocalActorHost } from '../runtime/local/local-actor-host';
import { SqliteReminderStore } from '../runtime/local/reminder-store';
import { openSqliteStores } from '../store/sqlite';
import { SqliteRetentionStore } from '../store/sqlite/retention-store';
import { SOLE_LEASE } from '../retention/retention-loop';
import { payloadLimitsOf } from '../store/payload-limits';
import { openObjectStore } from '../objects/open-object-store';
import type { Adapters } from './adapters';

/** The embedded profile: one process, one SQLite file (executions, definitions, search, reminders). */
export async function embeddedAdapters(cfg: Config, log: Logger): Promise<Adapters> {
  const stores = openSqliteStores(cfg.BATON_DATA_DIR, payloadLimitsOf(cfg), (m) => log.warn({ error: m }, 'WAL checkpoint failed'));
  const index = new SqliteSearchIndex(stores.db);
  const host = new LocalActorHost(new SqliteReminderStore(stores.db), log, {
    idleTimeoutMs: cfg.BATON_ACTOR_IDLE_TIMEOUT_MS,
    maxActive: cfg.BATON_ACTOR_MAX_ACTIVE,
  });
  const wakeUps = new LocalWakeUps();
  const limits = new LocalTaskLimits();
  const lineage = new LocalLineageCounters();
  const bus = new LocalEventBus();
  const { objects, served } = openObjectStore(cfg);
  return {
    stores,
    index,
    objects,
    objectLinks: served,
    host,
    wakeUps,
    limits,
    attempts: new LocalFailedAttempts(),
    lineage,
    directory: new LocalQueueDirectory(),
    directoryRefreshMs: 0,
    bus,
    startHost: 'beforeListen',
    retention: {
      store: new SqliteRetentionStore(stores.db),
      lease: SOLE_LEASE,
      reclaim: () => stores.reclaim(cfg.BATON_RETENTION_RECLAIM_PAGES),
    },
    queueEffects: 'inTurn',
    wrapActor: (_type, factory) => factory,
    watchDefinitions: async () => undefined, // the only writer is this process
    onTaskCompletion: () => undefined, // no broker: HUMAN tasks complete through the API
    async close() {
      await wakeUps.close();
      await limits.close();
      await lineage.close();
      await bus.close();
      await index.close();
      await objects.close();
      await stores.close();
    },
  };
}
