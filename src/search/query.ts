// Over 400 lines: the search syntax in one place (its tokenizer, the query parser, free text and sort), so the grammar reads top to bottom.
import { BatonError } from '../model/errors';
import { Errors, namedArgs } from '../model/named-errors';
import type { FreeText, QueryAst, SortKey } from './ports';
import { canonicalField, fieldKind, type FieldKind, type SearchTarget } from './search-fields';

/**
 * Parsers for the search parameters `query`, `freeText` and `sort`. Pure: text in, AST out.
 *
 * `query` grammar (keywords case-insensitive, positions are 0-based character offsets):
 *   expr   := and ( OR and )*
 *   and    := term ( AND term )*
 *   term   := "(" expr ")" | field ( cmp value | IN "(" value ("," value)* ")" | IS [NOT] NULL
 *             | BETWEEN value AND value | STARTS_WITH value )
 *   cmp    := = | != | > | < | >= | <=
 *   value  := 'quoted' | "quoted" (backslash escapes the next character) | bare
 * Conductor's ES parser is right-recursive without precedence (`a AND b OR c` = `a AND (b OR c)`,
 * es7-persistence `query/parser`); Baton uses conventional precedence instead: AND binds tighter than OR.
 * Baton also accepts bare words (`status=RUNNING`) and quoted IN items, which Conductor does not.
 * Values are typed by the field: keyword fields keep the text as written (so `correlationId=007`
 * stays "007"), number fields need a number, time fields take epoch millis or an ISO-8601 time
 * (UTC when no zone is given) and are normalised to epoch millis.
 */

export { TASK_SEARCH_FIELDS, WORKFLOW_SEARCH_FIELDS, MAX_SEARCH_SIZE } from './search-fields';
export type { FieldKind, SearchTarget } from './search-fields';

/** A malformed `query`, `freeText` or `sort`; the REST layer answers it with HTTP 400. */
export class QuerySyntaxError extends BatonError {
  readonly position: number | undefined;
  constructor(message: string, position?: number) {
    super(...namedArgs(Errors.QUERY_INVALID(position === undefined ? message : `${message} at position ${position}`)));
    this.position = position;
  }
}

/**
 * Bounds on what one search may ask (each a 400): longer text, deeper parentheses or more predicates
 * than these cost the index (SQLite refuses expressions deeper than 1000, Elasticsearch caps clauses)
 * and recursion here, not the client. Conductor has none; its UI's queries are far inside them.
 */
export const SEARCH_LIMITS = {
  /** Characters of `query`, of `freeText` and of `sort`. */
  maxTextLength: 4096,
  /** Parentheses nested inside one another in `query`. */
  maxDepth: 16,
  /** Comparisons (`field op value`, IN, IS NULL, BETWEEN, STARTS_WITH) in `query`, and terms in `freeText`. */
  maxPredicates: 100,
  /** Values of every IN list of `query` together. */
  maxValues: 1000,
  /** Keys of `sort`. */
  maxSortKeys: 16,
} as const;

function checkLength(param: string, text: string): void {
  if (text.length > SEARCH_LIMITS.maxTextLength)
    throw new QuerySyntaxError(`${param} is ${text.length} characters long, over the limit of ${SEARCH_LIMITS.maxTextLength}`);
}

type CmpOp = '=' | '!=' | '>' | '<' | '>=' | '<=';
type Token =
  | { kind: 'word'; text: string; pos: number }
  | { kind: 'string'; text: string; pos: number }
  | { kind: 'op'; text: CmpOp; pos: number }
  | { kind: '(' | ')' | ','; pos: number }
  | { kind: 'end'; pos: number };

const BARE_STOP = new Set(['(', ')', ',', '=', '!', '<', '>', "'", '"']);
const isSpace = (c: string): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f' || c === '\v';

