import type { Request } from 'express';
import type { SearchRequest } from '../search/ports';
import type { SearchResult } from '../model/summaries';
import { parseFreeText, parseQuery, parseSort, type SearchTarget } from '../search/query';
import { intParam, strParam } from './params';
import { range, type RouteDoc } from './route-table';

/** The query parameters of every search route, as searchRequestOf reads them. */
export const SEARCH_QUERY: NonNullable<RouteDoc['query']> = { start: range(0), size: range(0, 5000), sort: 'string', freeText: 'string', query: 'string' };

/** Reads start/size/sort/freeText/query; size at most 5000 (Conductor's cap), start is an offset. */
export function searchRequestOf(req: Request, target: SearchTarget): SearchRequest {
  return {
    start: intParam(req, 'start', 0, 0)!,
    size: intParam(req, 'size', 100, 0, 5000)!,
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
