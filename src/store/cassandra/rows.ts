import type { Effect } from '../../model/effects';
import type { Task, WorkflowRecord } from '../../model/execution';
import { isTerminalWorkflow } from '../../model/statuses';
import type { StoredExecution } from '../ports';

// Pure mapping between Baton records and Cassandra rows, plus the bucket maths of the indexes.

/**
 * How the time-cut tables are laid out. The open-execution indexes (running by name, needing
 * recovery) are cut by write time into generations (open-index.ts); the values written are stored
 * with each execution (`keys`), so changing these later only affects new entries.
 */
export interface IndexLayout {
  /** Width of a generation of the open-execution indexes, ms. Bounds the tombstones a read of one can meet. */
  genMs: number;
  /** Width of a generation of carried entries (executions still open when their generation was sealed), ms. */
  carriedGenMs: number;
  /**
   * How long after its end a generation is sealed (carried forward and dropped): the clock skew
   * tolerated between hosts, and how late an index write may arrive.
   */
  sealMarginMs: number;
  /** Hash shards per generation of the recovery index (every execution passes through it). */
  recoveryShards: number;
  /** Width of an event_executions bucket (created), ms. */
  eventBucketMs: number;
}

export const DEFAULT_INDEX_LAYOUT: IndexLayout = {
  genMs: 60_000,
  carriedGenMs: 24 * 3600_000,
  sealMarginMs: 60_000,
  recoveryShards: 4,
  eventBucketMs: 24 * 3600_000,
};

/** Start (epoch ms) of the bucket holding `ms`. */
export const bucketOf = (ms: number, widthMs: number): number => Math.floor(ms / widthMs) * widthMs;

/** Stable shard of an id (FNV-1a, 32 bit), so every replica puts an execution in the same shard. */
export function shardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

export const eventIndexName = (handlerName: string): string => `events:${handlerName}`;

/** Everything the secondary indexes need to know about one committed execution state. */
export interface IndexKeys {
  name: string;
  version: number;
  correlationId: string | null;
  terminal: boolean;
  /** Non-terminal, or terminal but still owing effects (ExecutionStore.idsNeedingRecovery). */
  needsRecovery: boolean;
  /** Generation of the running entry (0 when terminal): where it was written, kept while the entry stays the same. */
  runningGen: number;
  /** Generation of the recovery entry (0 when not needed). */
  recoveryGen: number;
  recoveryShard: number;
}

/**
 * The index keys of a state about to be committed, given those already indexed (`prev`). An entry
 * that stays the same keeps its generation; a new one goes to the generation of `nowMs`.
 */
export function indexKeysOf(workflow: WorkflowRecord, outbox: Effect[], layout: IndexLayout, prev: IndexKeys | undefined, nowMs: number): IndexKeys {
  const terminal = isTerminalWorkflow(workflow.status);
  const needsRecovery = !terminal || outbox.length > 0;
  const sameRunning = prev !== undefined && !prev.terminal && prev.name === workflow.workflowName && prev.version === workflow.workflowVersion;
  const gen = bucketOf(nowMs, layout.genMs);
  return {
    name: workflow.workflowName,
    version: workflow.workflowVersion,
    correlationId: workflow.correlationId ?? null,
    terminal,
    needsRecovery,
    runningGen: terminal ? 0 : sameRunning ? prev.runningGen : gen,
    recoveryGen: !needsRecovery ? 0 : prev?.needsRecovery ? prev.recoveryGen : gen,
    recoveryShard: shardOf(workflow.workflowId, layout.recoveryShards),
  };
}

// Field order is fixed so equal key sets serialise to equal text.
export const encodeKeys = (k: IndexKeys): string =>
  JSON.stringify({
    name: k.name,
    version: k.version,
    correlationId: k.correlationId,
    terminal: k.terminal,
    needsRecovery: k.needsRecovery,
    runningGen: k.runningGen,
    recoveryGen: k.recoveryGen,
    recoveryShard: k.recoveryShard,
  });

export const decodeKeys = (text: string | null | undefined): IndexKeys | undefined => (text ? (JSON.parse(text) as IndexKeys) : undefined);

export const sameKeys = (a: IndexKeys | undefined, b: IndexKeys | undefined): boolean =>
  a === undefined || b === undefined ? a === b : encodeKeys(a) === encodeKeys(b);

// Tasks live in their own clustering rows, so the static workflow row never carries them.
export const encodeWorkflow = (w: WorkflowRecord): string => JSON.stringify(w);
export const encodeTask = (t: Task): string => JSON.stringify(t);
export const encodeOutbox = (o: Effect[]): string => JSON.stringify(o);

/** One row of `SELECT rev, workflow_json, outbox_json, …, task_id, task_json` over an execution partition. */
export interface ExecutionRow {
  rev: unknown;
  workflow_json: string | null;
  outbox_json: string | null;
  task_id: string | null;
  task_json: string | null;
}

/** A bigint column as a JS number (the driver hands back Long). */
export function toNumber(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (v && typeof (v as { toNumber?: unknown }).toNumber === 'function') return (v as { toNumber(): number }).toNumber();
  throw new Error(`not a number column: ${String(v)}`);
}

/** Rebuilds a StoredExecution from the rows of its partition; undefined when there is no static row. Tasks come back in seq order. */
export function executionFromRows(rows: ExecutionRow[]): StoredExecution | undefined {
  const head = rows[0];
  if (!head || head.workflow_json == null || head.rev == null) return undefined;
  const tasks: Task[] = [];
  for (const r of rows) if (r.task_id != null && r.task_json != null) tasks.push(JSON.parse(r.task_json) as Task);
  tasks.sort((a, b) => a.seq - b.seq);
  return {
    workflow: JSON.parse(head.workflow_json) as WorkflowRecord,
    tasks,
    outbox: head.outbox_json ? (JSON.parse(head.outbox_json) as Effect[]) : [],
    rev: toNumber(head.rev),
  };
}

/** Ids deleted in a turn that are also upserted are kept: in one batch a delete would shadow the insert (same timestamp). */
export const effectiveDeletes = (deleteTaskIds: string[], upsertTasks: Task[]): string[] => {
  const upserted = new Set(upsertTasks.map((t) => t.taskId));
  return [...new Set(deleteTaskIds)].filter((id) => !upserted.has(id));
};
