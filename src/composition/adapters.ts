import type { Express } from 'express';
import type { TaskCompletionMessage } from '../events/dapr/task-completion-message';
import type { EventBus } from '../events/ports';
import type { SearchIndex } from '../search/ports';
import type { FailedAttempts, LineageCounters, QueueDirectory, TaskLimits, WakeUps } from '../limits/ports';
import type { ObjectStore } from '../objects/object-store';
import type { ServedObjectLinks } from '../objects/open-object-store';
import type { QueuePartitionStore } from '../queues/ports';
import type { ActorFactory, ActorHost } from '../runtime/ports';
import type { Reclaimed, RetentionStore } from '../retention/ports';
import type { MetadataService } from '../services/metadata-service';
import type { ReplicaRoster, ScanLease } from '../services/recovery-scan';
import type { AuthorizationStore, ExecutionStore, IdempotencyKeyStore, MetadataStore, SchemaStore, SecretStore } from '../store/ports';
import type { ScheduleStore } from '../store/schedule-store';
import type { BatchStore } from '../store/batch-store';

/** What a profile plugs into the one composition root (src/server.ts); both profiles return this set. */
export interface Adapters {
  stores: {
    executions: ExecutionStore;
    metadata: MetadataStore;
    schedules: ScheduleStore;
    idempotencyKeys: IdempotencyKeyStore;
    schemas: SchemaStore;
    secrets: SecretStore;
    authorization: AuthorizationStore;
    batches: BatchStore;
  };
  index: SearchIndex;
  /** External payloads and the archive (BATON_OBJECT_STORE). */
  objects: ObjectStore;
  /** The links Baton serves itself when the object store is a directory (GET|PUT /api/objects/{key}). */
  objectLinks?: ServedObjectLinks;
  host: ActorHost;
  wakeUps: WakeUps;
  limits: TaskLimits;
  /** Failed token requests, counted across replicas. */
  attempts: FailedAttempts;
  /** Descendant starts per root execution, shared by the replicas. */
  lineage: LineageCounters;
  /** Poll data and queue names, shared by the replicas. */
  directory: QueueDirectory;
  /** How often a replica refreshes its view of others' polls (0 in the embedded profile). */
  directoryRefreshMs: number;
  bus: EventBus;
  /** Task-queue partitions outside the actor host (Redis); absent: QueueActors on `host`. */
  queues?: QueuePartitionStore;
  /** Routes mounted before the body parsers (the Dapr app channel). */
  mount?: (app: Express) => void;
  /**
   * Where the host starts: 'beforeListen' (embedded: recover every open execution, then serve) or
   * 'afterListen' (Dapr: the sidecar reads /dapr/config once the port opens; the paced recovery scan
   * of one replica at a time takes the place of a start-up pass).
   */
  startHost: 'beforeListen' | 'afterListen';
  /**
   * When a turn's queue pushes and removals run: awaited inside the turn ('inTurn', the embedded
   * host), or started as the turn ends ('afterTurn', Dapr: no actor call nested in another).
   */
  queueEffects: 'inTurn' | 'afterTurn';
  /** Cluster-wide lease of the recovery scan (distributed profile). */
  scanLease?: ScanLease;
  /** The replicas that mark themselves alive: one that stops marking sets a recovery pass off at once. */
  scanRoster?: ReplicaRoster;
  /** The purge's journal and archive lookup, its lease, and (SQLite) the reclaiming of freed pages; absent: no purging. */
  retention?: { store: RetentionStore; lease: ScanLease; reclaim?: () => Promise<Reclaimed> };
  /** Cluster-wide lease of the batch runner (distributed profile); absent: this process runs every batch. */
  batchLease?: ScanLease;
  /** Wraps the factory of an actor type before registration (per-profile turn behaviour). */
  wrapActor(type: string, factory: ActorFactory): ActorFactory;
  /** Connects the definition cache to changes made by other replicas: `refresh` reloads it, `taskDef` reads it. */
  watchDefinitions(cache: Pick<MetadataService, 'refresh' | 'taskDef'>): Promise<void>;
  /** Registers the consumer of task completions published by other services (a no-op without a broker). */
  onTaskCompletion(handler: (m: TaskCompletionMessage, eventId: string) => Promise<void>): void;
  /** Closes every adapter (after the host stopped). */
  close(): Promise<void>;
}
