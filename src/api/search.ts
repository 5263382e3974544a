import type { Request } from 'express';
import type { SearchRequest } from '../search/ports';
import type { SearchResult } from '../model/summaries';
import { parseFreeText, parseQuery, parseSort, type SearchTarget } from '../search/query';
import { strParam } from './params';
import { intQuery, type RouteDoc } from './route-table';

/** The query parameters of every search route, as searchRequestOf reads them. */
const PAGE = { start: intQuery({ min: 0, fallback: 0 }), size: intQuery({ min: 0, max: 5000, fallback: 100 }) };
export const SEARCH_QUERY: NonNullable<RouteDoc['query']> = { ...PAGE, sort: 'string', freeText: 'string', query: 'string' };

/** Reads start/size/sort/freeText/query; size at most 5000 (Conductor's cap), start is an offset. */
export function searchRequestOf(req: Request, target: SearchTarget): SearchRequest {
  return {
    start: PAGE.start.read(req, 'start'),
    size: PAGE.size.read(req, 'size'),
    sort: parseSort(strParam(req, 'sort') || undefined, target),
    freeText: parseFreeText(strParam(req, 'freeText') || undefined, target),
    query: parseQuery(strParam(req, 'query') ?? '', target),
  };
}

/**
 * Conductor's answer when index hits are replaced by records read from the store (the -v2 and
 * by-tasks searches): keys that no longer load are dropped and totalHits is lowered by as many.
 */
export async function loadHits<T>(
  hits: { totalHits: number; results: unknown[] },
  keys: string[],
  load: (key: string) => Promise<T | undefined>,
): Promise<SearchResult<T>> {
  const results: T[] = [];
  for (const k of keys) {
    const v = await load(k);
    if (v) results.push(v);
  }
  return { totalHits: Math.max(0, hits.totalHits - (hits.results.length - results.length)), results };
}
