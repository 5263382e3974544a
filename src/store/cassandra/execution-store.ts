// Over 400 lines: the ExecutionStore port on Cassandra is one unit (commit, fenced by LWT, and every read of the same tables).
import { type Client, errors, type QueryOptions, types } from 'cassandra-driver';
import type { TaskExecLog, Task } from '../../model/execution';
import { socketError } from './unavailable';
import { CommitOutcomeUnknown, type ExecutionCommit, type ExecutionStore, StaleWriteError, type StoredExecution } from '../ports';
import { assertPayloadLimits, DEFAULT_PAYLOAD_LIMITS, type PayloadLimits } from '../payload-limits';
import { storedLogLine, type TaskLogLimits } from '../task-log-limits';
import { recoveryFamily, runningFamily } from './generations';
import { indexPlan, removalWrites, type Write } from './index-plan';
import { type OpenEntry, OpenIndexReader, type Verify } from './open-index';
import {
  decodeKeys,
  DEFAULT_INDEX_LAYOUT,
  effectiveDeletes,
  encodeKeys,
  encodeOutbox,
  encodeTask,
  encodeWorkflow,
  executionFromRows,
  type ExecutionRow,
  type IndexKeys,
  type IndexLayout,
  indexKeysOf,
  sameKeys,
  toNumber,
} from './rows';
import { executionStatements, type ExecutionStatements } from './statements';

export interface CassandraExecutionStoreOptions {
  keyspace: string;
  consistency?: types.consistencies;
  payloadLimits?: PayloadLimits;
  layout?: IndexLayout;
  /**
   * Index writes that fail after a turn is durable are reported here (the next load or commit repairs
   * them), and failures of the maintenance pass (no workflow id).
   */
  onIndexError?: (err: unknown, workflowId?: string) => void;
  /** Interval of the maintenance pass that seals the open indexes' generations (sealIndexes), ms; 0 or unset: none. */
  maintenanceIntervalMs?: number;
  now?: () => number;
  /** How many executions' index state is remembered between load and commit (saves one read per turn). */
  cacheSize?: number;
}

/** What this process knows the stored execution looks like after its last load or commit. */
interface Known {
  rev: number;
  indexed: IndexKeys | undefined;
  /** Task ids whose lookup rows exist; undefined when unknown (then every upserted task gets one). */
  taskIds: Set<string> | undefined;
}

const PAGE = 500;
// Registry rows of the open indexes this process wrote (they are never deleted while readable); bounded.
const REGISTRY_CACHE = 10_000;
const MAINTAINED_NAMES = 1_000;

/** ExecutionStore over Cassandra: one partition per execution, rev fenced with a lightweight transaction (docs/cassandra.md). */
export class CassandraExecutionStore implements ExecutionStore {
  private readonly q: ExecutionStatements;
  private readonly consistency: types.consistencies;
  private readonly limits: PayloadLimits;
  private readonly layout: IndexLayout;
  private readonly now: () => number;
  private readonly known = new Map<string, Known>();
  private readonly cacheSize: number;
  private readonly registryWritten = new Set<string>();
  private readonly open: OpenIndexReader;
  /** Workflow names this process indexed as running: the maintenance pass seals their generations (bounded). */
  private readonly runningNames = new Set<string>();
  private readonly maintenance: NodeJS.Timeout | undefined;

  constructor(
    private readonly client: Client,
    private readonly opts: CassandraExecutionStoreOptions,
  ) {
    this.q = executionStatements(opts.keyspace);
    this.consistency = opts.consistency ?? types.consistencies.localQuorum;
    this.limits = opts.payloadLimits ?? DEFAULT_PAYLOAD_LIMITS;
    this.layout = opts.layout ?? DEFAULT_INDEX_LAYOUT;
    this.now = opts.now ?? Date.now;
    this.cacheSize = opts.cacheSize ?? 10_000;
    this.open = new OpenIndexReader(client, this.q, { consistency: this.consistency, layout: this.layout, now: this.now, run: (w) => this.run(w) });
    const every = opts.maintenanceIntervalMs ?? 0;
    if (every > 0) {
      // Jittered, so replicas started together do not seal the same generations at the same moment.
      let sealing = false;
      this.maintenance = setInterval(
        () => {
          if (sealing) return;
          sealing = true;
          this.sealIndexes()
            .catch((err: unknown) => this.opts.onIndexError?.(err))
            .finally(() => (sealing = false));
        },
        every * (0.75 + Math.random() / 2),
      );
      this.maintenance.unref();
    }
  }

