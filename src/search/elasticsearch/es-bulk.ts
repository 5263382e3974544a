import type { estypes } from '@elastic/elasticsearch';

/**
 * Bulk requests, pure parts: splitting a batch under a request cap, and reading each item's result.
 * Elasticsearch answers a bulk request item by item; one bad document must not decide the others.
 */

/** One operation of a bulk body: the action line and, for index operations, the document line. */
export interface BulkEntry {
  id: string;
  action: estypes.BulkOperationContainer;
  doc?: unknown;
}

export interface BulkLimits {
  /** Most operations in one request. */
  maxDocs: number;
  /** Most bytes of NDJSON body in one request (a single larger document still goes, alone). */
  maxBytes: number;
}

/** Elastic's sizing advice is a few MB per request; 100 MB (http.max_content_length) is a hard limit. */
export const DEFAULT_BULK_LIMITS: BulkLimits = { maxDocs: 500, maxBytes: 5 * 1024 * 1024 };

/** The NDJSON bytes an entry adds to a bulk body (each line ends with a newline). */
export function entryBytes(e: BulkEntry): number {
  const action = Buffer.byteLength(JSON.stringify(e.action)) + 1;
  return e.doc === undefined ? action : action + Buffer.byteLength(JSON.stringify(e.doc)) + 1;
}

/** Consecutive groups of entries, each within both limits; order is kept. */
export function chunkBulk<T extends BulkEntry>(entries: readonly T[], limits: BulkLimits = DEFAULT_BULK_LIMITS): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let bytes = 0;
  for (const e of entries) {
    const size = entryBytes(e);
    if (current.length > 0 && (current.length >= limits.maxDocs || bytes + size > limits.maxBytes)) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(e);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * What to do with one item of a bulk response:
 * - `ok`: applied (or, for a delete, already gone);
 * - `stale`: a version conflict: with external versioning the stored document is newer;
 * - `retry`: the cluster could not take it now (back-pressure, unavailable shards, a block an
 *   operator lifts, such as the flood-stage read-only block): send it again later;
 * - `rejected`: the document itself is refused (mapping or parsing errors): sending it again would
 *   fail the same way.
 */
export type ItemOutcome = 'ok' | 'stale' | 'retry' | 'rejected';

const RETRYABLE_STATUS = new Set([429, 502, 503, 504]);
const RETRYABLE_TYPES = new Set([
  'cluster_block_exception',
  'es_rejected_execution_exception',
  'unavailable_shards_exception',
  'index_not_found_exception',
  'circuit_breaking_exception',
]);

export function itemOutcome(item: estypes.BulkResponseItem | undefined, kind: 'index' | 'delete'): ItemOutcome {
  if (!item) return 'retry'; // a response without this item: nothing says it was applied
  const { status, error } = item;
  if (!error && status >= 200 && status < 300) return 'ok';
  if (kind === 'delete' && status === 404 && !error) return 'ok';
  if (status === 409) return 'stale';
  if (RETRYABLE_STATUS.has(status) || (error && RETRYABLE_TYPES.has(error.type))) return 'retry';
  return 'rejected';
}

/** The result item of an entry, whichever operation it was. */
export function responseItem(r: Partial<Record<estypes.BulkOperationType, estypes.BulkResponseItem>>): estypes.BulkResponseItem | undefined {
  return r.index ?? r.create ?? r.update ?? r.delete;
}

/** The NDJSON lines of entries, as the client's `operations` parameter takes them. */
export function operationsOf(entries: readonly BulkEntry[]): unknown[] {
  return entries.flatMap((e) => (e.doc === undefined ? [e.action] : [e.action, e.doc]));
}
