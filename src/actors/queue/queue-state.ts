import { z } from 'zod';
import type { ActorStateOp, ActorStateStore } from '../../runtime/ports';
import type { PageBook } from './page-book';

// How a queue partition sits in the actor state store: `meta` lists the live pages, `page:<n>` holds
// up to a page's capacity of entries. Up to this layout the whole partition was one `entries` value
// (rewritten by every push and ack, and past Dapr's 16 MiB body limit near 150k entries); activation
// still reads it once to migrate.

export const META_KEY = 'meta';
export const LEGACY_KEY = 'entries';
export const pageKey = (n: number): string => `page:${n}`;

/** [taskId, workflowId, priority, visibleAt, seq]: tuples keep a page of 500 UUID entries near 45 KB. */
const storedEntry = z.tuple([z.string(), z.string(), z.number(), z.number(), z.number()]);
export type StoredEntry = z.infer<typeof storedEntry>;
const pageValue = z.array(storedEntry);
const metaValue = z.object({ v: z.literal(1), pages: z.array(z.number().int().nonnegative()) });
const legacyValue = z.array(z.object({ taskId: z.string(), workflowId: z.string(), priority: z.number(), visibleAt: z.number() }));
export type LegacyEntry = z.infer<typeof legacyValue>[number];

/** Largest transaction a save sends (Dapr refuses bodies over 16 MiB; Redis MULTI stays short). */
export const MAX_TRANSACT_BYTES = 4 * 1024 * 1024;

export type LoadedQueue =
  /** `damaged`: a listed page (or meta itself) was missing or unreadable, so meta must be rewritten. */
  { layout: 'pages'; pages: Map<number, StoredEntry[]>; damaged: boolean } | { layout: 'legacy'; entries: LegacyEntry[] } | { layout: 'empty' };

/**
 * Reads a partition: meta, then its pages, `concurrency` gets at a time. Unreadable values count as
 * missing rather than failing the activation: entries are derived data the sweep re-pushes.
 */
export async function loadQueueState(state: ActorStateStore, concurrency = 16): Promise<LoadedQueue> {
  const rawMeta = await state.get(META_KEY);
  if (rawMeta !== undefined) {
    const meta = metaValue.safeParse(rawMeta);
    if (!meta.success) return { layout: 'pages', pages: new Map(), damaged: true };
    const numbers = [...new Set(meta.data.pages)].sort((a, b) => a - b);
    const loaded: (StoredEntry[] | undefined)[] = new Array(numbers.length);
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < numbers.length) {
        const i = next++;
        const page = pageValue.safeParse(await state.get(pageKey(numbers[i])));
        loaded[i] = page.success ? page.data : undefined;
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, numbers.length) }, worker));
    const pages = new Map<number, StoredEntry[]>();
    numbers.forEach((n, i) => pages.set(n, loaded[i] ?? []));
    return { layout: 'pages', pages, damaged: loaded.some((p) => p === undefined || p.length === 0) };
  }
  const legacy = legacyValue.safeParse(await state.get(LEGACY_KEY));
  if (legacy.success) return { layout: 'legacy', entries: legacy.data };
  return { layout: 'empty' };
}

/**
 * The entries of loaded pages in queue order (by seq), each task once: a split save that failed half
 * way can leave an entry in two pages. `rewrite`: pages to write again (a dropped duplicate, or empty).
 */
export function settlePages(loaded: Map<number, StoredEntry[]>): { pages: Map<number, string[]>; entries: StoredEntry[]; rewrite: number[] } {
  const pages = new Map<number, string[]>();
  const entries: StoredEntry[] = [];
  const seen = new Set<string>();
  const rewrite = new Set<number>();
  for (const [n, page] of loaded) {
    const kept: string[] = [];
    for (const e of page) {
      if (seen.has(e[0])) rewrite.add(n);
      else {
        seen.add(e[0]);
        kept.push(e[0]);
        entries.push(e);
      }
    }
    pages.set(n, kept);
    if (kept.length === 0) rewrite.add(n);
  }
  entries.sort((a, b) => a[4] - b[4]);
  return { pages, entries, rewrite: [...rewrite] };
}

interface PlannedWrite {
  op: ActorStateOp;
  bytes: number;
  page?: number;
  meta?: boolean;
}

const planned = (op: ActorStateOp, extra: Omit<PlannedWrite, 'op' | 'bytes'>): PlannedWrite => ({
  op,
  // Roughly what the op weighs in Dapr's transaction body.
  bytes: 64 + Buffer.byteLength(op.key) + (op.operation === 'upsert' ? Buffer.byteLength(JSON.stringify(op.value)) : 0),
  ...extra,
});

/** Groups writes, in order, into transactions of at most `maxBytes` (an op larger than that goes alone). */
export function chunkByBytes<T extends { bytes: number }>(items: T[], maxBytes: number): T[][] {
  const chunks: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    if (current.length > 0 && size + item.bytes > maxBytes) {
      chunks.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += item.bytes;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

/**
 * Writes what the book owes: each changed page (or its delete), then meta, then `after` (e.g. the
 * legacy key's delete). Usually one transaction; a write larger than `maxBytes` (a pushMany of
 * tens of thousands, a migration) is split into several, so a failure can leave it partly saved:
 * tolerable, entries are re-derived by the sweep and activation drops duplicates and missing pages.
 * Pages are marked written per committed transaction, so a failed save is retried by the next one.
 */
export async function saveQueueState(
  state: ActorStateStore,
  book: PageBook,
  entryOf: (taskId: string) => StoredEntry,
  after: ActorStateOp[] = [],
  maxBytes = MAX_TRANSACT_BYTES,
): Promise<void> {
  const owed = book.owed();
  const writes: PlannedWrite[] = [];
  for (const n of owed.pages) {
    const ids = book.idsOf(n);
    writes.push(
      ids
        ? planned({ operation: 'upsert', key: pageKey(n), value: Array.from(ids, entryOf) }, { page: n })
        : planned({ operation: 'delete', key: pageKey(n) }, { page: n }),
    );
  }
  if (owed.meta) writes.push(planned({ operation: 'upsert', key: META_KEY, value: { v: 1, pages: book.pageNumbers() } }, { meta: true }));
  for (const op of after) writes.push(planned(op, {}));
  for (const chunk of chunkByBytes(writes, maxBytes)) {
    await state.transact(chunk.map((w) => w.op));
    book.saved(
      chunk.flatMap((w) => (w.page === undefined ? [] : [w.page])),
      chunk.some((w) => w.meta),
    );
  }
}
