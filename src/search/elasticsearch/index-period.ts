import type { SearchTarget } from '../search-fields';
import { aliasName, versionedIndexName } from './es-mappings';

/**
 * Time-based index names, pure. An execution's documents live in the index of the UTC period its id
 * was created in: a UUIDv7's first 48 bits are its creation time in ms, and a restart or rerun keeps
 * the id, so the period never moves and every write, get and delete names its index without a lookup.
 * Ids that carry no time (derived v5 ids, ids a client chose) go to the undated index (`_v1`).
 */

export const INDEX_PERIODS = ['month', 'day', 'none'] as const;
export type IndexPeriod = (typeof INDEX_PERIODS)[number];

const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** The creation time (ms) a UUIDv7 carries, or undefined for any other string. */
export function uuidV7Time(id: string): number | undefined {
  const m = UUID_V7.exec(id);
  return m ? parseInt(m[1]! + m[2]!, 16) : undefined;
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `YYYY.MM` (month) or `YYYY.MM.DD` (day) of a UTC time. */
export function periodLabel(time: number, period: Exclude<IndexPeriod, 'none'>): string {
  const d = new Date(time);
  const month = `${String(d.getUTCFullYear()).padStart(4, '0')}.${pad(d.getUTCMonth() + 1)}`;
  return period === 'month' ? month : `${month}.${pad(d.getUTCDate())}`;
}

/**
 * The concrete index holding the documents of this execution (tasks: of the execution they belong to).
 * `since`: executions created before it stay in the undated index, where a release without periods wrote them.
 */
export function indexForExecution(prefix: string, target: SearchTarget, workflowId: string, period: IndexPeriod, since = 0): string {
  const time = period === 'none' ? undefined : uuidV7Time(workflowId);
  return time === undefined || time < since || period === 'none'
    ? versionedIndexName(prefix, target, 1)
    : `${aliasName(prefix, target)}_${periodLabel(time, period)}`;
}

/** A period index of a target, with the time range (ms, UTC, end exclusive) its executions were created in. */
export interface PeriodIndex {
  label: string;
  start: number;
  end: number;
}

const LABEL = /^(\d{4})\.(\d{2})(?:\.(\d{2}))?$/;

/** The period of an index name of this prefix and target, or undefined for any other name (`_v1`, another prefix). */
export function parsePeriodIndex(prefix: string, target: SearchTarget, indexName: string): PeriodIndex | undefined {
  const head = `${aliasName(prefix, target)}_`;
  if (!indexName.startsWith(head)) return undefined;
  const label = indexName.slice(head.length);
  const m = LABEL.exec(label);
  if (!m) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), m[3] === undefined ? undefined : Number(m[3])];
  if (mo < 1 || mo > 12) return undefined;
  if (d === undefined) return { label, start: Date.UTC(y, mo - 1, 1), end: Date.UTC(y, mo, 1) };
  const start = Date.UTC(y, mo - 1, d);
  // A day beyond its month (2026.02.30) is no label this module writes.
  if (d < 1 || new Date(start).getUTCMonth() !== mo - 1) return undefined;
  return { label, start, end: start + 86_400_000 };
}

/** The index of a target for a period label. */
export const periodIndexName = (prefix: string, target: SearchTarget, label: string): string => `${aliasName(prefix, target)}_${label}`;
