import type { Effect } from '../../engine/effects';
import type { Task, WorkflowRecord } from '../../model/execution';
import { isTerminalWorkflow } from '../../model/statuses';
import type { StoredExecution } from '../ports';

// Pure mapping between Baton records and Cassandra rows, plus the bucket maths of the indexes.

/** How the time-bucketed indexes are cut. Bucket values are stored with each execution, so changing these only affects new entries. */
export interface IndexLayout {
  /** Width of a running_by_name bucket (createTime), ms. */
  runningBucketMs: number;
  /** Width of a needs_recovery bucket (createTime), ms. */
  recoveryBucketMs: number;
  /** Hash shards per needs_recovery bucket. */
  recoveryShards: number;
  /** Width of an event_executions bucket (created), ms. */
  eventBucketMs: number;
}

export const DEFAULT_INDEX_LAYOUT: IndexLayout = {
  runningBucketMs: 24 * 3600_000,
  recoveryBucketMs: 3600_000,
  recoveryShards: 4,
  eventBucketMs: 24 * 3600_000,
};

/** Start (epoch ms) of the bucket holding `ms`. */
export const bucketOf = (ms: number, widthMs: number): number => Math.floor(ms / widthMs) * widthMs;

/** Starts of the buckets covering [fromMs, toMs], oldest first. */
export function bucketsBetween(fromMs: number, toMs: number, widthMs: number): number[] {
  const out: number[] = [];
  for (let b = bucketOf(fromMs, widthMs); b <= toMs; b += widthMs) out.push(b);
  return out;
}

/** A bucket may be pruned from its registry only once it is over: no new createTime can fall in it. */
export const bucketIsPast = (bucket: number, widthMs: number, nowMs: number): boolean => bucket + widthMs <= nowMs;

/** Stable shard of an id (FNV-1a, 32 bit), so every replica puts an execution in the same shard. */
export function shardOf(id: string, shards: number): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h % shards;
}

/** Registry partition names in index_buckets. */
export const runningIndexName = (workflowName: string): string => `running:${workflowName}`;
export const RECOVERY_INDEX_NAME = 'recovery';
export const eventIndexName = (handlerName: string): string => `events:${handlerName}`;

/** Everything the secondary indexes need to know about one committed execution state. */
export interface IndexKeys {
  name: string;
  version: number;
  correlationId: string | null;
  terminal: boolean;
  /** Non-terminal, or terminal but still owing effects (ExecutionStore.idsNeedingRecovery). */
  needsRecovery: boolean;
  runningBucket: number;
  recoveryBucket: number;
  recoveryShard: number;
}

export function indexKeysOf(workflow: WorkflowRecord, outbox: Effect[], layout: IndexLayout): IndexKeys {
  const terminal = isTerminalWorkflow(workflow.status);
  return {
    name: workflow.workflowName,
    version: workflow.workflowVersion,
    correlationId: workflow.correlationId ?? null,
    terminal,
    needsRecovery: !terminal || outbox.length > 0,
    runningBucket: bucketOf(workflow.createTime, layout.runningBucketMs),
    recoveryBucket: bucketOf(workflow.createTime, layout.recoveryBucketMs),
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
    runningBucket: k.runningBucket,
    recoveryBucket: k.recoveryBucket,
    recoveryShard: k.recoveryShard,
  });

export const decodeKeys = (text: string | null | undefined): IndexKeys | undefined =>
  text ? (JSON.parse(text) as IndexKeys) : undefined;

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
