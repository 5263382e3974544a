import type { ExecutionStatements } from './statements';
import { type IndexKeys, RECOVERY_INDEX_NAME, runningIndexName } from './rows';

// Which secondary-index writes a turn needs, from the key set already indexed (`prev`) and the key
// set of the new state (`next`). Pure: the store runs the stages in order, each stage concurrently.

export interface Write {
  query: string;
  params: unknown[];
}

export interface IndexPlan {
  /** Before the conditional batch: a state that must be recovered is findable before it exists (insert before, delete after). */
  before: Write[][];
  /** After the batch: running and correlation entries, then the registry row, and last the recovery delete, so a crash part-way leaves the execution recoverable. */
  after: Write[][];
}

const sameRecoveryEntry = (a: IndexKeys, b: IndexKeys): boolean =>
  a.recoveryBucket === b.recoveryBucket && a.recoveryShard === b.recoveryShard;
const sameRunningEntry = (a: IndexKeys, b: IndexKeys): boolean =>
  a.name === b.name && a.version === b.version && a.runningBucket === b.runningBucket;

const stages = (...s: Write[][]): Write[][] => s.filter((stage) => stage.length > 0);

export function indexPlan(q: ExecutionStatements, workflowId: string, prev: IndexKeys | undefined, next: IndexKeys): IndexPlan {
  const recoveryInsert: Write[] = [];
  const recoveryRegistry: Write[] = [];
  if (next.needsRecovery && !(prev?.needsRecovery && sameRecoveryEntry(prev, next))) {
    recoveryInsert.push({ query: q.insertRecovery, params: [next.recoveryBucket, next.recoveryShard, workflowId] });
    recoveryRegistry.push({ query: q.insertBucket, params: [RECOVERY_INDEX_NAME, next.recoveryBucket] });
  }

  const entries: Write[] = [];
  const runningRegistry: Write[] = [];
  const prevRunning = prev !== undefined && !prev.terminal;
  if (!next.terminal && !(prevRunning && sameRunningEntry(prev, next))) {
    entries.push({ query: q.insertRunning, params: [next.name, next.runningBucket, next.version, workflowId] });
    runningRegistry.push({ query: q.insertBucket, params: [runningIndexName(next.name), next.runningBucket] });
  }
  if (prevRunning && (next.terminal || !sameRunningEntry(prev, next)))
    entries.push({ query: q.deleteRunning, params: [prev.name, prev.runningBucket, prev.version, workflowId] });

  if (
    next.correlationId !== null &&
    (prev === undefined || prev.correlationId !== next.correlationId || prev.name !== next.name || prev.terminal !== next.terminal)
  )
    entries.push({ query: q.upsertCorrelation, params: [next.name, next.correlationId, workflowId, next.terminal] });
  if (prev?.correlationId != null && (prev.correlationId !== next.correlationId || prev.name !== next.name))
    entries.push({ query: q.deleteCorrelation, params: [prev.name, prev.correlationId, workflowId] });

  const recoveryDelete: Write[] = [];
  if (prev?.needsRecovery && (!next.needsRecovery || !sameRecoveryEntry(prev, next)))
    recoveryDelete.push({ query: q.deleteRecovery, params: [prev.recoveryBucket, prev.recoveryShard, workflowId] });

  return { before: stages(recoveryInsert, recoveryRegistry), after: stages(entries, runningRegistry, recoveryDelete) };
}

/** Deletes of every entry any of these key sets may have written (remove()). */
export function removalWrites(q: ExecutionStatements, workflowId: string, keySets: IndexKeys[]): Write[] {
  const out = new Map<string, Write>();
  const add = (w: Write) => out.set(`${w.query}|${JSON.stringify(w.params)}`, w);
  for (const k of keySets) {
    add({ query: q.deleteRunning, params: [k.name, k.runningBucket, k.version, workflowId] });
    if (k.correlationId !== null) add({ query: q.deleteCorrelation, params: [k.name, k.correlationId, workflowId] });
    add({ query: q.deleteRecovery, params: [k.recoveryBucket, k.recoveryShard, workflowId] });
  }
  return [...out.values()];
}
