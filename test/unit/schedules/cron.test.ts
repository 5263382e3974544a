import { CronError, compileCron, normaliseZone, springDay, toParserSyntax } from '../../../src/schedules/cron';
import { nextSlots } from '../../../src/schedules/slots';

// Spring's six-field cron over cron-parser, with fixed instants.

const at = (iso: string): number => Date.parse(iso);
const iso = (ms: number[]): string[] => ms.map((t) => new Date(t).toISOString());

describe('compileCron', () => {
  it('reads seconds first: every two seconds', () => {
    const next = compileCron('*/2 * * * * *', 'UTC');
    expect(iso(nextSlots({ next }, at('2026-01-01T12:00:00.500Z'), 3))).toEqual([
      '2026-01-01T12:00:02.000Z',
      '2026-01-01T12:00:04.000Z',
      '2026-01-01T12:00:06.000Z',
    ]);
  });

  it('the next slot is strictly after the instant, also when the instant is a slot', () => {
    const next = compileCron('0 * * * * *', 'UTC');
    expect(next(at('2026-01-01T12:00:00.000Z'))).toBe(at('2026-01-01T12:01:00.000Z'));
    expect(next(at('2026-01-01T11:59:59.999Z'))).toBe(at('2026-01-01T12:00:00.000Z'));
  });

  it('takes ? and day names (weekdays at 9 in New York, across the DST change)', () => {
    const next = compileCron('0 0 9 ? * MON-FRI', 'America/New_York');
    expect(iso(nextSlots({ next }, at('2026-03-06T00:00:00Z'), 3))).toEqual([
      '2026-03-06T14:00:00.000Z',
      '2026-03-09T13:00:00.000Z',
      '2026-03-10T13:00:00.000Z',
    ]);
  });

  it('takes L (last day of month) and # (second Monday)', () => {
    expect(iso(nextSlots({ next: compileCron('0 0 0 L * *', 'UTC') }, at('2026-01-15T00:00:00Z'), 2))).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
    ]);
    expect(iso(nextSlots({ next: compileCron('0 0 0 ? * MON#2', 'UTC') }, at('2026-01-01T00:00:00Z'), 1))).toEqual(['2026-01-12T00:00:00.000Z']);
  });

  it("takes Spring's LW, L-n and nW in the day of month (cron-parser does not)", () => {
    // January 31 and February 28, 2026 are Saturdays.
    expect(iso(nextSlots({ next: compileCron('0 0 12 LW * ?', 'UTC') }, at('2026-01-15T00:00:00Z'), 2))).toEqual([
      '2026-01-30T12:00:00.000Z',
      '2026-02-27T12:00:00.000Z',
    ]);
    expect(iso(nextSlots({ next: compileCron('0 0 0 L-3 * ?', 'UTC') }, at('2026-02-01T00:00:00Z'), 2))).toEqual([
      '2026-02-25T00:00:00.000Z',
      '2026-03-28T00:00:00.000Z',
    ]);
    // August 1 and 15, 2026 are Saturdays: the 1st moves forward to Monday the 3rd, the 15th back to Friday the 14th.
    expect(iso(nextSlots({ next: compileCron('0 30 9 1W 8 ?', 'UTC') }, at('2026-07-01T00:00:00Z'), 1))).toEqual(['2026-08-03T09:30:00.000Z']);
    expect(iso(nextSlots({ next: compileCron('0 0 9 15W * ?', 'Europe/Berlin') }, at('2026-08-01T00:00:00Z'), 2))).toEqual([
      '2026-08-14T07:00:00.000Z',
      '2026-09-15T07:00:00.000Z',
    ]);
    // Past this month's slot, the next month's day.
    expect(compileCron('0 0 12 LW * ?', 'UTC')(at('2026-01-30T12:00:00Z'))).toBe(at('2026-02-27T12:00:00Z'));
  });

  it('springDay: the day each form names', () => {
    expect(springDay('LW', 2026, 5)).toBe(29); // May 31, 2026 is a Sunday
    expect(springDay('L-0', 2024, 2)).toBe(29);
    expect(springDay('31W', 2026, 4)).toBeUndefined();
    expect(springDay('31W', 2026, 5)).toBe(29); // the last day, a Sunday, moves back to Friday
  });

  it('takes Spring macros and Sunday as 7', () => {
    expect(toParserSyntax('@daily')).toBe('0 0 0 * * *');
    expect(iso(nextSlots({ next: compileCron('0 0 0 * * 7', 'UTC') }, at('2026-01-01T00:00:00Z'), 1))).toEqual(['2026-01-04T00:00:00.000Z']);
  });

  it.each([
    ['* * * * *', /6 fields/],
    ['0 0 25 * * *', /Invalid cron expression/],
    ['0 0 0 15W * MON', /day-of-week must be \? or \*/],
    ['0 0 0 32W * ?', /the day must be 1-31/],
    ['0 0 0 L-31 * ?', /at most L-30/],
    ['0 0 0 L-29 2 ?', /names no day/],
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
