import type { FreeText, QueryAst, SortKey } from '../ports';
import { QuerySyntaxError, typedValue } from '../query';
import { DEFAULT_SORT_FIELD, fieldKind, ID_FIELD, type FieldKind, type SearchTarget } from '../search-fields';

/**
 * QueryAst / FreeText / SortKey → parameterised SQL over the `idx_workflow` and `idx_task` tables. Pure.
 * Column names come only from the field whitelist; every value is a bound parameter.
 */

export type SqlValue = string | number;
export interface SqlFragment {
  sql: string;
  params: SqlValue[];
}

/** Columns that may hold NULL (summary fields Conductor omits when unset). */
const NULLABLE: Record<SearchTarget, ReadonlySet<string>> = {
  workflow: new Set(['correlationId', 'endTime', 'reasonForIncompletion', 'event', 'parentWorkflowId', 'createdBy']),
  task: new Set(['correlationId', 'reasonForIncompletion', 'domain']),
};

/** Columns a bare freeText word is looked for in (substring, case-insensitive for ASCII). */
const WORD_COLUMNS: Record<SearchTarget, readonly string[]> = {
  workflow: ['workflow_id', 'correlation_id', 'workflow_type', 'reason_for_incompletion', 'input', 'output'],
  task: ['task_id', 'workflow_id', 'task_type', 'task_def_name', 'correlation_id', 'reason_for_incompletion', 'input', 'output'],
};

export const TABLE: Record<SearchTarget, string> = { workflow: 'idx_workflow', task: 'idx_task' };

const snake = (field: string): string => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

function columnOf(target: SearchTarget, field: string): { column: string; kind: FieldKind } {
  const kind = fieldKind(target, field);
  if (!kind) throw new QuerySyntaxError(`unknown field '${field}' for ${target} search`);
  return { column: snake(field), kind };
}

const sqlValue = (field: string, kind: FieldKind, v: string | number): SqlValue => typedValue(field, kind, v);

/** `*` is the wildcard; LIKE's own metacharacters are escaped with `\`. */
export function likePattern(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`).replace(/\*/g, '%');
}

export function whereOfQuery(ast: QueryAst, target: SearchTarget): SqlFragment {
  switch (ast.op) {
    case 'and':
    case 'or': {
      const l = whereOfQuery(ast.left, target);
      const r = whereOfQuery(ast.right, target);
      return { sql: `(${l.sql} ${ast.op.toUpperCase()} ${r.sql})`, params: [...l.params, ...r.params] };
    }
    case 'cmp': {
      const { column, kind } = columnOf(target, ast.field);
      const value = sqlValue(ast.field, kind, ast.value);
      // `!=` also matches records without the field, as ES's `NOT field:value` does.
      if (ast.cmp === '!=') return { sql: `(${column} IS NULL OR ${column} <> ?)`, params: [value] };
      return { sql: `${column} ${ast.cmp} ?`, params: [value] };
    }
    case 'in': {
      const { column, kind } = columnOf(target, ast.field);
      if (ast.values.length === 0) return { sql: '0', params: [] };
      return { sql: `${column} IN (${ast.values.map(() => '?').join(', ')})`, params: ast.values.map((v) => sqlValue(ast.field, kind, v)) };
    }
    case 'isNull': {
      const { column } = columnOf(target, ast.field);
      return { sql: `${column} IS ${ast.negated ? 'NOT ' : ''}NULL`, params: [] };
    }
    case 'between': {
      const { column, kind } = columnOf(target, ast.field);
      return { sql: `${column} BETWEEN ? AND ?`, params: [sqlValue(ast.field, kind, ast.low), sqlValue(ast.field, kind, ast.high)] };
    }
    case 'startsWith': {
      const { column } = columnOf(target, ast.field);
      // instr is case-sensitive like ES's prefix query on a keyword; LIKE would not be.
      return { sql: `instr(${column}, ?) = 1`, params: [ast.value] };
    }
  }
}

export function whereOfFreeText(ft: FreeText, target: SearchTarget): SqlFragment {
  if (ft.kind === 'all') return { sql: '1', params: [] };
  const parts: string[] = [];
  const params: SqlValue[] = [];
  for (const term of ft.terms) {
    if (term.field !== undefined) {
      const { column, kind } = columnOf(target, term.field);
      if (kind === 'keyword' && term.value.includes('*')) {
        parts.push(`${column} LIKE ? ESCAPE '\\'`);
        params.push(likePattern(term.value));
      } else {
        parts.push(`${column} = ?`);
        params.push(sqlValue(term.field, kind, term.value));
      }
    } else {
      const pattern = `%${likePattern(term.value)}%`;
      parts.push(`(${WORD_COLUMNS[target].map((c) => `${c} LIKE ? ESCAPE '\\'`).join(' OR ')})`);
      for (let i = 0; i < WORD_COLUMNS[target].length; i++) params.push(pattern);
    }
  }
  return { sql: parts.length === 0 ? '1' : parts.join(' AND '), params };
}

/** The whole WHERE clause of a search: query AND freeText. */
export function whereOf(target: SearchTarget, query: QueryAst | undefined, freeText: FreeText): SqlFragment {
  const q = query ? whereOfQuery(query, target) : { sql: '1', params: [] };
  const f = whereOfFreeText(freeText, target);
  return { sql: `${q.sql} AND ${f.sql}`, params: [...q.params, ...f.params] };
}

/**
 * ORDER BY for the requested keys, or newest first when none; the id always ends the list so that
 * equal keys page deterministically. Records without the field sort last in both orders, as in ES.
 */
export function orderByOf(target: SearchTarget, sort: SortKey[]): string {
  const keys = sort.length > 0 ? sort : [{ field: DEFAULT_SORT_FIELD[target], order: 'DESC' as const }];
  const id = ID_FIELD[target];
  const terms: string[] = [];
  for (const key of keys) {
    const { column } = columnOf(target, key.field);
    if (NULLABLE[target].has(key.field)) terms.push(`(${column} IS NULL)`);
    terms.push(`${column} ${key.order === 'DESC' ? 'DESC' : 'ASC'}`);
  }
  if (!keys.some((k) => k.field === id)) terms.push(`${snake(id)} ASC`);
  return terms.join(', ');
}
