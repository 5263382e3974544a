import http from 'node:http';
import os from 'node:os';
import pino, { type Logger } from 'pino';
import { createRequestHandler } from './app';
import { createAccessControl } from './auth/access-control';
import { authSettings } from './auth/auth-settings';
import type { Config } from './config';
import { QueueActor } from './actors/queue-actor';
import { Purger } from './retention/purger';
import { retentionRules } from './retention/policy';
import { RetentionLoop } from './retention/retention-loop';
import { ArchivedExecutions } from './retention/archived-executions';
import { RecoveryScan, type ScanLease } from './services/recovery-scan';
import { BatchRunner } from './batch/batch-runner';
import { BatchService } from './batch/batch-service';
import { executionActions } from './services/execution-actions';
import { WorkflowActor } from './actors/workflow-actor';
import { ScheduleActor } from './actors/schedule-actor';
import { ScheduleCalls, scheduleActor } from './actors/protocol/schedule-protocol';
import { ScheduleService } from './services/schedule-service';
import { WorkflowCalls, workflowActor } from './actors/protocol/workflow-protocol';
import { QueueCalls, queueActor } from './actors/protocol/queue-protocol';
import type { EngineEnv } from './engine/state';
import type { ActorFactory } from './runtime/ports';
import { outsideTurn } from './runtime/turn-context';
import type { Adapters } from './composition/adapters';
import { embeddedAdapters } from './composition/embedded';
import { completionHandler } from './composition/task-completions';
import { createScriptEngine } from './scripting/script-engine';
import { EventProcessor } from './services/event-processor';
import { EffectRunner } from './services/effect-runner';
import { StartAdmission } from './services/start-admission';
import { ExecutionWaiter } from './services/execution-waiter';
import { HttpTaskWorker } from './services/http-task-worker';
import { parseEgressRules } from './services/http-task/egress-policy';
import { Indexer } from './services/indexer';
import { isTerminalWorkflow } from './model/statuses';
import { LongPollSlots } from './limits/long-poll-slots';
import { MetadataService } from './services/metadata-service';
import { SchemaEnforcer } from './services/schema-enforcer';
import { SecretService } from './services/secret-service';
import { secretKeyOf } from './secrets/secret-key';
import { QueuePartitions, queueNameOfActorId } from './services/queues';
import { TaskService } from './services/task-service';
import { WorkflowService } from './services/workflow-service';
import { noMetrics, type Metrics } from './metrics/ports';
import { PrometheusMetrics } from './metrics/prometheus-metrics';
import { timedCalls } from './metrics/timed-calls';
import { observedActor } from './telemetry/observed-actors';
import { createTracing } from './telemetry/tracing';
import { derivedUuid, newId } from './ids';
import { ExternalPayloads } from './objects/external-payloads';
import { ExternalizingExecutionStore } from './objects/externalizing-execution-store';
import { IN_FLIGHT_WAIT_MS } from './services/idempotency-decision';

/** How long a location's link (GET /api/{workflow,tasks}/externalstoragelocation) stays valid. */
const EXTERNAL_PAYLOAD_LINK_TTL_SECONDS = 300;

const VERSION = '0.1.0';

export interface RunningServer {
  port: number;
  log: Logger;
  /** The listening HTTP server (tests stop it abruptly to simulate a dead replica). */
  httpServer: http.Server;
  close(): Promise<void>;
}

