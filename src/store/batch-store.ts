import type { BatchFailure, BatchRecord } from '../model/batch';

/** Batches by query, with the snapshot of the ids each matched (SQLite and Cassandra; test/contracts/batch-store.contract.ts). */
export interface BatchStore {
  /** Stores a new batch with its matched ids, numbered 0..n-1 in the order given. */
  create(batch: BatchRecord, workflowIds: readonly string[]): Promise<void>;
  get(id: string): Promise<BatchRecord | undefined>;
  /** Every stored batch, newest first. */
  list(): Promise<BatchRecord[]>;
  /** Writes the runner's progress: every field but `cancelRequested`, which only `requestCancel` sets. */
  saveProgress(batch: BatchRecord): Promise<void>;
  requestCancel(id: string): Promise<void>;
  /** The id numbered `seq` in the batch's snapshot. */
  workflowIdAt(id: string, seq: number): Promise<string | undefined>;
  addFailure(id: string, seq: number, failure: BatchFailure): Promise<void>;
  /** The failures of a batch in snapshot order. */
  failures(id: string): Promise<BatchFailure[]>;
  /** Drops a batch, its snapshot and its failures. */
  remove(id: string): Promise<void>;
}
