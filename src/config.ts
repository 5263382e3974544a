import { z } from 'zod';
import { parseEgressRules } from './services/http-task/egress-policy';
import { callDrainProblem } from './runtime/dapr/call-drain';

// Every setting is an environment variable, validated once at start (docs/configuration.md lists them all).

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const optionalInt = (min: number) => z.coerce.number().int().min(min).optional();
const bool = (def: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(def ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** Hosts, addresses and CIDR ranges, comma-separated; a bad entry stops the start naming it. */
const egressList = z
  .string()
  .default('')
  .superRefine((v, ctx) => {
    try {
      parseEgressRules(v);
    } catch (e) {
      ctx.addIssue({ code: 'custom', message: (e as Error).message });
    }
  });

export const FieldsSchema = z.object({
  PORT: int(8080, 0).pipe(z.number().max(65535)),
  BATON_PROFILE: z.enum(['embedded', 'distributed']).default('embedded'),
  BATON_DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BATON_QUEUE_PARTITIONS: int(1, 1),
  /** Where task-queue partitions live: QueueActors (the embedded default), or Redis (the distributed default). */
  BATON_QUEUES: z.enum(['actors', 'redis']).optional(),
  BATON_ACTOR_IDLE_TIMEOUT_MS: int(60_000, 1000),
  BATON_ACTOR_MAX_ACTIVE: int(20_000, 10),
  BATON_HTTP_TASK_WORKERS: int(4, 0),
  // The HTTP task's guard (src/services/http-task): where it may connect, how much it may read, for how long.
  BATON_HTTP_TASK_ALLOW: egressList,
  BATON_HTTP_TASK_DENY: egressList,
  BATON_HTTP_TASK_ALLOW_ONLY: bool(false),
  BATON_HTTP_TASK_PER_HOST: int(2, 1),
  BATON_HTTP_TASK_QUEUE_PER_HOST: int(1000, 0),
  BATON_HTTP_TASK_MAX_RESPONSE_BYTES: int(2 * 1024 * 1024, 1024),
  BATON_HTTP_TASK_MAX_TIMEOUT_MS: int(60_000, 100),
  BATON_HTTP_TASK_MAX_REDIRECTS: int(5, 0),
  BATON_SCRIPT_TIMEOUT_MS: int(4000, 10),
  BATON_SCRIPT_MEMORY_MB: int(32, 1),
  // Conductor's limits (ConductorProperties): above the threshold a payload is stored outside the execution row
  // (in the object store), above the maximum it is refused.
  BATON_TASK_PAYLOAD_MAX_BYTES: int(10 * 1024 * 1024, 1024),
  BATON_WORKFLOW_PAYLOAD_MAX_BYTES: int(10 * 1024 * 1024, 1024),
  BATON_TASK_PAYLOAD_THRESHOLD_BYTES: int(3 * 1024 * 1024, 1024),
  BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES: int(5 * 1024 * 1024, 1024),
  // Task logs (src/store/task-log-limits.ts): a longer line is refused by the log route, more lines are not kept.
  BATON_TASK_LOG_MAX_LINE_BYTES: int(4096, 256),
  BATON_TASK_LOG_MAX_LINES: int(500, 1),
  // Limits on every resource a client or a workflow author can make Baton hold (issue 9).
  BATON_MAX_SUBWORKFLOW_DEPTH: int(32, 1),
  BATON_MAX_FORK_WIDTH: int(1000, 1),
  // Starts that descend from one root execution (sub-workflows, START_WORKFLOW, failure workflows, event-handler starts).
  BATON_MAX_WORKFLOW_GENERATIONS: int(64, 1),
  BATON_MAX_DESCENDANTS_PER_ROOT: int(10_000, 1),
  BATON_MAX_STARTS_PER_ROOT_PER_SECOND: int(2_000, 1),
  BATON_MAX_TASKS_PER_EXECUTION: int(10_000, 10),
  BATON_MAX_DEFINITION_BYTES: int(1024 * 1024, 1024),
  BATON_MAX_DEFINITIONS: int(10_000, 1),
  BATON_MAX_SCHEDULES: int(10_000, 1),
  BATON_MAX_SECRETS: int(10_000, 1),
  BATON_MAX_SCHEMAS: int(10_000, 1),
  BATON_MAX_APPLICATIONS: int(10_000, 1),
  BATON_MAX_AUTHORIZATION_RECORDS: int(10_000, 1),
  BATON_MAX_JSON_DEPTH: int(128, 8),
  BATON_MAX_LONG_POLLS_PER_CLIENT: int(256, 1),
  // Profile-dependent defaults (see withProfileDefaults): embedded 0/0, distributed 15 s/10 s.
  BATON_SWEEP_INTERVAL_MS: optionalInt(0),
  BATON_METADATA_CACHE_TTL_MS: optionalInt(0),
  BATON_INDEX_FLUSH_MS: int(200, 1),
  // Index-dependent default (see withProfileDefaults): SQLite 0, Elasticsearch 5 s.
  BATON_INDEX_OPEN_HOLD_MS: optionalInt(0),
  BATON_MAX_BODY_BYTES: int(20 * 1024 * 1024, 1024),
  BATON_SHUTDOWN_TIMEOUT_MS: int(10_000, 0),
  // Distributed profile
  BATON_STORE: z.enum(['sqlite', 'cassandra']).optional(),
  BATON_INDEX: z.enum(['sqlite', 'elasticsearch']).optional(),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  BATON_REDIS_KEY_PREFIX: z.string().default('baton:'),
  DAPR_HTTP_PORT: int(3500, 1),
  DAPR_API_TOKEN: z.string().optional(),
  APP_API_TOKEN: z.string().optional(),
  BATON_DAPR_PUBSUB: z.string().default('baton-pubsub'),
  BATON_DAPR_COMPLETION_TOPIC: z.string().default('baton-task-completions'),
  BATON_DAPR_STATUS_TOPIC: z.string().default('baton-status-changes'),
  BATON_DAPR_ROUTING_RETRY_MS: int(20_000, 0),
  // Scripts and expressions that cannot stall the server (src/scripting, src/engine/jsonpath-budget.ts).
  BATON_SCRIPT_WORKERS: int(2, 1),
  BATON_SCRIPT_QUEUE_TIMEOUT_MS: int(30_000, 100),
  BATON_DO_WHILE_MAX_ITERATIONS: int(1000, 1),
  BATON_JSONPATH_MAX_STEPS: int(1_000_000, 1000),
  BATON_JSONPATH_MAX_DEPTH: int(64, 4),
  BATON_DAPR_CALL_TIMEOUT_MS: int(60_000, 100),
  BATON_DAPR_DRAIN_MS: int(5000, 0),
  /** daprd's drainOngoingCallTimeout for Baton's actors; must fit placement's round (src/runtime/dapr/call-drain.ts). */
  BATON_DAPR_CALL_DRAIN_MS: int(2000, 0),
  /** Placement's `--disseminate-timeout` in this cluster (Dapr's default 8 s); bounds BATON_DAPR_CALL_DRAIN_MS. */
  BATON_DAPR_PLACEMENT_DISSEMINATE_MS: int(8000, 1000),
  /**
   * Liveness self-probe of the distributed profile: an actor call through the sidecar every INTERVAL (0: none),
   * limited to TIMEOUT; FAILURES failed in a row spanning at least WINDOW turn /health red (503) so the pod restarts.
   */
  BATON_LIVENESS_PROBE_INTERVAL_MS: int(10_000, 0),
  BATON_LIVENESS_PROBE_TIMEOUT_MS: int(5000, 100),
  BATON_LIVENESS_FAILURES: int(3, 1),
  BATON_LIVENESS_WINDOW_MS: int(30_000, 0),
  // Profile-dependent default (see withProfileDefaults): embedded 0 (recovery at start only), distributed 60 s.
  BATON_RECOVERY_SCAN_INTERVAL_MS: optionalInt(0),
  BATON_RECOVERY_SCAN_RATE: int(100, 1),
  /** Every replica marks itself alive, and the scan's lease (held three ticks) is renewed or taken, this often. */
  BATON_RECOVERY_SCAN_TICK_MS: int(5000, 100),
  BATON_RECOVERY_SCAN_CONCURRENCY: int(4, 1),
  /** Limit of one recover call of the scan; BATON_RECOVERY_SCAN_MAX_FAILURES failed in a row give the scan's lease up. */
  BATON_RECOVERY_SCAN_CALL_TIMEOUT_MS: int(10_000, 100),
  BATON_RECOVERY_SCAN_MAX_FAILURES: int(5, 1),
  // Retention (docs/retention.md): finished executions kept DAYS days (0: forever) unless their definition says otherwise,
  // archived first when ARCHIVE; one pass every INTERVAL purges at most BATCH executions and reclaims at most RECLAIM_PAGES SQLite pages.
  BATON_RETENTION_DAYS: int(0, 0),
  BATON_RETENTION_ARCHIVE: bool(false),
  BATON_RETENTION_INTERVAL_MS: int(60_000, 1000),
  BATON_RETENTION_BATCH: int(1000, 1),
  BATON_RETENTION_RECLAIM_PAGES: int(4096, 0),
  // Batches by query (src/batch): how many executions one may match, how many run at once, and their pace.
  BATON_BATCH_MAX_MATCHES: int(10_000, 1),
  BATON_BATCH_MAX_OPEN: int(10, 1),
  BATON_BATCH_BUDGET: int(100, 1),
  // At most a day: a longer timer would overflow setTimeout and fire at once.
  BATON_BATCH_INTERVAL_MS: int(1000, 10).pipe(z.number().max(86_400_000)),
  /** A schedule's slot at most this late still fires when catch-up is off (a reminder fires a little after its time). */
  BATON_SCHEDULE_GRACE_MS: int(30_000, 0),
  /** With runCatchupScheduleInstances, at most this many missed slots fire at once (the newest). */
  BATON_SCHEDULE_MAX_CATCHUP: int(100, 1),
  CASSANDRA_CONTACT_POINTS: z.string().optional(),
  CASSANDRA_LOCAL_DC: z.string().default('datacenter1'),
  CASSANDRA_KEYSPACE: z.string().default('baton'),
  CASSANDRA_USERNAME: z.string().optional(),
  CASSANDRA_PASSWORD: z.string().optional(),
  CASSANDRA_CONSISTENCY: z.string().default('LOCAL_QUORUM'),
  // No default: replication is an operator's decision, needed only when migrations create the keyspace.
  CASSANDRA_REPLICATION: z.string().optional(),
  BATON_CASSANDRA_MIGRATE: bool(false),
  ELASTICSEARCH_URL: z.string().optional(),
  ELASTICSEARCH_USERNAME: z.string().optional(),
  ELASTICSEARCH_PASSWORD: z.string().optional(),
  ELASTICSEARCH_INDEX_PREFIX: z.string().default('baton'),
  // The period of the time-based indices retention drops whole (docs/retention.md); none: one undated index.
  BATON_ES_INDEX_PERIOD: z.enum(['month', 'day', 'none']).default('month'),
  // The object store (src/objects, docs/object-store.md): external payloads and the archive.
  // Default: s3 when BATON_S3_BUCKET is set, else a directory under BATON_DATA_DIR.
  BATON_OBJECT_STORE: z.enum(['directory', 's3']).optional(),
  /** Signs the links Baton serves for the directory store; else a key file in BATON_DATA_DIR. */
  BATON_OBJECT_LINK_SECRET: z.string().trim().min(16).optional(),
  /** Baton's URL as clients reach it, for the directory store's links; default http://<bind address>:<port>. */
  BATON_PUBLIC_URL: z.url().optional(),
  BATON_S3_ENDPOINT: z.url().optional(),
  BATON_S3_BUCKET: z.string().trim().min(3).max(63).optional(),
  BATON_S3_REGION: z.string().trim().min(1).default('us-east-1'),
  // Absent: the AWS SDK's standard chain (AWS_ACCESS_KEY_ID, profiles, instance roles).
  BATON_S3_ACCESS_KEY_ID: z.string().trim().min(1).optional(),
  BATON_S3_SECRET_ACCESS_KEY: z.string().trim().min(1).optional(),
  // Who may do what (src/auth; auth-settings.ts decides whether auth is on and checks the keys).
  BATON_BIND: z.string().trim().min(1).optional(),
  HOST: z.string().trim().min(1).optional(),
  BATON_AUTH: z.enum(['on', 'off']).optional(),
  BATON_ADMIN_KEY_ID: z.string().trim().min(1).max(256).optional(),
  BATON_ADMIN_KEY_SECRET: z.string().optional(),
  BATON_AUTH_TOKEN_SECRET: z.string().optional(),
  BATON_AUTH_TOKEN_TTL_SECONDS: int(3600, 1),
  BATON_AUTH_CACHE_MS: int(5000, 0),
  BATON_CORS_ORIGINS: z.string().default(''),
  // Brute force on POST /api/token (src/auth/sign-in-guard.ts) and the scrypt work it may cause (src/auth/hashing-slots.ts).
  BATON_TOKEN_MAX_FAILURES_PER_KEY: int(10, 1),
  BATON_TOKEN_MAX_FAILURES_PER_CLIENT: int(100, 1),
  BATON_TOKEN_FAILURE_WINDOW_SECONDS: int(300, 1),
  BATON_AUTH_HASH_CONCURRENCY: int(2, 1),
  BATON_AUTH_HASH_QUEUE: int(64, 0),
  // The key that seals secrets (src/secrets): base64 of 32 bytes. Embedded: a key file in BATON_DATA_DIR when unset.
  BATON_SECRETS_KEY: z.string().trim().min(1).optional(),
  BATON_ALLOWED_HOSTS: z.string().default(''),
  // Metrics and traces (docs/operations.md "Metrics and traces"): the OTEL_* names are OpenTelemetry's standard ones.
  BATON_METRICS_ENABLED: bool(true),
  /** Distinct workflow names, task types, queues (and actor methods) with series of their own; the rest are counted as "other". */
  BATON_METRICS_MAX_LABEL_VALUES: int(500, 1),
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url().optional(),
  OTEL_SERVICE_NAME: z.string().trim().min(1).default('baton'),
});

/** Fills the defaults that depend on BATON_PROFILE and checks the combinations each profile needs. */
export const ConfigSchema = FieldsSchema.transform((c, ctx) => {
  const distributed = c.BATON_PROFILE === 'distributed';
  const config = {
    ...c,
    // Off by default: queue partitions keep their entries in the actor state store, and the recovery
    // scan re-pushes what a crash lost. A per-execution sweep would keep every open execution active.
    BATON_SWEEP_INTERVAL_MS: c.BATON_SWEEP_INTERVAL_MS ?? 0,
    // One replica at a time re-arms deadlines and re-pushes tasks of every open execution, paced.
    BATON_RECOVERY_SCAN_INTERVAL_MS: c.BATON_RECOVERY_SCAN_INTERVAL_MS ?? (distributed ? 60_000 : 0),
    // Other replicas write definitions; changes are also broadcast, this bounds a missed broadcast.
    BATON_METADATA_CACHE_TTL_MS: c.BATON_METADATA_CACHE_TTL_MS ?? (distributed ? 10_000 : 0),
    BATON_STORE: c.BATON_STORE ?? (distributed ? 'cassandra' : 'sqlite'),
    // In Redis a push or a lease is one Lua command; as a QueueActor it is an actor call through the sidecar and a state save.
    BATON_QUEUES: c.BATON_QUEUES ?? (distributed ? 'redis' : 'actors'),
    BATON_INDEX: c.BATON_INDEX ?? (distributed ? 'elasticsearch' : 'sqlite'),
    // A document per change of an open task or execution is most of Elasticsearch's load; an ended one is never held.
    BATON_INDEX_OPEN_HOLD_MS: c.BATON_INDEX_OPEN_HOLD_MS ?? ((c.BATON_INDEX ?? (distributed ? 'elasticsearch' : 'sqlite')) === 'elasticsearch' ? 5000 : 0),
    // Secure by default: the embedded profile answers this machine only; pods must take traffic on their address.
    BATON_BIND: c.BATON_BIND ?? c.HOST ?? (distributed ? '0.0.0.0' : '127.0.0.1'),
    BATON_OBJECT_STORE: c.BATON_OBJECT_STORE ?? (c.BATON_S3_BUCKET ? 's3' : 'directory'),
  };
  const issue = (variable: string, message: string): void => {
    ctx.issues.push({ code: 'custom', path: [variable], message: `${message} (BATON_PROFILE=${c.BATON_PROFILE})`, input: c });
  };
  if (config.BATON_OBJECT_STORE === 's3' && !config.BATON_S3_BUCKET) issue('BATON_S3_BUCKET', 'required for BATON_OBJECT_STORE=s3');
  if (!config.BATON_S3_ACCESS_KEY_ID !== !config.BATON_S3_SECRET_ACCESS_KEY)
    issue(
      config.BATON_S3_ACCESS_KEY_ID ? 'BATON_S3_SECRET_ACCESS_KEY' : 'BATON_S3_ACCESS_KEY_ID',
      'set both BATON_S3_ACCESS_KEY_ID and BATON_S3_SECRET_ACCESS_KEY, or neither',
    );
  if (!distributed) {
    if (config.BATON_STORE !== 'sqlite') issue('BATON_STORE', 'the embedded profile stores in SQLite only');
    if (config.BATON_INDEX !== 'sqlite') issue('BATON_INDEX', 'the embedded profile indexes in SQLite only');
    if (config.BATON_QUEUES !== 'actors') issue('BATON_QUEUES', 'the embedded profile keeps its queues in QueueActors only');
  } else {
    if (config.BATON_STORE === 'cassandra' && !config.CASSANDRA_CONTACT_POINTS)
      issue('CASSANDRA_CONTACT_POINTS', 'required for BATON_STORE=cassandra, the distributed default (BATON_STORE=sqlite is for tests on one machine)');
    if (config.BATON_INDEX === 'elasticsearch' && !config.ELASTICSEARCH_URL)
      issue('ELASTICSEARCH_URL', 'required for BATON_INDEX=elasticsearch, the distributed default (BATON_INDEX=sqlite is for tests on one machine)');
    if (config.BATON_METADATA_CACHE_TTL_MS === 0) issue('BATON_METADATA_CACHE_TTL_MS', 'must be above 0 with several replicas');
    const drain = callDrainProblem(config.BATON_DAPR_CALL_DRAIN_MS, config.BATON_DAPR_PLACEMENT_DISSEMINATE_MS);
    if (drain) issue('BATON_DAPR_CALL_DRAIN_MS', drain);
  }
  return config;
});
export type Config = z.output<typeof ConfigSchema>;

export class ConfigError extends Error {}

/** Reads the configuration; a bad value stops the start with a message naming the variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const r = ConfigSchema.safeParse(present);
  if (!r.success) {
    const lines = r.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message} (got ${JSON.stringify(present[String(i.path[0])])})`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return r.data;
}
