import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';
import type { TaskDef, WorkflowDef } from '../model/definitions';
import type { EventHandler, EventExecution } from '../model/events';
import type { Task, TaskExecLog, WorkflowRecord } from '../model/execution';
import type { Effect } from '../model/effects';
import type { AccessKeyRecord, ApplicationRecord } from '../model/applications';
import type { SchemaDef } from '../model/schemas';
import type { StoredSecret } from '../model/secrets';
import type { CustomRoleRecord, GrantRecord, GroupRecord, SubjectRef, TargetRef, UserRecord } from '../model/authorization';
import type { TaskLogLimits } from './task-log-limits';

/**
 * The stored form of one execution: the workflow row (without tasks), its tasks, and the outbox of
 * effects it still owes. `rev` increases by one with every commit and fences stale writers.
 */
export interface StoredExecution {
  workflow: WorkflowRecord;
  tasks: Task[];
  outbox: Effect[];
  rev: number;
}

/** One actor turn, written atomically. */
export interface ExecutionCommit {
  workflow: WorkflowRecord;
  /** Tasks created or changed in this turn (full records). Unchanged tasks are not rewritten. */
  upsertTasks: Task[];
  /** Task ids deleted in this turn (restart, rerun). */
  deleteTaskIds: string[];
  /** Effects still owed after this turn, replacing the stored outbox. */
  outbox: Effect[];
  /** rev of the state this turn was computed from; 0 for a new execution. The store writes rev+1. */
  expectedRev: number;
  /** True when the workflow row equals the stored one (only tasks, outbox and rev change); an adapter may skip rewriting it. */
  workflowUnchanged?: boolean;
}

/** Thrown when expectedRev does not match: another activation of the same actor wrote first (503 STALE_WRITE: retry). */
export class StaleWriteError extends BatonError {
  constructor(
    readonly workflowId: string,
    readonly expectedRev: number,
  ) {
    super(...namedArgs(Errors.STALE_WRITE(workflowId, expectedRev)));
  }
}

/**
 * 500, not retryable: a conditional commit was sent, and neither its answer nor the read that settles it came
 * back, so it may have taken effect. Repeating the request blindly could do its work twice.
 */
export class CommitOutcomeUnknown extends BatonError {
  constructor(
    readonly workflowId: string,
    cause: string,
  ) {
    super(
      ...namedArgs(
        Errors.OUTCOME_UNKNOWN(
          `Outcome unknown: the store could not confirm whether the write to workflow ${workflowId} took effect (${cause}). Look it up (GET /api/workflow/${workflowId}) before repeating the request`,
        ),
      ),
    );
  }
}

/** Thrown when a payload is larger than the store accepts. */
export class PayloadTooLargeError extends BatonError {
  constructor(message: string) {
    super(...namedArgs(Errors.STORE_PAYLOAD_TOO_LARGE(message)));
  }
}

export interface ExecutionStore {
  /** Writes one turn atomically; throws StaleWriteError when `expectedRev` is not the stored rev. */
  commit(c: ExecutionCommit): Promise<void>;
  load(workflowId: string): Promise<StoredExecution | undefined>;
  /**
   * The stored rev alone (undefined: no such execution): one read of the fence, no lock and no cache, so an
   * activation can tell whether another one has committed since it loaded.
   */
  revOf(workflowId: string): Promise<number | undefined>;
  /** Deletes the execution, its tasks, its task-id lookups and its outbox. */
  remove(workflowId: string): Promise<void>;
  getTask(taskId: string): Promise<Task | undefined>;
  workflowIdOfTask(taskId: string): Promise<string | undefined>;
  /** Ids of non-terminal (RUNNING or PAUSED) executions of a definition; all versions when version is undefined. */
  runningWorkflowIds(name: string, version?: number): Promise<string[]>;
  /** Ids of executions of `name` with this correlation id; only non-terminal unless includeClosed. */
  workflowIdsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<string[]>;
  /** Executions a restarted host must look at: non-terminal ones and any with a non-empty outbox. */
  idsNeedingRecovery(): AsyncIterable<string>;
  /** Every stored execution id, open or closed, in no particular order (rebuilding the search index). */
  listWorkflowIds(): AsyncIterable<string>;
  /** The longest log line and the most lines per task this store keeps. */
  readonly taskLogLimits: TaskLogLimits;
  /**
   * Appends log lines in order, each cut to the longest line kept, while their task has fewer lines than
   * the most it keeps; the rest are not stored. Answers how many were stored.
   */
  appendTaskLogs(logs: Array<TaskExecLog & { taskId: string; createdTime: number }>): Promise<number>;
  /** A task's log lines, oldest first, at most the most one task keeps. */
  taskLogs(taskId: string): Promise<TaskExecLog[]>;
  close(): Promise<void>;
}