  private idempotent(extra: QueryOptions = {}) {
    return { prepare: true, consistency: this.consistency, isIdempotent: true, ...extra };
  }

  private async run(writes: Write[]): Promise<void> {
    const todo = writes.filter((w) => w.registryKey === undefined || !this.registryWritten.has(w.registryKey));
    await Promise.all(todo.map((w) => this.client.execute(w.query, w.params, this.idempotent())));
    if (this.registryWritten.size > REGISTRY_CACHE) this.registryWritten.clear();
    for (const w of todo) if (w.registryKey !== undefined) this.registryWritten.add(w.registryKey);
  }

  private async runStages(stages: Write[][]): Promise<void> {
    for (const stage of stages) await this.run(stage);
  }

  private remember(workflowId: string, k: Known): void {
    this.known.delete(workflowId);
    this.known.set(workflowId, k);
    if (this.known.size > this.cacheSize) this.known.delete(this.known.keys().next().value as string);
  }

  async commit(c: ExecutionCommit): Promise<void> {
    assertPayloadLimits(c, this.limits);
    const id = c.workflow.workflowId;
    const prev = await this.knownAt(id, c.expectedRev);
    const now = this.now();
    const next = indexKeysOf(c.workflow, c.outbox, this.layout, prev.indexed, now);
    const plan = indexPlan(this.q, id, prev.indexed, next, this.layout, now);
    if (!next.terminal && this.runningNames.size < MAINTAINED_NAMES) this.runningNames.add(next.name);
    const deletes = effectiveDeletes(c.deleteTaskIds, c.upsertTasks);

    // Lookups and the recovery entry (and all open-index inserts, when nothing else follows) go first: if the batch then loses, they point at nothing and readers verify.
    const newTasks = c.upsertTasks.filter((t) => !prev.taskIds?.has(t.taskId));
    const [firstStage = [], ...laterStages] = plan.before;
    await this.runStages([[...newTasks.map((t) => ({ query: this.q.upsertTaskLookup, params: [t.taskId, id] })), ...firstStage], ...laterStages]);

    const commitId = types.Uuid.random();
    const workflowJson = encodeWorkflow(c.workflow);
    const outboxJson = encodeOutbox(c.outbox);
    const keysText = encodeKeys(next);
    const keysInBatch = plan.keysInBatch && !sameKeys(prev.indexed, next);
    const head: Write = keysInBatch
      ? c.expectedRev === 0
        ? { query: this.q.insertExecutionIndexed, params: [id, 1, commitId, workflowJson, outboxJson, keysText, keysText] }
        : { query: this.q.updateExecutionIndexed, params: [c.expectedRev + 1, commitId, workflowJson, outboxJson, keysText, keysText, id, c.expectedRev] }
      : c.expectedRev === 0
        ? { query: this.q.insertExecution, params: [id, 1, commitId, workflowJson, outboxJson, keysText] }
        : { query: this.q.updateExecution, params: [c.expectedRev + 1, commitId, workflowJson, outboxJson, keysText, id, c.expectedRev] };
    const batch = [
      head,
      ...c.upsertTasks.map((t) => ({ query: this.q.upsertTask, params: [id, t.taskId, encodeTask(t)] })),
      ...deletes.map((taskId) => ({ query: this.q.deleteTask, params: [id, taskId] })),
    ];
    const applied = await this.conditionalBatch(id, batch, commitId, c.expectedRev);
    if (!applied) {
      this.known.delete(id);
      throw new StaleWriteError(id, c.expectedRev);
    }

    const taskIds = prev.taskIds && new Set(prev.taskIds);
    for (const t of c.upsertTasks) taskIds?.add(t.taskId);
    for (const t of deletes) taskIds?.delete(t);
    this.remember(id, { rev: c.expectedRev + 1, indexed: keysInBatch ? next : prev.indexed, taskIds });

    try {
      await this.runStages([
        [
          ...(plan.after[0] ?? []),
          ...deletes.flatMap((taskId) => [
            { query: this.q.deleteTaskLookup, params: [taskId] },
            { query: this.q.deleteTaskLogs, params: [taskId] },
          ]),
        ],
        ...plan.after.slice(1),
      ]);
      if (!keysInBatch && !sameKeys(prev.indexed, next)) {
        await this.run([{ query: this.q.setIndexedKeys, params: [keysText, id] }]);
        this.remember(id, { rev: c.expectedRev + 1, indexed: next, taskIds });
      }
    } catch (err) {
      // The turn is durable; the indexes catch up on the next load or commit of this execution.
      this.known.delete(id);
      this.opts.onIndexError?.(err, id);
    }
  }

