import { CommunicationProtocolEnum, DaprClient, LogLevel } from '@dapr/dapr';
import { hostname } from 'node:os';
import Redis from 'ioredis';
import type { Logger } from 'pino';
import type { Config } from '../config';
import { createDaprEventBus } from '../events/dapr/dapr-event-bus';
import { RedisDeliveryDedupe } from '../events/dapr/delivery-dedupe';
import { ElasticsearchSearchIndex } from '../search/elasticsearch/elasticsearch-index';
import type { SearchIndex } from '../search/ports';
import { SqliteSearchIndex } from '../search/sqlite/sqlite-index';
import { createRedisLimits } from '../limits/redis';
import { RedisFailedAttempts } from '../limits/redis/redis-failed-attempts';
import { RedisQueueDirectory } from '../limits/redis/redis-queue-directory';
import { RedisQueuePartitions } from '../queues/redis/redis-queue-partitions';
import { RedisScanLease } from '../limits/redis/redis-scan-lease';
import { RedisReplicaRoster } from '../limits/redis/redis-replica-roster';
import { createDaprActorHost } from '../runtime/dapr/dapr-actor-host';
import { SidecarHttp } from '../runtime/dapr/sidecar-http';
import { goDurationFromMs } from '../runtime/dapr/durations';
import { openCassandraStores, type CassandraStoreConfig } from '../store/cassandra';
import { openDatabase, openSqliteStores } from '../store/sqlite';
import { SqliteRetentionStore } from '../store/sqlite/retention-store';
import type { Reclaimed, RetentionStore } from '../retention/ports';
import { payloadLimitsOf } from '../store/payload-limits';
import { openObjectStore } from '../objects/open-object-store';
import type { AuthorizationStore, ExecutionStore, IdempotencyKeyStore, MetadataStore, SchemaStore, SecretStore } from '../store/ports';
import type { ScheduleStore } from '../store/schedule-store';
import type { BatchStore } from '../store/batch-store';
import { distributedActorWrapping, startLacksDefinition } from './actor-wrappers';
import type { Adapters } from './adapters';
import { MetadataChanges } from './metadata-changes';
import type { MetadataService } from '../services/metadata-service';
import { reviveBatonError } from './remote-errors';

/** Settings of the Cassandra store, from the validated configuration. */
export function cassandraConfig(cfg: Config, log?: Pick<Logger, 'warn'>): CassandraStoreConfig {
  return {
    contactPoints: (cfg.CASSANDRA_CONTACT_POINTS ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean),
    localDataCenter: cfg.CASSANDRA_LOCAL_DC,
    keyspace: cfg.CASSANDRA_KEYSPACE,
    username: cfg.CASSANDRA_USERNAME,
    password: cfg.CASSANDRA_PASSWORD,
    consistency: cfg.CASSANDRA_CONSISTENCY,
    replication: cfg.CASSANDRA_REPLICATION,
    migrate: cfg.BATON_CASSANDRA_MIGRATE,
    payloadLimits: payloadLimitsOf(cfg),
    // A lookup index write that failed after a durable turn is repaired by the next load of the execution.
    onIndexError: (err, workflowId) => log?.warn({ err, workflowId }, 'cassandra index write failed; repaired at the next load'),
  };
}

export interface OpenedStores {
  executions: ExecutionStore;
  metadata: MetadataStore;
  schedules: ScheduleStore;
  idempotencyKeys: IdempotencyKeyStore;
  schemas: SchemaStore;
  secrets: SecretStore;
  authorization: AuthorizationStore;
  batches: BatchStore;
  /** The SQLite file when BATON_STORE=sqlite (tests and development on one machine). */
  sqlite?: ReturnType<typeof openDatabase>;
  /** The purge's journal and archive lookup; absent where the store has none yet. */
  retention?: RetentionStore;
  /** SQLite: the purge pass's reclaim step (free pages given back, WAL truncated). */
  reclaim?: () => Promise<Reclaimed>;
  close(): Promise<void>;
}

/** Cassandra, or (BATON_STORE=sqlite, tests only) one SQLite file shared by every replica on this machine. */
export async function openStores(cfg: Config, log?: Pick<Logger, 'warn'>): Promise<OpenedStores> {
  if (cfg.BATON_STORE === 'cassandra') return openCassandraStores(cassandraConfig(cfg, log));
  const s = openSqliteStores(cfg.BATON_DATA_DIR, payloadLimitsOf(cfg));
  return {
    executions: s.executions,
    metadata: s.metadata,
    schedules: s.schedules,
    idempotencyKeys: s.idempotencyKeys,
    schemas: s.schemas,
    secrets: s.secrets,
    authorization: s.authorization,
    batches: s.batches,
    sqlite: s.db,
    retention: new SqliteRetentionStore(s.db),
    reclaim: () => s.reclaim(cfg.BATON_RETENTION_RECLAIM_PAGES),
    close: () => s.close(),
  };
}

