import type { BatchRecord } from '../model/batch';

// How a batch moves, one item at a time, as pure transitions of its record (the runner stores each one).

export const isOpen = (b: BatchRecord): boolean => b.state === 'RUNNING';

/** A new batch over `matched` snapshotted ids. */
export function newBatch(b: Pick<BatchRecord, 'id' | 'action' | 'query' | 'freeText' | 'reason' | 'createdAt' | 'matched'>): BatchRecord {
  const base: BatchRecord = { ...b, state: 'RUNNING', cursor: 0, acting: null, done: 0, failed: 0, cancelRequested: false };
  return b.matched === 0 ? { ...base, state: 'COMPLETED', finishedAt: b.createdAt } : base;
}

/** Claims the next id before acting on it; undefined when none is left. Stored before the action runs. */
export function claimNext(b: BatchRecord): BatchRecord | undefined {
  if (!isOpen(b) || b.acting !== null || b.cursor >= b.matched) return undefined;
  return { ...b, acting: b.cursor, cursor: b.cursor + 1 };
}

/** Records the outcome of the claimed id; the batch completes with its last one. */
export function settle(b: BatchRecord, ok: boolean, now: number): BatchRecord {
  const next = { ...b, acting: null, done: b.done + (ok ? 1 : 0), failed: b.failed + (ok ? 0 : 1) };
  return next.cursor >= next.matched ? { ...next, state: 'COMPLETED', finishedAt: now } : next;
}

/** Why a claimed id found on a (re)start is reported failed rather than acted on again: its action may have run. */
export const INTERRUPTED = 'the batch stopped while acting on this execution; not repeated, so it is never acted on twice';

/** Stops an open batch whose cancel was requested (between items: a claimed id is settled first). */
export function cancel(b: BatchRecord, now: number): BatchRecord {
  return isOpen(b) && b.acting === null ? { ...b, state: 'CANCELLED', finishedAt: now } : b;
}
