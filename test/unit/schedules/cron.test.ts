import { CronError, compileCron, normaliseZone, toParserSyntax } from '../../../src/schedules/cron';
import { nextSlots } from '../../../src/schedules/slots';

// Spring's six-field cron over cron-parser, with fixed instants.

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number[]): string[] => ms.map((t) => new Date(t).toISOString());

describe('compileCron', () => {
  it('reads seconds first: every two seconds', () => {
    const next = compileCron('*/2 * * * * *', 'UTC');
    expect(iso(nextSlots({ next }, at('2026-01-01T12:00:00.500Z'), 3))).toEqual(['2026-01-01T12:00:02.000Z', '2026-01-01T12:00:04.000Z', '2026-01-01T12:00:06.000Z']);
  });

  it('the next slot is strictly after the instant, also when the instant is a slot', () => {
    const next = compileCron('0 * * * * *', 'UTC');
    expect(next(at('2026-01-01T12:00:00.000Z'))).toBe(at('2026-01-01T12:01:00.000Z'));
    expect(next(at('2026-01-01T11:59:59.999Z'))).toBe(at('2026-01-01T12:00:00.000Z'));
  });

  it('takes ? and day names (weekdays at 9 in New York, across the DST change)', () => {
    const next = compileCron('0 0 9 ? * MON-FRI', 'America/New_York');
    expect(iso(nextSlots({ next }, at('2026-03-06T00:00:00Z'), 3))).toEqual(['2026-03-06T14:00:00.000Z', '2026-03-09T13:00:00.000Z', '2026-03-10T13:00:00.000Z']);
  });

  it('takes L (last day of month) and # (second Monday)', () => {
    expect(iso(nextSlots({ next: compileCron('0 0 0 L * *', 'UTC') }, at('2026-01-15T00:00:00Z'), 2))).toEqual(['2026-01-31T00:00:00.000Z', '2026-02-28T00:00:00.000Z']);
    expect(iso(nextSlots({ next: compileCron('0 0 0 ? * MON#2', 'UTC') }, at('2026-01-01T00:00:00Z'), 1))).toEqual(['2026-01-12T00:00:00.000Z']);
  });

  it('takes Spring macros and Sunday as 7', () => {
    expect(toParserSyntax('@daily')).toBe('0 0 0 * * *');
    expect(iso(nextSlots({ next: compileCron('0 0 0 * * 7', 'UTC') }, at('2026-01-01T00:00:00Z'), 1))).toEqual(['2026-01-04T00:00:00.000Z']);
  });

  it.each([
    ['* * * * *', /6 fields/],
    ['0 0 25 * * *', /Invalid cron expression/],
    ['0 0 0 15W * *', /Invalid cron expression/],
    ['0 0 0 30 2 *', /Invalid cron expression/],
    ['not a cron at all', /6 fields/],
  ])('refuses %s', (expr, message) => {
    expect(() => compileCron(expr, 'UTC')).toThrow(CronError);
    expect(() => compileCron(expr, 'UTC')).toThrow(message);
  });

  it('refuses an unknown zone; Z and an empty zone are UTC', () => {
    expect(() => compileCron('* * * * * *', 'Mars/Olympus')).toThrow(/Invalid zoneId/);
    expect(normaliseZone('Z')).toBe('UTC');
    expect(normaliseZone(undefined)).toBe('UTC');
    expect(normaliseZone('Europe/Berlin')).toBe('Europe/Berlin');
  });
});