  /** The index state at expectedRev: from memory when this process wrote or read that rev, else one read. */
  private async knownAt(id: string, expectedRev: number): Promise<Known> {
    const k = this.known.get(id);
    if (k && k.rev === expectedRev) return k;
    if (expectedRev === 0) return { rev: 0, indexed: undefined, taskIds: new Set() };
    const row = (await this.client.execute(this.q.selectHead, [id], this.idempotent())).first();
    if (!row || row.get('rev') == null || toNumber(row.get('rev')) !== expectedRev) throw new StaleWriteError(id, expectedRev);
    return { rev: expectedRev, indexed: decodeKeys(row.get('indexed_keys') as string | null), taskIds: undefined };
  }

  /** Runs the single-partition conditional batch; an unknown outcome (timeout) is settled by a serial read of commit_id. */
  private async conditionalBatch(id: string, batch: Write[], commitId: types.Uuid, expectedRev: number): Promise<boolean> {
    try {
      const rs = await this.client.batch(batch, {
        prepare: true,
        logged: true,
        consistency: this.consistency,
        serialConsistency: types.consistencies.localSerial,
        isIdempotent: false,
      });
      return rs.wasApplied();
    } catch (err) {
      if (!outcomeUnknown(err)) throw err;
      // A SERIAL read finishes any in-flight Paxos round before answering; without it the outcome stays unknown.
      const row = (
        await this.client.execute(this.q.selectHead, [id], this.idempotent({ consistency: types.consistencies.localSerial })).catch((settle: unknown) => {
          throw new CommitOutcomeUnknown(id, `${(err as Error).message}; then ${(settle as Error).message}`);
        })
      ).first();
      const storedCommit = row?.get('commit_id') as types.Uuid | null | undefined;
      if (storedCommit && storedCommit.equals(commitId)) return true;
      const storedRev = row?.get('rev') == null ? 0 : toNumber(row.get('rev'));
      if (storedRev === expectedRev) throw err;
      return false;
    }
  }

