import type { ExecutionStatements } from './statements';
import { type OpenFamily, pageOf, placement, RECOVERY_INDEX, recoveryFamily, runningFamily } from './generations';
import type { IndexKeys, IndexLayout } from './rows';

// Which secondary-index writes a turn needs, from the key set already indexed (`prev`) and the key
// set of the new state (`next`). Pure: the store runs the stages in order, each stage concurrently.

export interface Write {
  query: string;
  params: unknown[];
  /** Set on registry rows (never deleted while their generation may be read): a writer that wrote one need not write it again. */
  registryKey?: string;
}

export interface IndexPlan {
  /** Before the conditional batch: a state that must be recovered is findable before it exists (insert before, delete after). */
  before: Write[][];
  /** After the batch: running and correlation entries, and last the recovery delete, so a crash part-way leaves the execution recoverable. */
  after: Write[][];
  /**
   * True when nothing is left for after the batch: the batch itself can record the new keys as
   * indexed (one request less). So it is when every index write is an open-index insert, which
   * readers verify against the committed keys and may therefore precede the batch.
   */
  keysInBatch: boolean;
}

const stages = (...s: Write[][]): Write[][] => s.filter((stage) => stage.length > 0);

/** An open-index entry written to `index` at generation `gen` (of width genMs), with its registry rows. */
export function entryWritesAt(
  q: ExecutionStatements,
  index: string,
  gen: number,
  genMs: number,
  shard: number,
  workflowId: string,
  version: number | null,
  fromGen: number,
): Write[] {
  const page = pageOf(gen, genMs);
  return [
    { query: q.insertOpenEntry, params: [index, gen, shard, workflowId, version, fromGen] },
    { query: q.insertOpenGen, params: [index, page, gen], registryKey: `${index}|${gen}` },
    { query: q.insertOpenPage, params: [index, page], registryKey: `${index}|page|${page}` },
  ];
}

/** A new entry of young generation `gen`; written to the carried index instead when that generation is already sealed (a late repair). */
function entryWrites(
  q: ExecutionStatements,
  family: OpenFamily,
  gen: number,
  shard: number,
  workflowId: string,
  version: number | null,
  layout: IndexLayout,
  nowMs: number,
): Write[] {
  const at = placement(family, gen, layout, nowMs);
  return entryWritesAt(q, at.index, at.gen, at.genMs, shard, workflowId, version, gen);
}

const inRunning = (k: IndexKeys | undefined): k is IndexKeys => k !== undefined && !k.terminal;
const sameRunning = (a: IndexKeys, b: IndexKeys): boolean => a.name === b.name && a.version === b.version && a.runningGen === b.runningGen;

export function indexPlan(
  q: ExecutionStatements,
  workflowId: string,
  prev: IndexKeys | undefined,
  next: IndexKeys,
  layout: IndexLayout,
  nowMs: number,
): IndexPlan {
  const recovery = recoveryFamily(layout.recoveryShards);
  const recoveryInsert: Write[] = [];
  if (next.needsRecovery && !(prev?.needsRecovery && prev.recoveryGen === next.recoveryGen))
    recoveryInsert.push(...entryWrites(q, recovery, next.recoveryGen, next.recoveryShard, workflowId, null, layout, nowMs));

  const entries: Write[] = [];
  if (inRunning(next) && !(inRunning(prev) && sameRunning(prev, next)))
    entries.push(...entryWrites(q, runningFamily(next.name), next.runningGen, 0, workflowId, next.version, layout, nowMs));
  if (inRunning(prev) && (!inRunning(next) || !sameRunning(prev, next)))
    entries.push({ query: q.deleteOpenEntry, params: [runningFamily(prev.name).young, prev.runningGen, 0, workflowId] });

  if (
    next.correlationId !== null &&
    (prev === undefined || prev.correlationId !== next.correlationId || prev.name !== next.name || prev.terminal !== next.terminal)
  )
    entries.push({ query: q.upsertCorrelation, params: [next.name, next.correlationId, workflowId, next.terminal] });
  if (prev?.correlationId != null && (prev.correlationId !== next.correlationId || prev.name !== next.name))
    entries.push({ query: q.deleteCorrelation, params: [prev.name, prev.correlationId, workflowId] });

  const recoveryDelete: Write[] = [];
  if (prev?.needsRecovery && (!next.needsRecovery || prev.recoveryGen !== next.recoveryGen))
    recoveryDelete.push({ query: q.deleteOpenEntry, params: [recovery.young, prev.recoveryGen, prev.recoveryShard, workflowId] });

  if (recoveryDelete.length === 0 && entries.every((w) => w.query === q.insertOpenEntry || w.registryKey !== undefined))
    return { before: stages([...recoveryInsert, ...entries]), after: [], keysInBatch: true };
  return { before: stages(recoveryInsert), after: stages(entries, recoveryDelete), keysInBatch: false };
}

/**
 * Deletes of every entry any of these key sets may have written (remove()). Copies a reader carried
 * are not known here: readers verify carried entries and drop those of a removed execution.
 */
export function removalWrites(q: ExecutionStatements, workflowId: string, keySets: IndexKeys[]): Write[] {
  const out = new Map<string, Write>();
  const add = (w: Write) => out.set(`${w.query}|${JSON.stringify(w.params)}`, w);
  for (const k of keySets) {
    if (!k.terminal) add({ query: q.deleteOpenEntry, params: [runningFamily(k.name).young, k.runningGen, 0, workflowId] });
    if (k.correlationId !== null) add({ query: q.deleteCorrelation, params: [k.name, k.correlationId, workflowId] });
    if (k.needsRecovery) add({ query: q.deleteOpenEntry, params: [RECOVERY_INDEX, k.recoveryGen, k.recoveryShard, workflowId] });
  }
  return [...out.values()];
}
