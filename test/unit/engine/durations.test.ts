import { parseWaitDuration, parseWaitUntil } from '../../../src/engine/durations';

describe('parseWaitDuration', () => {
  it.each([
    ['30s', 30],
    ['5m', 300],
    ['2h', 7200],
    ['1d', 86_400],
    ['1h 30m', 5400],
    ['1h30m', 5400],
    ['2 days 3 hours', 2 * 86_400 + 3 * 3600],
    ['1 day 1 hour 1 minute 1 second', 86_400 + 3600 + 60 + 1],
    ['10 mins 5 secs', 605],
    ['45', 45],
    ['  10 Seconds ', 10],
    ['0s', 0],
  ])('%j is %d seconds', (text, seconds) => {
    expect(parseWaitDuration(text)).toBe(seconds);
  });

  it.each(['', 'abc', '5x', '5m junk', 'm5', '1.5h', '-5s'])('rejects %j', (text) => {
    expect(() => parseWaitDuration(text)).toThrow();
  });

  it('names the bad unit', () => {
    expect(() => parseWaitDuration('3 weeks')).toThrow("Invalid duration unit 'weeks' in '3 weeks'");
  });
});

describe('parseWaitUntil', () => {
  const at10 = Date.UTC(2026, 10, 22, 10, 0, 0);

  it.each([
    ['2026-11-22 10:00', at10],
    ['2026-11-22 10:00 UTC', at10],
    ['2026-11-22 10:00 utc', at10],
    ['2026-11-22 10:00:00', at10],
    ['2026-11-22T10:00', at10],
    ['2026-11-22T10:00:00Z', at10],
    ['2026-11-22T10:00:00.500Z', at10 + 500],
    ['2026-11-22 10:00 +02:00', at10 - 2 * 3600_000],
    ['2026-11-22 10:00 -0130', at10 + 90 * 60_000],
    ['2026-11-22', Date.UTC(2026, 10, 22)],
    [' 2026-11-22 10:00 ', at10],
  ])('%j is read as epoch ms (UTC when no zone)', (text, ms) => {
    expect(parseWaitUntil(text)).toBe(ms);
  });

  it.each(['', 'tomorrow', '2026-13-45 99:99', '22/11/2026'])('rejects %j', (text) => {
    expect(() => parseWaitUntil(text)).toThrow(/Invalid 'until' date/);
  });
});

describe('parseWaitDuration over long input', () => {
  it('reads 200,000 digits followed by junk as invalid, one pass (a search retried at every digit would backtrack quadratically)', () => {
    expect(() => parseWaitDuration(`${'1'.repeat(200_000)}!`)).toThrow(/^Invalid duration '1+!'$/);
    expect(() => parseWaitDuration(`${'1'.repeat(200_000)} ${'9'.repeat(200_000)}`)).toThrow(/^Invalid duration/);
    expect(parseWaitDuration(`${'1s '.repeat(50_000)}`)).toBe(50_000);
  });
});
