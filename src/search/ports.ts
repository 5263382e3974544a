import type { Task, WorkflowRecord } from '../model/execution';
import type { SearchResult, TaskSummary, WorkflowSummary } from '../model/summaries';
import type { OverviewRows, OverviewWindow } from './overview';

/**
 * The parsed `query` parameter. Produced by `parseQuery` in `index/query.ts` (pure) and translated by
 * each adapter (SQL for SQLite, query DSL for Elasticsearch).
 */
export type QueryAst =
  | { op: 'and' | 'or'; left: QueryAst; right: QueryAst }
  | { op: 'cmp'; field: string; cmp: '=' | '!=' | '>' | '<' | '>=' | '<='; value: string | number }
  | { op: 'in'; field: string; values: Array<string | number> }
  | { op: 'isNull'; field: string; negated: boolean }
  | { op: 'between'; field: string; low: number; high: number }
  | { op: 'startsWith'; field: string; value: string };

/** `freeText`: `*` (everything), `field:value` terms and plain words, implicitly AND-ed. */
export type FreeText = { kind: 'all' } | { kind: 'terms'; terms: Array<{ field?: string; value: string }> };

export interface SortKey {
  field: string;
  order: 'ASC' | 'DESC';
}

export interface SearchRequest {
  query?: QueryAst;
  freeText: FreeText;
  sort: SortKey[];
  /** Offset of the first result. */
  start: number;
  size: number;
}

/** What the index receives from the outbox: the full records, summarised by the adapter. */
export interface WorkflowIndexDoc {
  workflow: WorkflowRecord;
}

export interface SearchIndex {
  /** Upserts; a document older (by updateTime) than the stored one is ignored. */
  indexWorkflows(docs: WorkflowRecord[]): Promise<void>;
  indexTasks(tasks: Task[]): Promise<void>;
  removeWorkflow(workflowId: string): Promise<void>;
  searchWorkflows(req: SearchRequest): Promise<SearchResult<WorkflowSummary>>;
  searchTasks(req: SearchRequest): Promise<SearchResult<TaskSummary>>;
  /** Executions started and ended per bucket, durations and task queue waits over the window (the console's overview). */
  overview(window: OverviewWindow): Promise<OverviewRows>;
  /** Indices retention can drop whole, when the adapter has them (Elasticsearch). */
  periodIndices?(): PeriodIndices;
  close(): Promise<void>;
}

/** A dated index period: its label and the creation times (ms, UTC, end exclusive) of its executions. */
export interface IndexPeriodRef {
  label: string;
  start: number;
  end: number;
}

/**
 * Indices that hold the executions created in one period and can be dropped whole (Elasticsearch's
 * time-based indices); retention uses them instead of deleting document by document.
 */
export interface PeriodIndices {
  /** Periods that have a workflow index, oldest first. */
  periods(): Promise<IndexPeriodRef[]>;
  /** Workflow documents of the period that match none of the queries (none given: all of them), as of the last refresh. */
  countMatchingNone(label: string, queries: QueryAst[]): Promise<number>;
  /** Workflow ids of the period, ascending, after `after`, at most `size` (as of the last refresh). */
  workflowIdsAfter(label: string, after: string | undefined, size: number): Promise<string[]>;
  /** Makes every write so far visible to the counts and walks of the period. */
  refresh(label: string): Promise<void>;
  /** Deletes the period's workflow and task indices, by name. */
  drop(label: string): Promise<void>;
}