/** Reads a quoted string starting at `start` (the quote); backslash escapes the next character. */
function readQuoted(text: string, start: number): { value: string; end: number } {
  const quote = text[start];
  let value = '';
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '\\') {
      if (i + 1 >= text.length) break;
      value += text[++i];
    } else if (c === quote) {
      return { value, end: i + 1 };
    } else {
      value += c;
    }
  }
  throw new QuerySyntaxError(`unterminated ${quote === '"' ? 'double' : 'single'}-quoted string`, start);
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (isSpace(c)) {
      i++;
    } else if (c === '(' || c === ')' || c === ',') {
      tokens.push({ kind: c, pos: i++ });
    } else if (c === "'" || c === '"') {
      const { value, end } = readQuoted(text, i);
      tokens.push({ kind: 'string', text: value, pos: i });
      i = end;
    } else if (c === '=' || c === '>' || c === '<' || c === '!') {
      const two = text.slice(i, i + 2);
      if (two === '!=' || two === '>=' || two === '<=') {
        tokens.push({ kind: 'op', text: two, pos: i });
        i += 2;
      } else if (c === '!') {
        throw new QuerySyntaxError("expected '=' after '!'", i);
      } else {
        tokens.push({ kind: 'op', text: c, pos: i++ });
      }
    } else {
      const start = i;
      while (i < text.length && !isSpace(text[i]!) && !BARE_STOP.has(text[i]!)) i++;
      tokens.push({ kind: 'word', text: text.slice(start, i), pos: start });
    }
  }
  tokens.push({ kind: 'end', pos: text.length });
  return tokens;
}

function describeToken(t: Token): string {
  switch (t.kind) {
    case 'end':
      return 'end of query';
    case 'word':
      return `'${t.text}'`;
    case 'string':
      return `quoted string '${t.text}'`;
    case 'op':
      return `'${t.text}'`;
    default:
      return `'${t.kind}'`;
  }
}

const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export function toNumber(text: string): number | undefined {
  if (!NUMBER.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Epoch millis from epoch-millis text or an ISO-8601 date/time (UTC when no zone, as ES does). */
export function toEpochMillis(text: string): number | undefined {
  const n = toNumber(text);
  if (n !== undefined) return Math.trunc(n);
  const m = ISO_TIME.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', zone] = m;
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12 || day < 1 || day > 31 || Number(h) > 23 || Number(mi) > 59 || Number(s) > 59) return undefined;
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  let t = Date.UTC(Number(y), month - 1, day, Number(h), Number(mi), Number(s), ms);
  if (new Date(t).getUTCDate() !== day) return undefined; // e.g. 2024-02-31
  if (zone && zone.toUpperCase() !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1;
    const digits = zone.slice(1).replace(':', '');
    t -= sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4))) * 60_000;
  }
  return t;
}

/**
 * Types an AST or freeText value for its field: text for keyword fields, a number (epoch millis for
 * times) otherwise. Adapters call it too, so a hand-built AST gets the same checks as a parsed one.
 */
export function typedValue(field: string, kind: FieldKind, value: string | number): string | number {
  if (kind === 'keyword') return String(value);
  if (typeof value === 'number') return value;
  return coerce(field, kind, value, undefined);
}

/** Types a value written for `field`; throws when the text does not fit the field's kind. */
function coerce(field: string, kind: FieldKind, text: string, pos: number | undefined): string | number {
  if (kind === 'keyword') return text;
  const value = kind === 'number' ? toNumber(text) : toEpochMillis(text);
  if (value === undefined) {
    const expected = kind === 'number' ? 'a number' : 'epoch millis or an ISO-8601 time';
    throw new QuerySyntaxError(`field '${field}' takes ${expected}, got '${text}'`, pos);
  }
  return value;
}