/** The composition root: config -> adapters -> actors -> app -> listen. */
export async function createServer(cfg: Config, log: Logger = pino({ level: cfg.LOG_LEVEL })): Promise<RunningServer> {
  // Before any adapter opens: auth on without an admin key stops the start, naming the variables.
  const auth = authSettings(cfg);
  // The profile decides the adapters; everything below is the same for both.
  // The Dapr, Cassandra and Elasticsearch clients load only when the distributed profile runs.
  const adapters: Adapters =
    cfg.BATON_PROFILE === 'distributed' ? await (await import('./composition/distributed')).distributedAdapters(cfg, log) : await embeddedAdapters(cfg, log);
  const { host, wakeUps, limits, bus } = adapters;
  // Metrics and traces: prom-client behind the Metrics port; spans only when an OTLP endpoint is set.
  const prometheus = cfg.BATON_METRICS_ENABLED ? new PrometheusMetrics({ maxLabelValues: cfg.BATON_METRICS_MAX_LABEL_VALUES }) : undefined;
  const metrics: Metrics = prometheus ?? noMetrics;
  const tracing = createTracing(cfg, { version: VERSION, hostName: os.hostname() });
  const tracer = tracing?.tracer;
  const observed = prometheus !== undefined || tracer !== undefined;
  // Conductor's external payload storage in the object store; large payloads leave the execution rows.
  const payloads = new ExternalPayloads(adapters.objects, {
    workflowThresholdBytes: cfg.BATON_WORKFLOW_PAYLOAD_THRESHOLD_BYTES,
    taskThresholdBytes: cfg.BATON_TASK_PAYLOAD_THRESHOLD_BYTES,
    workflowMaxBytes: cfg.BATON_WORKFLOW_PAYLOAD_MAX_BYTES,
    taskMaxBytes: cfg.BATON_TASK_PAYLOAD_MAX_BYTES,
    linkTtlSeconds: EXTERNAL_PAYLOAD_LINK_TTL_SECONDS,
    maxJsonDepth: cfg.BATON_MAX_JSON_DEPTH,
  });
  const executions = new ExternalizingExecutionStore(adapters.stores.executions, payloads, log);
  const stores = observed
    ? {
        executions: timedCalls(executions, (op, s) => metrics.storeOperation('execution', op, s), tracer && { tracer, prefix: 'store' }),
        metadata: timedCalls(adapters.stores.metadata, (op, s) => metrics.storeOperation('metadata', op, s), tracer && { tracer, prefix: 'metadata' }),
        schedules: timedCalls(adapters.stores.schedules, (op, s) => metrics.storeOperation('schedule', op, s), tracer && { tracer, prefix: 'schedules' }),
        idempotencyKeys: timedCalls(
          adapters.stores.idempotencyKeys,
          (op, s) => metrics.storeOperation('idempotency', op, s),
          tracer && { tracer, prefix: 'idempotency' },
        ),
        schemas: timedCalls(adapters.stores.schemas, (op, s) => metrics.storeOperation('schema', op, s), tracer && { tracer, prefix: 'schemas' }),
        secrets: timedCalls(adapters.stores.secrets, (op, s) => metrics.storeOperation('secret', op, s), tracer && { tracer, prefix: 'secrets' }),
        authorization: timedCalls(
          adapters.stores.authorization,
          (op, s) => metrics.storeOperation('authorization', op, s),
          tracer && { tracer, prefix: 'authorization' },
        ),
        batches: adapters.stores.batches,
      }
    : { ...adapters.stores, executions };
  const index = observed ? timedCalls(adapters.index, (op, s) => metrics.indexOperation(op, s), tracer && { tracer, prefix: 'index' }) : adapters.index;
  const registerActor = (type: string, factory: ActorFactory): void =>
    host.register(type, observed ? observedActor(type, adapters.wrapActor(type, factory), metrics, tracer) : adapters.wrapActor(type, factory));
  const scripts = await createScriptEngine({
    timeoutMs: cfg.BATON_SCRIPT_TIMEOUT_MS,
    memoryLimitBytes: cfg.BATON_SCRIPT_MEMORY_MB * 1024 * 1024,
    workers: cfg.BATON_SCRIPT_WORKERS,
    queueTimeoutMs: cfg.BATON_SCRIPT_QUEUE_TIMEOUT_MS,
    maxResultBytes: cfg.BATON_TASK_PAYLOAD_MAX_BYTES,
  });
  const metadata = new MetadataService(stores.metadata, cfg.BATON_METADATA_CACHE_TTL_MS, {
    maxBytes: cfg.BATON_MAX_DEFINITION_BYTES,
    maxCount: cfg.BATON_MAX_DEFINITIONS,
  });
  await metadata.start();
  const secrets = new SecretService(
    stores.secrets,
    secretKeyOf({ configured: cfg.BATON_SECRETS_KEY, profile: cfg.BATON_PROFILE, dataDir: cfg.BATON_DATA_DIR }),
    Date.now,
    cfg.BATON_MAX_SECRETS,
  );
  const access = await createAccessControl(auth, { metadata: stores.metadata, authorization: stores.authorization }, log, adapters.attempts);
  await adapters.watchDefinitions(metadata);
  const partitions = new QueuePartitions(cfg.BATON_QUEUE_PARTITIONS, (name) => adapters.directory.recordQueue(name));
  const indexer = new Indexer(index, log, { delayMs: cfg.BATON_INDEX_FLUSH_MS, holdMs: cfg.BATON_INDEX_OPEN_HOLD_MS });
  // Queue partitions: the profile's own (Redis) or QueueActors on the actor host.
  const queueStore = adapters.queues;
  const queues = queueStore ? (id: string) => queueStore.partition(id) : (id: string) => queueActor(host, id);
  const tasks = new TaskService({
    host,
    queues,
    partitions,
    store: stores.executions,
    metadata,
    limits,
    wakeUps,
    log,
    directory: adapters.directory,
    directoryRefreshMs: adapters.directoryRefreshMs,
    longPolls: new LongPollSlots(cfg.BATON_MAX_LONG_POLLS_PER_CLIENT),
  });
  const schemaEnforcer = new SchemaEnforcer(
    stores.schemas,
    stores.executions,
    (name) => metadata.taskDef(name),
    () => metadata.anyTaskOutputSchema(),
  );
  const admission = new StartAdmission(adapters.lineage, {
    maxGenerations: cfg.BATON_MAX_WORKFLOW_GENERATIONS,
    maxDescendantsPerRoot: cfg.BATON_MAX_DESCENDANTS_PER_ROOT,
    maxStartsPerRootPerSecond: cfg.BATON_MAX_STARTS_PER_ROOT_PER_SECOND,
  });
  const effects = new EffectRunner({
    host,
    queues,
    partitions,
    store: stores.executions,
    metadata,
    indexer,
    bus,
    limits,
    wakeUps,
    log,
    schemas: schemaEnforcer,
    admission,
  });
  const hostName = os.hostname();
  // Wakes execute/signal requests waiting on an execution as soon as one of its turns commits.
  const waiter = new ExecutionWaiter();
  const env = (): EngineEnv => ({
    now: Date.now(),
    newId,
    derivedId: derivedUuid,
    doWhileMaxIterations: cfg.BATON_DO_WHILE_MAX_ITERATIONS,
    jsonPathMaxSteps: cfg.BATON_JSONPATH_MAX_STEPS,
    jsonPathMaxDepth: cfg.BATON_JSONPATH_MAX_DEPTH,
    maxSubWorkflowDepth: cfg.BATON_MAX_SUBWORKFLOW_DEPTH,
    maxWorkflowGenerations: cfg.BATON_MAX_WORKFLOW_GENERATIONS,
    maxForkWidth: cfg.BATON_MAX_FORK_WIDTH,
    maxTasksPerExecution: cfg.BATON_MAX_TASKS_PER_EXECUTION,
    taskPayloadMaxBytes: cfg.BATON_TASK_PAYLOAD_MAX_BYTES,
    workflowPayloadMaxBytes: cfg.BATON_WORKFLOW_PAYLOAD_MAX_BYTES,
    taskDef: (name) => metadata.taskDef(name),
    isDomainActive: tasks.isDomainActive,
    hostName,
  });
  registerActor(
    WorkflowCalls.type,
    (ctx) =>
      new WorkflowActor(ctx, {
        store: stores.executions,
        env,
        runEffects: async (id, e, state) => (adapters.queueEffects === 'afterTurn' ? effects.runAfterTurn(id, e, state) : effects.runImmediate(id, e, state)),
        scripts,
        runDeferred: (id, e) => effects.runDeferred(id, e),
        index: (state, changed, workflowChanged) => {
          indexer.add(workflowChanged ? state.workflow : undefined, changed, isTerminalWorkflow(state.workflow.status));
          waiter.changed(state.workflow.workflowId);
        },
        removeFromIndex: (id) => indexer.remove(id),
        actorOf: (id) => workflowActor(host, id),
        log,
        sweepIntervalMs: cfg.BATON_SWEEP_INTERVAL_MS,
        metrics,
      }),
  );
  // Wake-ups are per queue name; the partition's actor id encodes it (queueActorId).
  if (!adapters.queues)
    registerActor(
      QueueCalls.type,
      (ctx) =>
        new QueueActor(ctx, (id) => wakeUps.notify(queueNameOfActorId(id)), {
          onDepth: prometheus && ((id, entries) => metrics.queueDepth(id, queueNameOfActorId(id), entries)),
        }),
    );
  else
    prometheus?.readClusterQueueDepths(async () => {
      const ids = (await tasks.knownQueues()).flatMap((name) => partitions.actorIds(name));
      const depths = await queueStore!.depths(ids);
      const byQueue = new Map<string, number>();
      ids.forEach((id, i) => byQueue.set(queueNameOfActorId(id), (byQueue.get(queueNameOfActorId(id)) ?? 0) + (depths[i] ?? 0)));
      return byQueue;
    });
  adapters.onTaskCompletion(completionHandler(host, log));
  const archived = adapters.retention && new ArchivedExecutions(adapters.retention.store, adapters.objects, stores.executions);
  const workflows = new WorkflowService(
    host,
    stores.executions,
    metadata,
    stores.idempotencyKeys,
    schemaEnforcer,
    admission,
    IN_FLIGHT_WAIT_MS,
    payloads,
    archived,
  );
  registerActor(
    ScheduleCalls.type,
    (ctx) =>
      new ScheduleActor(ctx, {
        store: stores.schedules,
        startWorkflow: (req, workflowId) => workflows.start(req, { workflowId }),
        derivedId: derivedUuid,
        now: Date.now,
        graceMs: cfg.BATON_SCHEDULE_GRACE_MS,
        maxCatchUp: cfg.BATON_SCHEDULE_MAX_CATCHUP,
        log,
        afterTurn: (work) => void outsideTurn(work),
        self: (name) => scheduleActor(host, name),
      }),
  );
  const schedules = new ScheduleService(stores.schedules, host, Date.now, cfg.BATON_MAX_SCHEDULES);
  // Every schedule that is not paused gets its reminder (idempotent: an armed one is re-armed at the same slot).
  const syncSchedules = async (): Promise<void> => {
    const armed = await schedules.syncAll((name, err) => log.warn({ err, schedule: name }, 'arming a schedule failed'));
    if (armed > 0) log.info({ schedules: armed }, 'schedules armed');
  };
  const batches = new BatchService(stores.batches, index, { maxMatches: cfg.BATON_BATCH_MAX_MATCHES, maxOpen: cfg.BATON_BATCH_MAX_OPEN }, Date.now, newId);
  const actions = executionActions(() => workflows);
  // Without a cluster this process is the only runner: its lease is always held.
  const soleRunner: ScanLease = { acquire: async () => true, release: async () => undefined };
  const batchRunner = new BatchRunner({
    store: stores.batches,
    // Remove deletes for good, search entry included, as the console's bulk remove does.
    act: (action, id, reason) => actions[action](id, { reason, archive: false }),
    lease: adapters.batchLease ?? soleRunner,
    intervalMs: cfg.BATON_BATCH_INTERVAL_MS,
    // Renewed before each execution; a replica that dies hands its batches over within this.
    leaseTtlMs: Math.max(cfg.BATON_BATCH_INTERVAL_MS * 3, 30_000),
    budget: cfg.BATON_BATCH_BUDGET,
    now: Date.now,
    log,
  });
  const eventProcessor = new EventProcessor({ metadata: stores.metadata, executions: stores.executions, workflows, scripts, derivedId: derivedUuid, log });
  bus.subscribe(eventProcessor.handle);

  // Recovery: queues are derived data; every open execution re-pushes its SCHEDULED tasks and re-runs its outbox.
  let stopping = false;
  const recover = async (): Promise<void> => {
    let recovered = 0;
    for await (const id of stores.executions.idsNeedingRecovery()) {
      if (stopping) return;
      await workflowActor(host, id)
        .recover()
        .catch((e) => log.error({ err: e, workflowId: id }, 'recovery failed'));
      recovered++;
    }
    if (recovered > 0) log.info({ recovered }, 'recovered open executions');
  };
  if (adapters.startHost === 'beforeListen') {
    await host.start();
    await recover();
    await syncSchedules();
  }

  let scan: RecoveryScan | undefined;
  const retention = adapters.retention;
  const purge =
    retention &&
    new RetentionLoop({
      purger: new Purger({
        store: stores.executions,
        removeFromIndex: (id) => indexer.remove(id),
        search: index,
        periods: adapters.index.periodIndices?.(),
        retention: retention.store,
        objects: adapters.objects,
        idempotencyKeys: stores.idempotencyKeys,
        rules: async () => retentionRules(await stores.metadata.listWorkflowDefs(), { days: cfg.BATON_RETENTION_DAYS, archive: cfg.BATON_RETENTION_ARCHIVE }),
        now: Date.now,
        reclaim: retention.reclaim,
        log,
      }),
      lease: retention.lease,
      intervalMs: cfg.BATON_RETENTION_INTERVAL_MS,
      budget: cfg.BATON_RETENTION_BATCH,
      log,
    });
  const httpWorker = new HttpTaskWorker(tasks, log, {
    secrets,
    concurrency: cfg.BATON_HTTP_TASK_WORKERS,
    hostName,
    perHost: cfg.BATON_HTTP_TASK_PER_HOST,
    queuePerHost: cfg.BATON_HTTP_TASK_QUEUE_PER_HOST,
    maxResponseBytes: cfg.BATON_HTTP_TASK_MAX_RESPONSE_BYTES,
    maxTimeoutMs: cfg.BATON_HTTP_TASK_MAX_TIMEOUT_MS,
    maxRedirects: cfg.BATON_HTTP_TASK_MAX_REDIRECTS,
    allow: parseEgressRules(cfg.BATON_HTTP_TASK_ALLOW),
    deny: parseEgressRules(cfg.BATON_HTTP_TASK_DENY),
    allowOnly: cfg.BATON_HTTP_TASK_ALLOW_ONLY,
  });

  const handler = createRequestHandler({
    workflows,
    tasks,
    metadata,
    secrets,
    store: stores.executions,
    index,
    log,
    maxBodyBytes: cfg.BATON_MAX_BODY_BYTES,
    maxJsonDepth: cfg.BATON_MAX_JSON_DEPTH,
    version: VERSION,
    mount: adapters.mount,
    waiter,
    config: cfg,
    access,
    schedules,
    incomingEvents: eventProcessor.handle,
    schemas: stores.schemas,
    maxSchemas: cfg.BATON_MAX_SCHEMAS,
    schemaEnforcer,
    metrics: prometheus,
    tracer,
    healthy: host.healthy && (() => host.healthy!()),
    objectLinks: adapters.objectLinks,
    payloads,
    batches,
  });
  if (adapters.startHost === 'afterListen' && adapters.scanLease && cfg.BATON_RECOVERY_SCAN_INTERVAL_MS > 0) {
    scan = new RecoveryScan({
      ids: () => stores.executions.idsNeedingRecovery(),
      recover: (id) => workflowActor(host, id).recover(),
      lease: adapters.scanLease,
      roster: adapters.scanRoster,
      tickMs: cfg.BATON_RECOVERY_SCAN_TICK_MS,
      concurrency: cfg.BATON_RECOVERY_SCAN_CONCURRENCY,
      intervalMs: cfg.BATON_RECOVERY_SCAN_INTERVAL_MS,
      ratePerSecond: cfg.BATON_RECOVERY_SCAN_RATE,
      callTimeoutMs: cfg.BATON_RECOVERY_SCAN_CALL_TIMEOUT_MS,
      maxConsecutiveFailures: cfg.BATON_RECOVERY_SCAN_MAX_FAILURES,
      log,
    });
    // Before the sidecar can place an actor here (it reads /dapr/config once the port accepts).
    await scan.join().catch((err: unknown) => log.warn({ err }, 'could not mark this replica alive; its first tick does'));
  }
  const server = http.createServer(handler);
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(cfg.PORT, auth.bind, () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  adapters.objectLinks?.listening(port, auth.bind);
  if (adapters.startHost === 'afterListen') {
    // The sidecar reads /dapr/config once the port accepts; recovery of a restarted replica runs behind.
    try {
      await host.start();
    } catch (e) {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await scripts.dispose();
      await adapters.close().catch(() => undefined);
      throw e;
    }
    scan?.start();
    // Behind the start, like recovery: a schedule's reminder fires on whichever replica hosts its actor.
    void syncSchedules().catch((err) => log.warn({ err }, 'arming schedules failed'));
  }
  purge?.start();
  batchRunner.start();
  // An HTTP task must not call Baton itself, nor its sidecar.
  httpWorker.start(cfg.BATON_PROFILE === 'distributed' ? [port, cfg.DAPR_HTTP_PORT] : [port]);
  log.info(
    {
      port,
      bind: auth.bind,
      auth: auth.enabled ? 'on' : 'off',
      profile: cfg.BATON_PROFILE,
      store: cfg.BATON_STORE,
      index: cfg.BATON_INDEX,
      dataDir: cfg.BATON_DATA_DIR,
    },
    'Baton listening',
  );

  let closing: Promise<void> | undefined;
  return {
    port,
    log,
    httpServer: server,
    close() {
      closing ??= (async () => {
        stopping = true;
        // Each step timed: a stop that reaches its exit deadline says which step it waited on.
        const step = async (name: string, run: () => Promise<unknown> | unknown): Promise<void> => {
          const t0 = Date.now();
          await run();
          log.info({ step: name, ms: Date.now() - t0 }, 'shutdown step done');
        };
        // At once: no more claims, and tasks waiting for their host go back to their queue while actor calls are still served.
        const httpWorkerStopped = httpWorker.stop();
        await step('background loops', async () => {
          await scan?.stop();
          await purge?.stop();
          await batchRunner.stop();
        });
        // Sidecars keep routing actor calls here until they see the replica unhealthy: serve them meanwhile.
        await step('actor drain', () => host.drain?.());
        await step('HTTP task worker', () => httpWorkerStopped);
        await step(
          'HTTP connections',
          () =>
            new Promise<void>((resolve) => {
              server.close(() => resolve());
              server.closeIdleConnections();
              setTimeout(() => server.closeAllConnections(), cfg.BATON_SHUTDOWN_TIMEOUT_MS).unref();
            }),
        );
        tasks.stop();
        await step('actor host', () => host.stop());
        await step('index flush', () => indexer.flush());
        metadata.stop();
        await step('script engine', () => scripts.dispose());
        await step('stores and clients', () => adapters.close());
        await tracing?.shutdown().catch((err: unknown) => log.warn({ err }, 'flushing the last spans failed'));
      })();
      return closing;
    },
  };
}