  async load(workflowId: string): Promise<StoredExecution | undefined> {
    const rows: ExecutionRow[] = [];
    let indexedText: string | null = null;
    let keysText: string | null = null;
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(this.q.selectExecution, [workflowId], this.idempotent({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) {
        if (rows.length === 0) {
          indexedText = r.get('indexed_keys') as string | null;
          keysText = r.get('keys') as string | null;
        }
        rows.push({
          rev: r.get('rev'),
          workflow_json: r.get('workflow_json') as string | null,
          outbox_json: r.get('outbox_json') as string | null,
          task_id: r.get('task_id') as string | null,
          task_json: r.get('task_json') as string | null,
        });
      }
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    const stored = executionFromRows(rows);
    if (!stored) {
      this.known.delete(workflowId);
      return undefined;
    }
    let indexed = decodeKeys(indexedText);
    const keys = decodeKeys(keysText);
    if (keys && !sameKeys(indexed, keys)) indexed = await this.repairIndexes(workflowId, indexed, keys);
    this.remember(workflowId, { rev: stored.rev, indexed, taskIds: new Set(stored.tasks.map((t) => t.taskId)) });
    return stored;
  }

  async revOf(workflowId: string): Promise<number | undefined> {
    const row = (await this.client.execute(this.q.selectRev, [workflowId], this.idempotent())).first();
    return row && row.get('rev') != null ? toNumber(row.get('rev')) : undefined;
  }

  /** Finishes the index writes of a turn whose index phase did not complete; returns the key set now indexed. */
  private async repairIndexes(id: string, indexed: IndexKeys | undefined, keys: IndexKeys): Promise<IndexKeys | undefined> {
    const plan = indexPlan(this.q, id, indexed, keys, this.layout, this.now());
    try {
      await this.runStages([...plan.before, ...plan.after]);
      await this.run([{ query: this.q.setIndexedKeys, params: [encodeKeys(keys), id] }]);
      return keys;
    } catch (err) {
      this.opts.onIndexError?.(err, id);
      return indexed;
    }
  }

  async remove(workflowId: string): Promise<void> {
    const taskIds: string[] = [];
    const keySets: IndexKeys[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(this.q.selectTaskIds, [workflowId], this.idempotent({ fetchSize: PAGE, pageState }));
      for (const r of rs.rows) {
        if (keySets.length === 0 && taskIds.length === 0)
          for (const col of ['keys', 'indexed_keys']) {
            const k = decodeKeys(r.get(col) as string | null);
            if (k) keySets.push(k);
          }
        const taskId = r.get('task_id') as string | null;
        if (taskId != null) taskIds.push(taskId);
      }
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    // Everything that points at the execution goes first, the partition last, so a failed remove can be repeated.
    await this.run([
      ...removalWrites(this.q, workflowId, keySets),
      ...taskIds.flatMap((taskId) => [
        { query: this.q.deleteTaskLookup, params: [taskId] },
        { query: this.q.deleteTaskLogs, params: [taskId] },
      ]),
    ]);
    await this.run([{ query: this.q.deleteExecution, params: [workflowId] }]);
    this.known.delete(workflowId);
  }

  async getTask(taskId: string): Promise<Task | undefined> {
    const workflowId = await this.lookup(taskId);
    if (!workflowId) return undefined;
    const row = (await this.client.execute(this.q.selectTask, [workflowId, taskId], this.idempotent())).first();
    const json = row?.get('task_json') as string | null | undefined;
    return json ? (JSON.parse(json) as Task) : undefined;
  }

  async workflowIdOfTask(taskId: string): Promise<string | undefined> {
    const workflowId = await this.lookup(taskId);
    if (!workflowId) return undefined;
    // A lookup written before a batch that lost points at no task: verify.
    const row = (await this.client.execute(this.q.selectTask, [workflowId, taskId], this.idempotent())).first();
    return row?.get('task_json') != null ? workflowId : undefined;
  }

  private async lookup(taskId: string): Promise<string | undefined> {
    const row = (await this.client.execute(this.q.selectTaskLookup, [taskId], this.idempotent())).first();
    return (row?.get('workflow_id') as string | null | undefined) ?? undefined;
  }

  async runningWorkflowIds(name: string, version?: number): Promise<string[]> {
    const ids = new Set<string>();
    for await (const entries of this.open.read(runningFamily(name), this.stillRunning(name), false))
      for (const e of entries) if (version === undefined || e.version === version) ids.add(e.workflowId);
    return [...ids];
  }

  async workflowIdsByCorrelationId(name: string, correlationId: string, includeClosed: boolean): Promise<string[]> {
    const rows = await this.allRows(this.q.selectCorrelation, [name, correlationId]);
    return rows.filter((r) => includeClosed || r.get('terminal') !== true).map((r) => r.get('workflow_id') as string);
  }

  async *idsNeedingRecovery(): AsyncIterable<string> {
    // Recovery entries are written before the batch, so one may point at a turn that lost: all are verified.
    for await (const entries of this.open.read(recoveryFamily(this.layout.recoveryShards), this.stillRecovering, true))
      for (const e of entries) yield e.workflowId;
  }

  /**
   * Seals the open indexes' past generations (the recovery index, and the running index of every
   * name this process wrote): carries what is still open, drops the rest whole. Reads do this on
   * their way too; doing it regularly keeps the first read after a quiet spell short.
   */
  async sealIndexes(): Promise<void> {
    await this.open.seal(recoveryFamily(this.layout.recoveryShards), this.stillRecovering);
    for (const name of [...this.runningNames]) await this.open.seal(runningFamily(name), this.stillRunning(name));
  }

  private stillRunning(name: string): Verify {
    return (entries) => this.verify(entries, (k, e) => !k.terminal && k.name === name && k.runningGen === e.fromGen);
  }

  private readonly stillRecovering: Verify = (entries) =>
    this.verify(entries, (k, e) => k.needsRecovery && k.recoveryGen === e.fromGen && k.recoveryShard === e.shard);

  async *listWorkflowIds(): AsyncIterable<string> {
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(this.q.selectAllIds, [], this.idempotent({ fetchSize: PAGE, pageState }));
      pageState = rs.pageState ?? undefined;
      for (const r of rs.rows) yield r.get('workflow_id') as string;
    } while (pageState);
  }

  /** Reads the committed keys of each entry's execution: an entry stands while they still place it where it is. */
  private async verify(entries: OpenEntry[], stands: (keys: IndexKeys, entry: OpenEntry) => boolean) {
    return Promise.all(
      entries.map(async (e) => {
        const row = (await this.client.execute(this.q.selectHead, [e.workflowId], this.idempotent())).first();
        const keys = decodeKeys(row?.get('keys') as string | null | undefined);
        return { valid: keys !== undefined && stands(keys, e), version: keys?.version ?? e.version };
      }),
    );
  }

  private async allRows(query: string, params: unknown[]): Promise<types.Row[]> {
    const out: types.Row[] = [];
    let pageState: string | undefined;
    do {
      const rs = await this.client.execute(query, params, this.idempotent({ fetchSize: PAGE, pageState }));
      out.push(...rs.rows);
      pageState = rs.pageState ?? undefined;
    } while (pageState);
    return out;
  }

  get taskLogLimits(): TaskLogLimits {
    return this.limits.taskLogs;
  }

  async appendTaskLogs(logs: Array<TaskExecLog & { taskId: string; createdTime: number }>): Promise<number> {
    const limits = this.limits.taskLogs;
    const byTask = new Map<string, Write[]>();
    for (const l of logs) {
      // TimeUuid.now() is monotonic within this process, so logs with equal createdTime keep their order.
      const w = { query: this.q.insertTaskLog, params: [l.taskId, l.createdTime, types.TimeUuid.now(), storedLogLine(l.log, limits)] };
      byTask.set(l.taskId, [...(byTask.get(l.taskId) ?? []), w]);
    }
    const stored = await Promise.all(
      [...byTask].map(async ([taskId, ws]) => {
        // Counted, then written: appends racing on one task can pass its limit by at most their own lines.
        const rs = await this.client.execute(this.q.countTaskLogs, [taskId], this.idempotent());
        const room = Math.max(0, limits.lines - toNumber(rs.first()?.get('n') ?? 0));
        const fit = ws.slice(0, room);
        // One unlogged batch per task: a single partition, so it is applied atomically without the batch log.
        if (fit.length > 0) await this.client.batch(fit, { prepare: true, logged: false, consistency: this.consistency, isIdempotent: true });
        return fit.length;
      }),
    );
    return stored.reduce((a, b) => a + b, 0);
  }

  async taskLogs(taskId: string): Promise<TaskExecLog[]> {
    const rows = await this.allRows(this.q.selectTaskLogs, [taskId, this.limits.taskLogs.lines]);
    return rows.map((r) => ({ log: r.get('log') as string, taskId, createdTime: toNumber(r.get('created_time')) }));
  }

  async close(): Promise<void> {
    if (this.maintenance) clearInterval(this.maintenance);
    this.known.clear();
  }
}

/** A conditional write whose outcome the coordinator could not confirm. */
function outcomeUnknown(err: unknown): boolean {
  if (err instanceof errors.OperationTimedOutError) return true;
  // The connection closed after the batch was written: a coordinator may have run it.
  if (socketError(err)?.written) return true;
  // A write timeout of a CAS round may or may not have been applied; unavailable means nothing was tried.
  return err instanceof errors.ResponseError && err.code === types.responseErrorCodes.writeTimeout;
}
