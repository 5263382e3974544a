import type { Request } from 'express';
import type { SearchRequest } from '../index/ports';
import { parseFreeText, parseQuery, parseSort, type SearchTarget } from '../index/query';
import { intParam, strParam } from './params';

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
