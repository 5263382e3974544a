import { z } from 'zod';

/** One execution a purge pass set out to remove, and whether it is archived first. */
export interface PurgeItem {
  workflowId: string;
  archive: boolean;
}

/** Where an archived execution's object is, and what it ended as (answered without reading the object). */
export interface ArchivedExecution {
  workflowId: string;
  key: string;
  workflowName: string;
  status: string;
  endTime: number;
  archivedAt: number;
}

/**
 * The purge's durable state. The journal holds the items of a pass from before its first step to after its
 * last: a pass killed anywhere leaves its items there, and the next pass finishes them first (every step is
 * idempotent). A pass's items are written and cleared whole (one partition in Cassandra: no row tombstones).
 */
export interface RetentionStore {
  /** Records the items of a pass before any of them is touched. */
  beginPass(passId: string, items: PurgeItem[], now: number): Promise<void>;
  /** The items of passes that did not finish, oldest pass first. */
  unfinishedPasses(): Promise<Array<{ passId: string; items: PurgeItem[] }>>;
  finishPass(passId: string): Promise<void>;
  /**
   * workflowId -> archive key. Stored, not derived: the key holds the end day, and a GET by id must find the
   * object with one lookup (not a bucket listing), and know an id is archived without asking the object store.
   */
  recordArchive(a: ArchivedExecution): Promise<void>;
  archived(workflowId: string): Promise<ArchivedExecution | undefined>;
  /** Where the drop of a period index stands (undefined: none begun). */
  periodWalk(index: string): Promise<PeriodWalk | undefined>;
  /** Records it after each step of the walk; undefined clears it (Cassandra: with a value, no tombstone). */
  savePeriodWalk(index: string, walk: PeriodWalk | undefined): Promise<void>;
}

/**
 * A walk through a period index by workflow id, ascending. `drop`: purging each execution from the store
 * (no per-document index deletes) before the index is dropped; `undo`: a drop given up (an execution
 * refused, or documents not due appeared), deleting the documents of the executions already purged, up to `upTo`.
 * `after`: the last id done; `walked`: how many ids the drop walk went through (the index must hold exactly those).
 */
export const PeriodWalkSchema = z.object({
  mode: z.enum(['drop', 'undo']),
  after: z.string().optional(),
  upTo: z.string().optional(),
  walked: z.number().int().nonnegative().optional(),
});
export type PeriodWalk = z.infer<typeof PeriodWalkSchema>;

/** What a pass's reclaim step gave back: free pages, and whether the WAL was checkpointed and truncated after them. */
export interface Reclaimed {
  pages: number;
  /** False: a reader or a writer kept the checkpoint from finishing; the file shrinks at a later checkpoint. */
  walTruncated: boolean;
}
