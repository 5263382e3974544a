import { Client, type ClientOptions, policies, types } from 'cassandra-driver';
import { DEFAULT_PAYLOAD_LIMITS } from '../payload-limits';
import type { AuthorizationStore, ExecutionStore, IdempotencyKeyStore, MetadataStore, SchemaStore, SecretStore } from '../ports';
import { type CassandraStoreConfig, consistencyOf, nativePortOf } from './config';
import { CassandraExecutionStore } from './execution-store';
import { CassandraMetadataStore } from './metadata-store';
import { CassandraIdempotencyKeys } from './idempotency-keys';
import { CassandraSchemaStore } from './schema-store';
import { migrate } from './migrate';
import { CassandraBatchStore } from './batch-store';
import type { BatchStore } from '../batch-store';
import { CassandraScheduleStore } from './schedule-store';
import type { ScheduleStore } from '../schedule-store';
import { CassandraSecretStore } from './secret-store';
import { CassandraAuthorizationStore } from './authorization-store';
import { CassandraRetentionStore } from './retention-store';
import type { RetentionStore } from '../../retention/ports';
import { DEFAULT_INDEX_LAYOUT } from './rows';
import { assertKeyspaceName } from './statements';

export { type CassandraStoreConfig, cassandraConfigFromEnv, replicationClause } from './config';
export { migrate } from './migrate';
export { CassandraExecutionStore } from './execution-store';
export { CassandraMetadataStore } from './metadata-store';
export { CassandraScheduleStore } from './schedule-store';
export { CassandraIdempotencyKeys } from './idempotency-keys';
export { CassandraSchemaStore } from './schema-store';
export { CassandraSecretStore } from './secret-store';
export { CassandraAuthorizationStore } from './authorization-store';
export { CassandraRetentionStore } from './retention-store';
export { CassandraBatchStore } from './batch-store';

export interface CassandraStores {
  executions: ExecutionStore;
  metadata: MetadataStore;
  schedules: ScheduleStore;
  idempotencyKeys: IdempotencyKeyStore;
  schemas: SchemaStore;
  secrets: SecretStore;
  authorization: AuthorizationStore;
  retention: RetentionStore;
  batches: BatchStore;
  client: Client;
  close(): Promise<void>;
}

/** Delays between the driver's attempts to reach a node it lost: from 250 ms, doubling, at most 2 s. */
export const RECONNECT_BASE_MS = 250;
export const RECONNECT_MAX_MS = 2000;

/** The driver's options with Baton's policies: retries and speculative executions only for requests marked idempotent (the driver's rule). */
export function clientOptions(cfg: CassandraStoreConfig): ClientOptions {
  const speculativeDelayMs = cfg.speculativeDelayMs ?? 200;
  const port = nativePortOf(cfg.contactPoints);
  return {
    contactPoints: cfg.contactPoints,
    localDataCenter: cfg.localDataCenter,
    ...(port === undefined ? {} : { protocolOptions: { port } }),
    credentials: cfg.username ? { username: cfg.username, password: cfg.password ?? '' } : undefined,
    policies: {
      retry: new policies.retry.RetryPolicy(),
      // The driver's default backs off to 10 minutes: a replica cut from Cassandra would keep failing long after the link heals.
      reconnection: new policies.reconnection.ExponentialReconnectionPolicy(RECONNECT_BASE_MS, RECONNECT_MAX_MS, false),
      speculativeExecution:
        speculativeDelayMs > 0
          ? new policies.speculativeExecution.ConstantSpeculativeExecutionPolicy(speculativeDelayMs, 1)
          : new policies.speculativeExecution.NoSpeculativeExecutionPolicy(),
    },
    queryOptions: {
      consistency: consistencyOf(cfg.consistency ?? 'LOCAL_QUORUM'),
      serialConsistency: types.consistencies.localSerial,
    },
  };
}

export const createCassandraClient = (cfg: CassandraStoreConfig): Client => new Client(clientOptions(cfg));

/** Connects, applies migrations when cfg.migrate, and returns both stores over one client. */
export async function openCassandraStores(cfg: CassandraStoreConfig): Promise<CassandraStores> {
  const keyspace = assertKeyspaceName(cfg.keyspace);
  const consistency = consistencyOf(cfg.consistency ?? 'LOCAL_QUORUM');
  const client = createCassandraClient(cfg);
  try {
    await client.connect();
    if (cfg.migrate) await migrate(client, { keyspace, replication: cfg.replication });
  } catch (err) {
    await client.shutdown();
    throw err;
  }
  const layout = { ...DEFAULT_INDEX_LAYOUT, ...cfg.layout };
  const executions = new CassandraExecutionStore(client, {
    keyspace,
    consistency,
    layout,
    payloadLimits: { ...DEFAULT_PAYLOAD_LIMITS, ...cfg.payloadLimits },
    onIndexError: cfg.onIndexError,
    maintenanceIntervalMs: cfg.indexMaintenanceMs ?? 5 * 60_000,
  });
  const metadata = new CassandraMetadataStore(client, {
    keyspace,
    consistency,
    layout,
    eventExecutionTtlSeconds: cfg.eventExecutionTtlSeconds,
  });
  return {
    executions,
    metadata,
    schedules: new CassandraScheduleStore(client, keyspace, consistency),
    idempotencyKeys: new CassandraIdempotencyKeys(client, keyspace, consistency),
    schemas: new CassandraSchemaStore(client, keyspace, consistency),
    secrets: new CassandraSecretStore(client, { keyspace, consistency }),
    authorization: new CassandraAuthorizationStore(client, { keyspace, consistency }),
    retention: new CassandraRetentionStore(client, { keyspace, consistency }),
    batches: new CassandraBatchStore(client, keyspace, consistency),
    client,
    async close() {
      await executions.close();
      await metadata.close();
      await client.shutdown();
    },
  };
}
