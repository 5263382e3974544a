import { CronExpressionParser } from 'cron-parser';
import type { NextSlot } from './slots';

// Spring's cron dialect (what Conductor's and Orkes' schedulers take) over cron-parser: six fields
// with seconds first, `?` for "no specific value", names (JAN, MON-FRI), L, W and #, in a time zone.
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

/** A parsed cron in a zone: the first slot strictly after any instant. */
export function compileCron(expression: string, zoneId: string | null | undefined): NextSlot {
  const tz = normaliseZone(zoneId);
  if (!tz) throw new CronError(`Invalid zoneId: ${zoneId}`);
  const syntax = toParserSyntax(expression);
  const parse = (currentDate: number) => {
    try {
      return CronExpressionParser.parse(syntax, { currentDate, tz, strict: false });
    } catch (e) {
      throw new CronError(`Invalid cron expression "${expression}": ${(e as Error).message}`);
    }
  };
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
