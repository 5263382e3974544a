import type { WorkflowStatus } from '../../../src/model/statuses';

// The executions page's filters: read from and written to the URL (so a search is a shareable
// link), and turned into the API's search parameters. Pure: no DOM, no clock.

export const WORKFLOW_STATUSES: readonly WorkflowStatus[] = ['RUNNING', 'PAUSED', 'COMPLETED', 'FAILED', 'TIMED_OUT', 'TERMINATED'];
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const SORTABLE = ['workflowType', 'startTime', 'endTime', 'updateTime', 'status', 'executionTime', 'correlationId'] as const;
export type SortField = (typeof SORTABLE)[number];

export interface ExecutionFilters {
  name: string;
  statuses: WorkflowStatus[];
  /** Times as the browser's datetime-local inputs write them (local time, no zone). */
  from: string;
  to: string;
  correlationId: string;
  /** Free text in the index's syntax (words, field:value). */
  text: string;
  /** A where clause in the API's query syntax, ANDed with the fields above. */
  query: string;
  sort: { field: SortField; order: 'ASC' | 'DESC' };
  page: number;
  size: number;
}

export const DEFAULT_FILTERS: ExecutionFilters = {
  name: '',
  statuses: [],
  from: '',
  to: '',
  correlationId: '',
  text: '',
  query: '',
  sort: { field: 'startTime', order: 'DESC' },
  page: 0,
  size: 25,
};

const isStatus = (s: string): s is WorkflowStatus => (WORKFLOW_STATUSES as readonly string[]).includes(s);
const isSortField = (s: string): s is SortField => (SORTABLE as readonly string[]).includes(s);

export function filtersFromParams(p: URLSearchParams): ExecutionFilters {
  const [field = '', order = ''] = (p.get('sort') ?? '').split(':');
  const page = Number(p.get('page'));
  const size = Number(p.get('size'));
  return {
    name: p.get('name') ?? '',
    statuses: (p.get('status') ?? '').split(',').filter(isStatus),
    from: p.get('from') ?? '',
    to: p.get('to') ?? '',
    correlationId: p.get('correlationId') ?? '',
    text: p.get('text') ?? '',
    query: p.get('query') ?? '',
    sort: isSortField(field) ? { field, order: order === 'ASC' ? 'ASC' : 'DESC' } : DEFAULT_FILTERS.sort,
    page: Number.isInteger(page) && page > 0 ? page : 0,
    size: (PAGE_SIZES as readonly number[]).includes(size) ? size : DEFAULT_FILTERS.size,
  };
}

/** Only what differs from the defaults, so links stay short. */
export function paramsFromFilters(f: ExecutionFilters): URLSearchParams {
  const p = new URLSearchParams();
  if (f.name) p.set('name', f.name);
  if (f.statuses.length) p.set('status', f.statuses.join(','));
  if (f.from) p.set('from', f.from);
  if (f.to) p.set('to', f.to);
  if (f.correlationId) p.set('correlationId', f.correlationId);
  if (f.text) p.set('text', f.text);
  if (f.query) p.set('query', f.query);
  if (f.sort.field !== DEFAULT_FILTERS.sort.field || f.sort.order !== DEFAULT_FILTERS.sort.order) p.set('sort', `${f.sort.field}:${f.sort.order}`);
  if (f.page) p.set('page', String(f.page));
  if (f.size !== DEFAULT_FILTERS.size) p.set('size', String(f.size));
  return p;
}

/** A quoted value of the query syntax: backslash escapes the next character. */
export const quoted = (v: string): string => `'${v.replace(/[\\']/g, (c) => `\\${c}`)}'`;

/** `2026-01-02T03:04` (local) to epoch millis; undefined for an empty or unreadable time. */
export type LocalTimeParser = (local: string) => number | undefined;

export interface SearchParams {
  start: number;
  size: number;
  sort: string;
  freeText: string;
  query: string;
}

/** The where clause of the filters, without the statuses when `withStatus` is false (for the counts by status). */
export function whereClause(f: ExecutionFilters, parseTime: LocalTimeParser, withStatus = true): string {
  const parts: string[] = [];
  if (f.name.trim()) parts.push(`workflowType = ${quoted(f.name.trim())}`);
  if (withStatus && f.statuses.length) parts.push(`status IN (${f.statuses.join(',')})`);
  const from = f.from ? parseTime(f.from) : undefined;
  const to = f.to ? parseTime(f.to) : undefined;
  if (from !== undefined) parts.push(`startTime >= ${from}`);
  if (to !== undefined) parts.push(`startTime <= ${to}`);
  if (f.correlationId.trim()) parts.push(`correlationId = ${quoted(f.correlationId.trim())}`);
  if (f.query.trim()) parts.push(`(${f.query.trim()})`);
  return parts.join(' AND ');
}

export function searchParams(f: ExecutionFilters, parseTime: LocalTimeParser): SearchParams {
  return { start: f.page * f.size, size: f.size, sort: `${f.sort.field}:${f.sort.order}`, freeText: f.text.trim() || '*', query: whereClause(f, parseTime) };
}

/** The same search for one status, counting only (size 0). */
export function countParams(f: ExecutionFilters, status: WorkflowStatus, parseTime: LocalTimeParser): SearchParams {
  const where = whereClause(f, parseTime, false);
  return { start: 0, size: 0, sort: '', freeText: f.text.trim() || '*', query: where ? `${where} AND status = ${status}` : `status = ${status}` };
}

export const pageCount = (totalHits: number, size: number): number => Math.max(1, Math.ceil(totalHits / size));
