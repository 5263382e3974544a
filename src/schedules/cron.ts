import { CronExpressionParser } from 'cron-parser';
import type { NextSlot } from './slots';

// Spring's cron dialect (what Conductor's and Orkes' schedulers take) over cron-parser: six fields
// with seconds first, `?` for "no specific value", names (JAN, MON-FRI), L, W and #, in a time zone.
// cron-parser lacks the day-of-month forms LW, L-n and nW: those are computed here, month by month.
// Pure: no clock reads; the caller passes every instant.

export class CronError extends Error {}

/** Spring's macros, as six-field expressions. */
const MACROS: Record<string, string> = {
  '@yearly': '0 0 0 1 1 *',
  '@annually': '0 0 0 1 1 *',
  '@monthly': '0 0 0 1 * *',
  '@weekly': '0 0 0 * * 0',
  '@daily': '0 0 0 * * *',
  '@midnight': '0 0 0 * * *',
  '@hourly': '0 0 * * * *',
};

/** A zone id as Java's ZoneId spells the common ones ("UTC", "Z", "Europe/Berlin"); undefined when unknown. */
export function normaliseZone(zoneId: string | null | undefined): string | undefined {
  const z = zoneId == null || zoneId === '' ? 'UTC' : zoneId === 'Z' ? 'UTC' : zoneId;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: z });
    return z;
  } catch {
    return undefined;
  }
}

/** The expression cron-parser reads for a Spring one; throws CronError naming what is wrong. */
export function toParserSyntax(expression: string): string {
  const trimmed = expression.trim();
  const macro = MACROS[trimmed.toLowerCase()];
  if (macro) return macro;
  const fields = trimmed.split(/\s+/);
  if (fields.length !== 6) throw new CronError(`Cron expression must consist of 6 fields (found ${fields.length} in "${expression}")`);
  // `?` means "no specific value" in the day fields: the same as `*` to cron-parser.
  return fields.map((f) => (f === '?' ? '*' : f)).join(' ');
}

/** Spring's day-of-month forms cron-parser lacks: LW (last weekday), L-n (n days before the last), nW (weekday nearest day n). */
const SPRING_DAY = /^(?:(LW)|L-(\d{1,2})|(\d{1,2})W)$/;

/** The day a Spring day-of-month form names in a month (1-12), or undefined when that month has none. */
export function springDay(form: string, year: number, month: number): number | undefined {
  const m = SPRING_DAY.exec(form);
  if (!m) return undefined;
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const weekday = (d: number): number => new Date(Date.UTC(year, month - 1, d)).getUTCDay();
  if (m[1]) {
    let d = days;
    while (weekday(d) === 0 || weekday(d) === 6) d--;
    return d;
  }
  if (m[2] !== undefined) {
    const d = days - Number(m[2]);
    return d >= 1 ? d : undefined;
  }
  const n = Number(m[3]);
  if (n > days) return undefined;
  // The nearest weekday within the month: a Saturday moves back (the 1st forward to Monday the 3rd), a Sunday forward (the last day back to Friday).
  if (weekday(n) === 6) return n === 1 ? 3 : n - 1;
  if (weekday(n) === 0) return n === days ? n - 2 : n + 1;
  return n;
}

const monthFormats = new Map<string, Intl.DateTimeFormat>();
/** Year and month (1-12) of an instant on the zone's calendar. */
function calendarMonth(t: number, tz: string): { year: number; month: number } {
  let f = monthFormats.get(tz);
  if (!f) monthFormats.set(tz, (f = new Intl.DateTimeFormat('en-US', { timeZone: tz, year: 'numeric', month: 'numeric' })));
  const parts = f.formatToParts(t);
  const num = (type: string): number => Number(parts.find((p) => p.type === type)?.value);
  return { year: num('year'), month: num('month') };
}

/** A parsed cron in a zone: the first slot strictly after any instant. */
export function compileCron(expression: string, zoneId: string | null | undefined): NextSlot {
  const tz = normaliseZone(zoneId);
  if (!tz) throw new CronError(`Invalid zoneId: ${zoneId}`);
  const syntax = toParserSyntax(expression);
  const parseSyntax = (text: string, currentDate: number) => {
    try {
      return CronExpressionParser.parse(text, { currentDate, tz, strict: false });
    } catch (e) {
      throw new CronError(`Invalid cron expression "${expression}": ${(e as Error).message}`);
    }
  };
  const fields = syntax.split(' ');
  if (SPRING_DAY.test(fields[3] ?? '')) return compileSpringDay(expression, fields, tz, parseSyntax);
  const parse = (currentDate: number) => parseSyntax(syntax, currentDate);
  // Parse once now so a bad expression fails at save, not at the first firing.
  const probe = parse(0);
  probe.next();
  return (t) => {
    try {
      // cron-parser's next() is strictly after currentDate, to the second: start from t's own second so a slot equal to t is not repeated.
      const next = parse(t).next().getTime();
      return next > t ? next : undefined;
    } catch {
      return undefined; // no slot left (e.g. a year-bounded expression)
    }
  };
}

/** LW, L-n or nW in the day of month: month by month, the day the form names there, then cron-parser for the time of day. */
function compileSpringDay(
  expression: string,
  fields: string[],
  tz: string,
  parse: (text: string, currentDate: number) => ReturnType<typeof CronExpressionParser.parse>,
): NextSlot {
  const form = fields[3] as string;
  const bad = (why: string): CronError => new CronError(`Invalid cron expression "${expression}": ${why}`);
  if (fields[5] !== '*') throw bad(`day-of-week must be ? or * with ${form}`);
  const m = SPRING_DAY.exec(form)!;
  if (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 31)) throw bad(`${form}: the day must be 1-31`);
  if (m[2] !== undefined && Number(m[2]) > 30) throw bad(`${form}: at most L-30`);
  const months = new Set(parse([...fields.slice(0, 3), '*', fields[4], '*'].join(' '), 0).fields.month.values as number[]);
  const next: NextSlot = (t) => {
    let { year, month } = calendarMonth(t, tz);
    // Eight years cover every month pattern (leap years included); past them the form never fires.
    for (let i = 0; i < 96; i++) {
      const day = months.has(month) ? springDay(form, year, month) : undefined;
      if (day !== undefined) {
        let slot: number | undefined;
        try {
          slot = parse([fields[0], fields[1], fields[2], String(day), String(month), '*'].join(' '), t)
            .next()
            .getTime();
        } catch {
          slot = undefined; // no such slot left (as below)
        }
        if (slot !== undefined && slot > t && calendarMonth(slot, tz).year === year) return slot;
      }
      if (++month > 12) {
        month = 1;
        year++;
      }
    }
    return undefined;
  };
  if (next(0) === undefined) throw bad(`${form} names no day in the months it allows`);
  return next;
}
