// WAIT task inputs (Conductor's Wait task): `duration` like "30s", "5m", "1h 30m", "2 days 3 hours";
// `until` like "2026-11-22 10:00", "2026-11-22 10:00 UTC" or an ISO-8601 timestamp.

const UNITS: Record<string, number> = {
  s: 1,
  sec: 1,
  secs: 1,
  second: 1,
  seconds: 1,
  m: 60,
  min: 60,
  mins: 60,
  minute: 60,
  minutes: 60,
  h: 3600,
  hr: 3600,
  hrs: 3600,
  hour: 3600,
  hours: 3600,
  d: 86400,
  day: 86400,
  days: 86400,
};

/** Seconds in a duration text; throws on anything it cannot read. */
export function parseWaitDuration(text: string): number {
  const s = text.trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  if (s === '') throw new Error(`Invalid duration '${text}'`);
  // One token at a time from where the last ended (sticky): a global search retried at every digit of a
  // long digit run backtracks quadratically (seconds for 40,000 digits).
  const token = /\s*(\d+)\s*([a-z]+)/y;
  let total = 0;
  while (token.lastIndex < s.length) {
    const m = token.exec(s);
    if (!m) throw new Error(`Invalid duration '${text}'`);
    const unit = UNITS[m[2]!];
    if (unit === undefined) throw new Error(`Invalid duration unit '${m[2]}' in '${text}'`);
    total += Number(m[1]) * unit;
  }
  return total;
}

/** Epoch ms of an `until` text; a date-time without zone is read as UTC. */
export function parseWaitUntil(text: string): number {
  const s = text.trim();
  const m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?)\s*(z|utc|[+-]\d{2}:?\d{2})?$/i.exec(s);
  let ms: number;
  if (m) {
    const zone = !m[3] || /^(z|utc)$/i.test(m[3]) ? 'Z' : m[3];
    ms = Date.parse(`${m[1]}T${m[2]}${zone}`);
  } else if (/^\d{4}-\d{2}-\d{2}$/.test(s)) {
    ms = Date.parse(`${s}T00:00:00Z`);
  } else {
    ms = Date.parse(s);
  }
  if (Number.isNaN(ms)) throw new Error(`Invalid 'until' date '${text}'`);
  return ms;
}