class QueryParser {
  private i = 0;
  private depth = 0;
  private predicates = 0;
  private values = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly target: SearchTarget,
  ) {}

  parse(): QueryAst {
    const ast = this.parseOr();
    const t = this.peek();
    if (t.kind !== 'end') throw new QuerySyntaxError(`unexpected ${describeToken(t)}`, t.pos);
    return ast;
  }

  private peek(): Token {
    return this.tokens[this.i]!;
  }

  private next(): Token {
    const t = this.tokens[this.i]!;
    if (t.kind !== 'end') this.i++;
    return t;
  }

  private isKeyword(t: Token, kw: string): boolean {
    return t.kind === 'word' && t.text.toUpperCase() === kw;
  }

  private parseOr(): QueryAst {
    let left = this.parseAnd();
    while (this.isKeyword(this.peek(), 'OR')) {
      this.next();
      left = { op: 'or', left, right: this.parseAnd() };
    }
    return left;
  }

  private parseAnd(): QueryAst {
    let left = this.parseTerm();
    while (this.isKeyword(this.peek(), 'AND')) {
      this.next();
      left = { op: 'and', left, right: this.parseTerm() };
    }
    return left;
  }

  private parseTerm(): QueryAst {
    const t = this.next();
    if (t.kind === '(') {
      if (++this.depth > SEARCH_LIMITS.maxDepth) throw new QuerySyntaxError(`parentheses nested deeper than ${SEARCH_LIMITS.maxDepth}`, t.pos);
      const inner = this.parseOr();
      this.depth--;
      const close = this.next();
      if (close.kind !== ')') throw new QuerySyntaxError(`expected ')' but found ${describeToken(close)}`, close.pos);
      return inner;
    }
    if (t.kind !== 'word') throw new QuerySyntaxError(`expected a field name but found ${describeToken(t)}`, t.pos);
    const field = canonicalField(this.target, t.text);
    if (!field) throw new QuerySyntaxError(`unknown field '${t.text}' for ${this.target} search`, t.pos);
    const kind = fieldKind(this.target, field)!;
    if (++this.predicates > SEARCH_LIMITS.maxPredicates) throw new QuerySyntaxError(`more than ${SEARCH_LIMITS.maxPredicates} comparisons`, t.pos);
    return this.parsePredicate(field, kind);
  }

  private parsePredicate(field: string, kind: FieldKind): QueryAst {
    const t = this.next();
    if (t.kind === 'op') {
      const v = this.value(t.text);
      return { op: 'cmp', field, cmp: t.text, value: coerce(field, kind, v.text, v.pos) };
    }
    if (this.isKeyword(t, 'IN')) return { op: 'in', field, values: this.list(field, kind) };
    if (this.isKeyword(t, 'IS')) {
      let n = this.next();
      const negated = this.isKeyword(n, 'NOT');
      if (negated) n = this.next();
      if (!this.isKeyword(n, 'NULL')) throw new QuerySyntaxError(`expected NULL or NOT NULL after IS but found ${describeToken(n)}`, n.pos);
      return { op: 'isNull', field, negated };
    }
    if (this.isKeyword(t, 'BETWEEN')) {
      if (kind === 'keyword') throw new QuerySyntaxError(`BETWEEN needs a number or time field, '${field}' is text`, t.pos);
      const low = this.value('BETWEEN');
      const and = this.next();
      if (!this.isKeyword(and, 'AND')) throw new QuerySyntaxError(`expected AND in BETWEEN but found ${describeToken(and)}`, and.pos);
      const high = this.value('AND');
      return { op: 'between', field, low: coerce(field, kind, low.text, low.pos) as number, high: coerce(field, kind, high.text, high.pos) as number };
    }
    if (this.isKeyword(t, 'STARTS_WITH')) {
      if (kind !== 'keyword') throw new QuerySyntaxError(`STARTS_WITH needs a text field, '${field}' is a ${kind} field`, t.pos);
      return { op: 'startsWith', field, value: this.value('STARTS_WITH').text };
    }
    throw new QuerySyntaxError(
      `expected an operator (=, !=, >, <, >=, <=, IN, IS, BETWEEN, STARTS_WITH) after '${field}' but found ${describeToken(t)}`,
      t.pos,
    );
  }

  private value(after: string): { text: string; pos: number } {
    const t = this.next();
    if (t.kind === 'string' || t.kind === 'word') return { text: t.text, pos: t.pos };
    throw new QuerySyntaxError(`expected a value after '${after}' but found ${describeToken(t)}`, t.pos);
  }

  private list(field: string, kind: FieldKind): Array<string | number> {
    const open = this.next();
    if (open.kind !== '(') throw new QuerySyntaxError(`expected '(' after IN but found ${describeToken(open)}`, open.pos);
    const values: Array<string | number> = [];
    for (;;) {
      const v = this.value(values.length === 0 ? '(' : ',');
      if (++this.values > SEARCH_LIMITS.maxValues) throw new QuerySyntaxError(`more than ${SEARCH_LIMITS.maxValues} values in IN lists`, v.pos);
      values.push(coerce(field, kind, v.text, v.pos));
      const sep = this.next();
      if (sep.kind === ')') return values;
      if (sep.kind !== ',') throw new QuerySyntaxError(`expected ',' or ')' in IN list but found ${describeToken(sep)}`, sep.pos);
    }
  }
}