/** Elasticsearch, or (BATON_INDEX=sqlite, tests only) the SQLite file of BATON_DATA_DIR. */
export async function openIndex(cfg: Config, sqlite: OpenedStores['sqlite']): Promise<{ index: SearchIndex; close(): Promise<void> }> {
  if (cfg.BATON_INDEX === 'elasticsearch') {
    const index = new ElasticsearchSearchIndex({
      node: cfg.ELASTICSEARCH_URL!,
      indexPrefix: cfg.ELASTICSEARCH_INDEX_PREFIX,
      period: cfg.BATON_ES_INDEX_PERIOD,
      username: cfg.ELASTICSEARCH_USERNAME,
      password: cfg.ELASTICSEARCH_PASSWORD,
    });
    await index.init();
    return { index, close: () => index.close() };
  }
  const db = sqlite ?? openDatabase(cfg.BATON_DATA_DIR);
  const index = new SqliteSearchIndex(db);
  return {
    index,
    async close() {
      await index.close();
      if (!sqlite && db.open) db.close();
    },
  };
}

/**
 * The distributed profile: actors placed by Dapr sidecars across replicas, executions in Cassandra,
 * search in Elasticsearch, long-poll wake-ups, limits, delivery dedupe and definition changes in Redis.
 */
export async function distributedAdapters(cfg: Config, log: Logger): Promise<Adapters> {
  const prefix = cfg.BATON_REDIS_KEY_PREFIX;
  const redisError = (err: unknown): void => log.warn({ err }, 'redis error');
  const redis = (): Redis => new Redis(cfg.REDIS_URL).on('error', redisError);
  const stores = await openStores(cfg, log);
  const opened: Array<() => Promise<void>> = [() => stores.close()];
  try {
    const search = await openIndex(cfg, stores.sqlite);
    opened.unshift(() => search.close());
    // Without a bucket: a directory under BATON_DATA_DIR, which replicas must share (a volume) for links to work everywhere.
    const { objects, served: objectLinks } = openObjectStore(cfg);
    opened.unshift(() => objects.close());
    const sidecar = new SidecarHttp({ port: cfg.DAPR_HTTP_PORT, apiToken: cfg.DAPR_API_TOKEN, timeoutMs: cfg.BATON_DAPR_CALL_TIMEOUT_MS });
    opened.push(() => sidecar.close());
    const client = new DaprClient({
      daprHost: '127.0.0.1',
      daprPort: String(cfg.DAPR_HTTP_PORT),
      communicationProtocol: CommunicationProtocolEnum.HTTP,
      daprApiToken: cfg.DAPR_API_TOKEN,
      logger: { level: LogLevel.Error },
      maxBodySizeMb: Math.ceil(cfg.BATON_MAX_BODY_BYTES / (1024 * 1024)),
    });
    const { host, router: actorRoutes } = createDaprActorHost({
      sidecar,
      invokeTimeoutMs: cfg.BATON_DAPR_CALL_TIMEOUT_MS,
      drainMs: cfg.BATON_DAPR_DRAIN_MS,
      stopWithinMs: cfg.BATON_SHUTDOWN_TIMEOUT_MS,
      log,
      appApiToken: cfg.APP_API_TOKEN,
      actorIdleTimeout: goDurationFromMs(cfg.BATON_ACTOR_IDLE_TIMEOUT_MS),
      drainOngoingCallTimeout: goDurationFromMs(cfg.BATON_DAPR_CALL_DRAIN_MS),
      // A queue partition reloads its entries from the actor state store on activation: keep busy ones active.
      entitiesConfig: { QueueActor: { actorIdleTimeout: '1h' } },
      reviveError: reviveBatonError,
      routingRetryBudgetMs: cfg.BATON_DAPR_ROUTING_RETRY_MS,
      maxBodyBytes: cfg.BATON_MAX_BODY_BYTES,
      // Deadlines of executions that end within their activation never reach daprd; the recovery scan re-arms one a crash lost.
      recoverableRemindersInMemory: cfg.BATON_RECOVERY_SCAN_INTERVAL_MS > 0,
      liveness:
        cfg.BATON_LIVENESS_PROBE_INTERVAL_MS > 0
          ? {
              intervalMs: cfg.BATON_LIVENESS_PROBE_INTERVAL_MS,
              timeoutMs: cfg.BATON_LIVENESS_PROBE_TIMEOUT_MS,
              failures: cfg.BATON_LIVENESS_FAILURES,
              windowMs: cfg.BATON_LIVENESS_WINDOW_MS,
            }
          : undefined,
    });
    const { wakeUps, taskLimits, lineage } = createRedisLimits({ url: cfg.REDIS_URL, keyPrefix: prefix, onError: redisError });
    const dedupeRedis = redis();
    const directory = new RedisQueueDirectory(redis(), prefix, redisError);
    const redisQueues = cfg.BATON_QUEUES === 'redis' ? new RedisQueuePartitions(redis(), prefix) : undefined;
    const changes = new MetadataChanges(redis(), redis(), prefix, log);
    const scanLease = new RedisScanLease(redis(), prefix, 'recovery-scan');
    const scanRoster = new RedisReplicaRoster(redis(), prefix, 'recovery-scan', hostname());
    const retentionLease = new RedisScanLease(redis(), prefix, 'retention');
    const batchLease = new RedisScanLease(redis(), prefix, 'batch-runner');
    const attempts = new RedisFailedAttempts(redis(), prefix);
    opened.unshift(
      () => attempts.close(),
      () => wakeUps.close(),
      () => taskLimits.close(),
      () => lineage.close(),
      () => directory.close(),
      async () => redisQueues?.close(),
      () => changes.close(),
      () => scanLease.close(),
      () => scanRoster.close(),
      () => retentionLease.close(),
      () => batchLease.close(),
      async () => void (await dedupeRedis.quit().catch(() => undefined)),
    );
    let definitions: Pick<MetadataService, 'taskDef'> | undefined;
    const known = (taskName: string): boolean => !definitions || definitions.taskDef(taskName) !== undefined;
    // daprd reads the subscriptions once at its start: topics of handlers added later need a restart.
    let externalEvents: string[] = [];
    const loadExternalEvents = async (): Promise<void> => {
      externalEvents = (await stores.metadata.listEventHandlers()).map((h) => h.event).filter((e) => e.startsWith('dapr:'));
    };
    await loadExternalEvents();
    const { bus, router: eventRoutes } = createDaprEventBus({
      client,
      log,
      pubsubName: cfg.BATON_DAPR_PUBSUB,
      completionTopic: cfg.BATON_DAPR_COMPLETION_TOPIC,
      internalTopic: cfg.BATON_DAPR_STATUS_TOPIC,
      externalEvents: () => externalEvents,
      dedupe: new RedisDeliveryDedupe(dedupeRedis, prefix),
      appApiToken: cfg.APP_API_TOKEN,
      maxBodyBytes: cfg.BATON_MAX_BODY_BYTES,
    });
    return {
      stores: {
        executions: stores.executions,
        metadata: changes.announcing(stores.metadata),
        schedules: stores.schedules,
        idempotencyKeys: stores.idempotencyKeys,
        schemas: stores.schemas,
        secrets: stores.secrets,
        authorization: stores.authorization,
        batches: stores.batches,
      },
      index: search.index,
      objects,
      objectLinks,
      host,
      wakeUps,
      limits: taskLimits,
      attempts,
      lineage,
      directory,
      directoryRefreshMs: 2000,
      queues: redisQueues,
      bus,
      mount: (app) => {
        app.use(actorRoutes);
        app.use(eventRoutes);
      },
      startHost: 'afterListen',
      // Redis pushes are no actor calls: a turn awaits them (its answer waits until the next task is queued).
      queueEffects: redisQueues ? 'inTurn' : 'afterTurn',
      scanLease,
      scanRoster,
      retention: stores.retention && {
        store: stores.retention,
        lease: retentionLease,
        reclaim: stores.reclaim,
      },
      batchLease,
      wrapActor: distributedActorWrapping(log, (call) => changes.settled() ?? (startLacksDefinition(call, known) ? changes.catchUp() : undefined)),
      watchDefinitions: (cache) => {
        definitions = cache;
        return changes.start(async () => {
          await cache.refresh();
          await loadExternalEvents();
        });
      },
      onTaskCompletion: (handler) => bus.onTaskCompletion(handler),
      async close() {
        await bus.close();
        for (const close of opened) await close().catch((err) => log.warn({ err }, 'closing an adapter failed'));
        await client.stop().catch(() => undefined);
      },
    };
  } catch (err) {
    for (const close of opened) await close().catch(() => undefined);
    throw err;
  }
}
