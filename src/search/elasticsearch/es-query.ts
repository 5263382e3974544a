import type { estypes } from '@elastic/elasticsearch';
import type { FreeText, QueryAst, SearchRequest, SortKey } from '../ports';
import { QuerySyntaxError, typedValue } from '../query';
import { DEFAULT_SORT_FIELD, fieldKind, ID_FIELD, type FieldKind, type SearchTarget } from '../search-fields';

/**
 * QueryAst / FreeText / SortKey → Elasticsearch query DSL. Pure. Document field names are the summary's
 * (src/search/summaries.ts), so a whitelisted field name is also its ES path.
 */

type Query = estypes.QueryDslQueryContainer;
type Sort = estypes.SortCombinations;

/** Fields a bare freeText word is matched against: keyword fields by substring, text fields by phrase. */
const WORD_KEYWORD_FIELDS: Record<SearchTarget, readonly string[]> = {
  workflow: ['workflowId', 'correlationId', 'workflowType', 'reasonForIncompletion'],
  task: ['taskId', 'workflowId', 'taskType', 'taskDefName', 'correlationId', 'reasonForIncompletion'],
};
const WORD_TEXT_FIELDS = ['input', 'output'] as const;

function kindOf(target: SearchTarget, field: string): FieldKind {
  const kind = fieldKind(target, field);
  if (!kind) throw new QuerySyntaxError(`unknown field '${field}' for ${target} search`);
  return kind;
}

/** Times are compared as epoch millis whatever the stored format. */
function range(field: string, kind: FieldKind, bounds: estypes.QueryDslNumberRangeQuery | estypes.QueryDslTermRangeQuery): Query {
  return { range: { [field]: kind === 'time' ? { ...bounds, format: 'epoch_millis' } : bounds } };
}

function equals(field: string, kind: FieldKind, value: string | number): Query {
  return kind === 'time' ? range(field, kind, { gte: value, lte: value } as estypes.QueryDslNumberRangeQuery) : { term: { [field]: value } };
}

/** Escapes the wildcard query's own metacharacters except `*`, Baton's only wildcard. */
export function wildcardPattern(value: string): string {
  return value.replace(/[\\?]/g, (c) => `\\${c}`);
}

const wildcard = (field: string, pattern: string): Query => ({ wildcard: { [field]: { value: pattern, case_insensitive: true } } });

function flatten(op: 'and' | 'or', ast: QueryAst, into: QueryAst[]): QueryAst[] {
  if (ast.op === op) {
    flatten(op, ast.left, into);
    flatten(op, ast.right, into);
  } else {
    into.push(ast);
  }
  return into;
}

export function toEsQuery(ast: QueryAst, target: SearchTarget = 'workflow'): Query {
  switch (ast.op) {
    case 'and':
      return { bool: { filter: flatten('and', ast, []).map((a) => toEsQuery(a, target)) } };
    case 'or':
      return { bool: { should: flatten('or', ast, []).map((a) => toEsQuery(a, target)), minimum_should_match: 1 } };
    case 'cmp': {
      const kind = kindOf(target, ast.field);
      const value = typedValue(ast.field, kind, ast.value);
      switch (ast.cmp) {
        case '=':
          return equals(ast.field, kind, value);
        // must_not also matches documents without the field, as Conductor's `NOT field:value` does.
        case '!=':
          return { bool: { must_not: [equals(ast.field, kind, value)] } };
        case '>':
          return range(ast.field, kind, { gt: value } as estypes.QueryDslNumberRangeQuery);
        case '>=':
          return range(ast.field, kind, { gte: value } as estypes.QueryDslNumberRangeQuery);
        case '<':
          return range(ast.field, kind, { lt: value } as estypes.QueryDslNumberRangeQuery);
        case '<=':
          return range(ast.field, kind, { lte: value } as estypes.QueryDslNumberRangeQuery);
      }
      throw new QuerySyntaxError(`unknown comparison '${String(ast.cmp)}'`);
    }
    case 'in': {
      const kind = kindOf(target, ast.field);
      const values = ast.values.map((v) => typedValue(ast.field, kind, v));
      if (kind === 'time') return { bool: { should: values.map((v) => equals(ast.field, kind, v)), minimum_should_match: 1 } };
      return { terms: { [ast.field]: values } };
    }
    case 'isNull': {
      kindOf(target, ast.field);
      const exists: Query = { exists: { field: ast.field } };
      return ast.negated ? exists : { bool: { must_not: [exists] } };
    }
    case 'between': {
      const kind = kindOf(target, ast.field);
      const low = typedValue(ast.field, kind, ast.low);
      const high = typedValue(ast.field, kind, ast.high);
      return range(ast.field, kind, { gte: low, lte: high } as estypes.QueryDslNumberRangeQuery);
    }
    case 'startsWith':
      kindOf(target, ast.field);
      return { prefix: { [ast.field]: { value: ast.value } } };
  }
}

/** A freeText term list as a filter; words match case-insensitively. */
export function freeTextToEs(ft: FreeText, target: SearchTarget = 'workflow'): Query {
  if (ft.kind === 'all' || ft.terms.length === 0) return { match_all: {} };
  const filters = ft.terms.map((term): Query => {
    if (term.field !== undefined) {
      const kind = kindOf(target, term.field);
      if (kind === 'keyword' && term.value.includes('*')) return wildcard(term.field, wildcardPattern(term.value));
      return equals(term.field, kind, typedValue(term.field, kind, term.value));
    }
    const pattern = wildcardPattern(term.value);
    const substring = `${pattern.startsWith('*') ? '' : '*'}${pattern}${pattern.endsWith('*') ? '' : '*'}`;
    const should: Query[] = WORD_KEYWORD_FIELDS[target].map((f) => wildcard(f, substring));
    for (const f of WORD_TEXT_FIELDS) {
      // Input/output are analysed text: a word matches whole tokens (a phrase for `order-123`); `*` makes it a token pattern.
      should.push(term.value.includes('*') ? wildcard(f, pattern) : { match_phrase: { [f]: term.value } });
    }
    return { bool: { should, minimum_should_match: 1 } };
  });
  return filters.length === 1 ? filters[0]! : { bool: { filter: filters } };
}

/** Requested keys (or newest first), then the id so that ties page deterministically; missing values last. */
export function toEsSort(sort: SortKey[], target: SearchTarget = 'workflow'): Sort[] {
  const keys = sort.length > 0 ? sort : [{ field: DEFAULT_SORT_FIELD[target], order: 'DESC' as const }];
  const id = ID_FIELD[target];
  const result: Sort[] = keys.map((k) => {
    kindOf(target, k.field);
    return { [k.field]: { order: k.order === 'DESC' ? 'desc' : 'asc', missing: '_last' } };
  });
  if (!keys.some((k) => k.field === id)) result.push({ [id]: { order: 'asc' } });
  return result;
}

/** The whole search: query AND freeText as non-scoring filters, and the sort. */
export function toEsSearch(target: SearchTarget, req: Pick<SearchRequest, 'query' | 'freeText' | 'sort'>): { query: Query; sort: Sort[] } {
  const filter: Query[] = [];
  if (req.freeText.kind === 'terms' && req.freeText.terms.length > 0) filter.push(freeTextToEs(req.freeText, target));
  if (req.query) filter.push(toEsQuery(req.query, target));
  return { query: filter.length === 0 ? { match_all: {} } : { bool: { filter } }, sort: toEsSort(req.sort, target) };
}
