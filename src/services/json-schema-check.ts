import Ajv2020, { type CodeOptions, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import type { SchemaDef } from '../model/schemas';
import { compileLinearRegex, RegexRefusedError, RegexWorkBudget, RegexWorkLimitError } from '../lib/linear-regex';

// Checking values against JSON schemas (draft 2020-12, as Orkes' examples declare; other drafts' common
// keywords read the same). Only JSON schemas are checked: AVRO and PROTOBUF ones are stored, never enforced.

/** One way a value breaks a schema: where (a JSON pointer into the value) and what. */
export interface SchemaViolation {
  path: string;
  message: string;
}

/** Regex work one check may do (characters × pattern instructions): about a quarter second at worst, far less as a rule. */
export const MAX_PATTERN_WORK_PER_CHECK = 10_000_000;

/** The budget of the check running now: ajv's validators are synchronous, so one check runs at a time. */
let currentBudget: RegexWorkBudget | undefined;

// `pattern` and `patternProperties` are user regexes: RE2 (linear time) instead of RegExp, within the check's budget.
// ajv reads `code` only when it writes standalone validator source, which Baton never does.
const linearRegExp: NonNullable<CodeOptions['regExp']> = Object.assign(
  (pattern: string, flags: string) => {
    const re = compileLinearRegex(pattern, flags);
    return { test: (s: string) => (currentBudget ?? new RegexWorkBudget(MAX_PATTERN_WORK_PER_CHECK)).test(re, s), toString: () => re.toString() };
  },
  { code: 'compileLinearRegex' },
);

const ajv = new Ajv2020({ allErrors: true, strict: false, code: { regExp: linearRegExp } });
// ajv-formats' `regex` format only parses the value with RegExp (V8 compiles a pattern when it first runs, and this never runs it).
addFormats(ajv);
// ajv-formats' `url` regex backtracks polynomially (seconds for 80,000 characters); WHATWG URL parsing is linear.
ajv.addFormat('url', (s: string) => {
  if (!URL.canParse(s)) return false;
  const u = new URL(s);
  return ['http:', 'https:', 'ftp:'].includes(u.protocol) && u.hostname !== '';
});
/** Compiled validators by schema text, or why one does not compile: a schema is compiled once per distinct content. */
const compiled = new Map<string, ValidateFunction | Error>();
const MAX_COMPILED = 1000;

/** The schema's JSON Schema document, with its `$schema` dropped (the 2020-12 vocabulary is used whatever it names). */
function documentOf(data: Record<string, unknown>): Record<string, unknown> {
  const { $schema: _ignored, ...rest } = data;
  return rest;
}

function validatorFor(data: Record<string, unknown>): ValidateFunction {
  const key = JSON.stringify(data);
  let v = compiled.get(key);
  if (!v) {
    try {
      v = ajv.compile(documentOf(data));
    } catch (e) {
      v = e instanceof Error ? e : new Error(String(e));
    }
    if (compiled.size >= MAX_COMPILED) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, v);
  }
  if (v instanceof Error) throw v;
  return v;
}

/** Why `data` is not a usable JSON schema (a pattern RE2 cannot run included); undefined when it compiles. */
export function schemaProblem(data: Record<string, unknown>): string | undefined {
  try {
    validatorFor(data);
    return undefined;
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
}

/** Why saving `data` is refused: a pattern RE2 cannot run. Other schemas that do not compile are stored, as Orkes stores them. */
export function schemaRefusal(data: Record<string, unknown>): string | undefined {
  try {
    validatorFor(data);
    return undefined;
  } catch (e) {
    return e instanceof RegexRefusedError ? e.message : undefined;
  }
}

const describe = (e: ErrorObject): SchemaViolation => ({ path: e.instancePath || '/', message: e.message ?? e.keyword });

/** How `value` breaks `schema` (empty when it conforms, or when the schema is not of type JSON or has no data). */
export function schemaViolations(schema: SchemaDef, value: unknown): SchemaViolation[] {
  if (schema.type !== 'JSON' || !schema.data) return [];
  currentBudget = new RegexWorkBudget(MAX_PATTERN_WORK_PER_CHECK);
  try {
    const validate = validatorFor(schema.data);
    return validate(value) ? [] : (validate.errors ?? []).map(describe);
  } catch (e) {
    // A schema stored before its pattern was refused, or a value too long for its pattern: refused, not run.
    if (e instanceof RegexRefusedError || e instanceof RegexWorkLimitError) return [{ path: '/', message: e.message }];
    // A schema that does not compile (stored as Orkes stores it) conforms nothing: every check fails, saying why.
    return [{ path: '/', message: `the schema is not a usable JSON Schema: ${e instanceof Error ? e.message : String(e)}` }];
  } finally {
    currentBudget = undefined;
  }
}

/** The violations as one line: `/a must be integer; / must have required property 'b'`. */
export const violationText = (violations: SchemaViolation[]): string => violations.map((v) => `${v.path} ${v.message}`).join('; ');
