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
}

/** What a pass's reclaim step gave back: free pages, and whether the WAL was checkpointed and truncated after them. */
export interface Reclaimed {
  pages: number;
  /** False: a reader or a writer kept the checkpoint from finishing; the file shrinks at a later checkpoint. */
  walTruncated: boolean;
}
