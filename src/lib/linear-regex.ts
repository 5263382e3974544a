import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';

// User-supplied regular expressions (JSON schema `pattern`, JSONPath filter literals) run here, with RE2
// semantics: linear in the input, so no pattern can backtrack for ever on the event loop. A pattern
// that only a backtracking engine can run (backreferences, lookaround) is refused, never run.
// JavaScript syntax is accepted (`\u0041`, `(?<name>...)`); RE2's classes are ASCII (`\s` is
// [\t\n\f\r ]) and `.` stops only at `\n`.

/** A pattern Baton will not run: unsupported syntax (needs backtracking), unknown flag, or too large. */
export class RegexRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexRefusedError';
  }
}

/** A regex check went past the work allowed to it (characters tested × the compiled pattern's size). */
export class RegexWorkLimitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RegexWorkLimitError';
  }
}

/** RE2 programs past this many instructions are refused: every tested character may cost one step per instruction. */
export const MAX_PROGRAM_SIZE = 10_000;
/** Longer pattern texts are refused before parsing (a long text may still compile small, and compiled patterns are cached). */
export const MAX_PATTERN_LENGTH = 10_000;

const FLAG_BITS: Readonly<Record<string, number>> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
  // Always Unicode code points; `g` only moves lastIndex, which a stateless test has none of.
  u: 0,
  g: 0,
};

const shown = (source: string): string => (source.length > 80 ? `${source.slice(0, 80)}…` : source);

export interface LinearRegex {
  readonly source: string;
  readonly flags: string;
  /** Instructions of the compiled program: the worst-case cost of one tested character. */
  readonly size: number;
  /** Whether the pattern matches somewhere in `input` (as RegExp.prototype.test). */
  test(input: string): boolean;
  /** The most work testing `input` can take, in character × instruction steps. */
  workFor(input: string): number;
  toString(): string;
}

function compile(source: string, flags: string): LinearRegex {
  if (source.length > MAX_PATTERN_LENGTH)
    throw new RegexRefusedError(`regular expression /${shown(source)}/ is too long: ${source.length} characters, at most ${MAX_PATTERN_LENGTH}`);
  let bits = 0;
  for (const f of flags) {
    const bit = FLAG_BITS[f];
    if (bit === undefined) throw new RegexRefusedError(`regular expression /${shown(source)}/${flags}: flag '${f}' is not supported (i, m, s, u and g are)`);
    bits |= bit;
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(RE2JS.translateRegExp(source), bits);
  } catch (e) {
    const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
    throw new RegexRefusedError(`regular expression /${shown(source)}/ cannot run in linear time (RE2 syntax: no backreferences or lookaround): ${why}`);
  }
  const size = re.programSize();
  if (size > MAX_PROGRAM_SIZE) {
    throw new RegexRefusedError(`regular expression /${shown(source)}/ is too large: ${size} instructions, at most ${MAX_PROGRAM_SIZE}`);
  }
  return {
    source,
    flags,
    size,
    test: (input) => re.test(input),
    workFor: (input) => (input.length + 1) * size,
    toString: () => `/${source}/${flags}`,
  };
}

const compiled = new LRUCache<string, LinearRegex>({ max: 1000 });

/** Compiles `source` (JavaScript syntax) with RE2 semantics; throws RegexRefusedError for what RE2 cannot run. */
export function compileLinearRegex(source: string, flags = ''): LinearRegex {
  const key = `${flags}/${source}`;
  let re = compiled.get(key);
  if (!re) {
    re = compile(source, flags);
    compiled.set(key, re);
  }
  return re;
}

/** Work allowed to the regex tests of one check, so many strings or patterns cannot add up to a stall either. */
export class RegexWorkBudget {
  private used = 0;

  constructor(readonly maxWork: number) {}

  get workUsed(): number {
    return this.used;
  }

  /** Tests `input`, charging its worst-case work first; past the budget, throws RegexWorkLimitError and tests nothing. */
  test(re: LinearRegex, input: string): boolean {
    this.used += re.workFor(input);
    if (this.used > this.maxWork) {
      throw new RegexWorkLimitError(
        `a string of ${input.length} characters cannot be checked against pattern /${shown(re.source)}/ within the limit of ${this.maxWork} steps (characters × pattern size)`,
      );
    }
    return re.test(input);
  }
}