export interface MetadataStore {
  putTaskDef(def: TaskDef): Promise<void>;
  getTaskDef(name: string): Promise<TaskDef | undefined>;
  listTaskDefs(): Promise<TaskDef[]>;
  deleteTaskDef(name: string): Promise<boolean>;
  putWorkflowDef(def: WorkflowDef): Promise<void>;
  /** The given version, or the highest version when version is undefined. */
  getWorkflowDef(name: string, version?: number): Promise<WorkflowDef | undefined>;
  listWorkflowDefs(): Promise<WorkflowDef[]>;
  deleteWorkflowDef(name: string, version: number): Promise<boolean>;
  putEventHandler(h: EventHandler): Promise<void>;
  getEventHandler(name: string): Promise<EventHandler | undefined>;
  listEventHandlers(): Promise<EventHandler[]>;
  deleteEventHandler(name: string): Promise<boolean>;
  addEventExecution(e: EventExecution): Promise<void>;
  listEventExecutions(handlerName?: string): Promise<EventExecution[]>;
  // Applications and access keys (src/auth): admin operations, a handful of records.
  putApplication(app: ApplicationRecord): Promise<void>;
  getApplication(id: string): Promise<ApplicationRecord | undefined>;
  listApplications(): Promise<ApplicationRecord[]>;
  /** How many there are, counting no further than `atMost` (bounded work however many are stored): for the cap on creating more. */
  countApplications(atMost: number): Promise<number>;
  deleteApplication(id: string): Promise<boolean>;
  putAccessKey(key: AccessKeyRecord): Promise<void>;
  getAccessKey(id: string): Promise<AccessKeyRecord | undefined>;
  listAccessKeys(applicationId: string): Promise<AccessKeyRecord[]>;
  deleteAccessKey(id: string): Promise<boolean>;
  /** Stores `value` under `name` unless a value is there already; answers the stored value (replicas racing agree on one). */
  putSettingIfAbsent(name: string, value: string): Promise<string>;
  close(): Promise<void>;
}

/** Who holds an idempotency key of a workflow name, since when (epoch ms). */
export interface IdempotencyClaim {
  workflowId: string;
  claimedAt: number;
}

/**
 * Idempotency keys of starts, scoped per workflow name. Each operation is one atomic step, so starts
 * racing on one key (in one process or across replicas) agree on a single owner.
 */
export interface IdempotencyKeyStore {
  /** Claims `key` for `workflowId` unless someone holds it; answers the holder (this claim when it was free). */
  claim(name: string, key: string, workflowId: string, now: number): Promise<IdempotencyClaim>;
  /** Hands the key from `from` to `to` only while `from` still holds it; answers whether it moved. */
  reassign(name: string, key: string, from: string, to: string, now: number): Promise<boolean>;
  /** Drops the key when `workflowId` holds it (its execution was removed, or its start failed). */
  release(name: string, key: string, workflowId: string): Promise<void>;
}

/** JSON schemas by name and version (the /api/schema API; definitions name them as input and output schemas). */
export interface SchemaStore {
  /** Writes (or replaces) the schema at its version. */
  put(schema: SchemaDef): Promise<void>;
  /** The given version, or the highest when version is undefined. */
  get(name: string, version?: number): Promise<SchemaDef | undefined>;
  /** Every version of every schema, by name then version. */
  list(): Promise<SchemaDef[]>;
  /** Versions stored, of every name, counting no further than `atMost`: for the cap on creating more. */
  count(atMost: number): Promise<number>;
  /** Deletes one version, or every version when version is undefined; answers whether anything was there. */
  delete(name: string, version?: number): Promise<boolean>;
}

/** Secrets (src/secrets): values arrive sealed; the store never sees them in clear. */
export interface SecretStore {
  putSecret(s: StoredSecret): Promise<void>;
  getSecret(name: string): Promise<StoredSecret | undefined>;
  /** Every secret, by name. */
  listSecrets(): Promise<StoredSecret[]>;
  /** How many there are, counting no further than `atMost` (bounded work however many are stored): for the cap on creating more. */
  countSecrets(atMost: number): Promise<number>;
  deleteSecret(name: string): Promise<boolean>;
}

/** Users, groups, custom roles and grants of Orkes' authorization API (src/auth/authorization-service.ts): a handful of admin-written records. */
export interface AuthorizationStore {
  putUser(u: UserRecord): Promise<void>;
  getUser(id: string): Promise<UserRecord | undefined>;
  /** Every user, by id. */
  listUsers(): Promise<UserRecord[]>;
  deleteUser(id: string): Promise<boolean>;
  putGroup(g: GroupRecord): Promise<void>;
  getGroup(id: string): Promise<GroupRecord | undefined>;
  /** Every group, by id. */
  listGroups(): Promise<GroupRecord[]>;
  deleteGroup(id: string): Promise<boolean>;
  /** Replaces the grant of the same subject on the same target. */
  putGrant(g: GrantRecord): Promise<void>;
  /** The grants on one target, by subject. */
  grantsOn(target: TargetRef): Promise<GrantRecord[]>;
  /** Every grant, by target then subject. */
  listGrants(): Promise<GrantRecord[]>;
  deleteGrant(target: TargetRef, subject: SubjectRef): Promise<boolean>;
  putRole(r: CustomRoleRecord): Promise<void>;
  getRole(name: string): Promise<CustomRoleRecord | undefined>;
  /** Every custom role, by name. */
  listRoles(): Promise<CustomRoleRecord[]>;
  deleteRole(name: string): Promise<boolean>;
}