/** Parses the `query` parameter; blank text means no filter. Throws QuerySyntaxError. */
export function parseQuery(text: string, target: SearchTarget = 'workflow'): QueryAst | undefined {
  checkLength('query', text);
  if (text.trim() === '') return undefined;
  return new QueryParser(tokenize(text), target).parse();
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const FREE_TEXT_AND = new Set(['AND', '&&']);
const FREE_TEXT_UNSUPPORTED = new Set(['OR', 'NOT', '||', '!']);

/**
 * Parses `freeText`: `*` or blank matches everything; otherwise whitespace-separated terms, all of
 * which must match. A term is a word, a quoted phrase, or `field:value` (value bare or quoted) on a
 * searchable field; `*` in a value is a wildcard. `AND` between terms is accepted and redundant; OR and
 * NOT are rejected (the `query` parameter has them). A colon in a plain word needs quotes.
 */
export function parseFreeText(text?: string, target: SearchTarget = 'workflow'): FreeText {
  const s = text ?? '';
  checkLength('freeText', s);
  const terms: Array<{ field?: string; value: string }> = [];
  let i = 0;
  while (i < s.length) {
    if (isSpace(s[i]!)) {
      i++;
      continue;
    }
    const start = i;
    if (s[i] === '"' || s[i] === "'") {
      const q = readQuoted(s, i);
      i = q.end;
      if (q.value !== '') terms.push({ value: q.value });
      continue;
    }
    while (i < s.length && !isSpace(s[i]!) && s[i] !== '"' && s[i] !== "'") i++;
    const chunk = s.slice(start, i);
    const colon = chunk.indexOf(':');
    if (colon > 0 && IDENTIFIER.test(chunk.slice(0, colon))) {
      const name = chunk.slice(0, colon);
      let value = chunk.slice(colon + 1);
      if (value === '' && (s[i] === '"' || s[i] === "'")) {
        const q = readQuoted(s, i);
        value = q.value;
        i = q.end;
      }
      terms.push(fieldTerm(target, name, value, start));
      continue;
    }
    if (chunk === '*' || FREE_TEXT_AND.has(chunk)) continue;
    if (FREE_TEXT_UNSUPPORTED.has(chunk)) {
      throw new QuerySyntaxError(`freeText terms are always AND-ed; '${chunk}' is not supported (use the query parameter)`, start);
    }
    terms.push({ value: chunk });
  }
  if (terms.length > SEARCH_LIMITS.maxPredicates) throw new QuerySyntaxError(`freeText has more than ${SEARCH_LIMITS.maxPredicates} terms`);
  return terms.length === 0 ? { kind: 'all' } : { kind: 'terms', terms };
}

function fieldTerm(target: SearchTarget, name: string, value: string, pos: number): { field: string; value: string } {
  const field = canonicalField(target, name);
  if (!field) throw new QuerySyntaxError(`unknown field '${name}' for ${target} search`, pos);
  if (value === '') throw new QuerySyntaxError(`expected a value after '${name}:'`, pos + name.length + 1);
  const kind = fieldKind(target, field)!;
  if (kind === 'keyword') return { field, value };
  if (value.includes('*')) throw new QuerySyntaxError(`wildcards apply to text fields only, '${field}' is a ${kind} field`, pos);
  return { field, value: String(coerce(field, kind, value, pos + name.length + 1)) };
}

/**
 * Parses `sort`: keys separated by `|` or `,`, each `field`, `field:ASC|DESC` (Conductor's form) or
 * `ASC:field`/`DESC:field` (the prefix form, also accepted). A key without an order sorts ascending, as in
 * Conductor. Order keywords are case-insensitive. Empty ⇒ no keys (the adapter's default applies).
 */
export function parseSort(sort?: string, target: SearchTarget = 'workflow'): SortKey[] {
  const keys: SortKey[] = [];
  if (!sort) return keys;
  checkLength('sort', sort);
  let pos = 0;
  for (const raw of sort.split(/[|,]/)) {
    const at = pos + (raw.length - raw.trimStart().length);
    pos += raw.length + 1;
    const part = raw.trim();
    if (part === '') continue;
    const pieces = part.split(':').map((p) => p.trim());
    if (pieces.length > 2) throw new QuerySyntaxError(`invalid sort key '${part}'`, at);
    let name: string;
    let order = 'ASC';
    if (pieces.length === 1) {
      name = pieces[0]!;
    } else {
      const [a, b] = pieces as [string, string];
      const aIsOrder = a.toUpperCase() === 'ASC' || a.toUpperCase() === 'DESC';
      [name, order] = aIsOrder && canonicalField(target, a) === undefined ? [b, a.toUpperCase()] : [a, b.toUpperCase()];
      if (order !== 'ASC' && order !== 'DESC') throw new QuerySyntaxError(`invalid sort order '${b}' (expected ASC or DESC)`, at);
    }
    const field = canonicalField(target, name);
    if (!field) throw new QuerySyntaxError(`unknown sort field '${name}' for ${target} search`, at);
    if (keys.length >= SEARCH_LIMITS.maxSortKeys) throw new QuerySyntaxError(`sort has more than ${SEARCH_LIMITS.maxSortKeys} keys`, at);
    keys.push({ field, order: order as 'ASC' | 'DESC' });
  }
  return keys;
}
