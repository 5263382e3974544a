/**
 * Parsing of reminder `dueTime` / `period` the way daprd does (dapr/dapr `pkg/actors/api/reminders.go`):
 * RFC3339 timestamps, Go durations (`1m30s`, `250ms`) and ISO-8601 durations (`PT1M30S`),
 * periods optionally with repetitions (`R5/PT10S`). Days are refused in periods, as Scheduler does.
 */
const GO_UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export const parseGoDuration = (s: string): number | undefined => {
  if (s === '0') return 0;
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/gy;
  let total = 0;
  let matched = 0;
  for (let m = re.exec(s); m; m = re.exec(s)) {
    total += Number(m[1]) * GO_UNITS[m[2]];
    matched = re.lastIndex;
  }
  return matched === s.length && matched > 0 ? total : undefined;
};

const parseIsoDuration = (s: string, allowDays: boolean): number | undefined => {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i.exec(s);
  if (!m || s.length <= 1 || /T$/i.test(s)) return undefined;
  if (m[1] && !allowDays) return undefined;
  return Number(m[1] ?? 0) * 86_400_000 + Number(m[2] ?? 0) * 3_600_000 + Number(m[3] ?? 0) * 60_000 + Number(m[4] ?? 0) * 1000;
};

/** Absolute due time (epoch ms) of a `dueTime` value registered at `now`; undefined when malformed. */
export const parseDueTime = (value: string | undefined, now: number): number | undefined => {
  if (value === undefined || value === '') return now;
  if (/^\d{4}-\d{2}-\d{2}T/.test(value)) {
    const t = Date.parse(value);
    return Number.isNaN(t) ? undefined : t;
  }
  const d = parseGoDuration(value) ?? parseIsoDuration(value, true);
  return d === undefined ? undefined : now + d;
};

export interface Period {
  everyMs: number;
  /** Total number of fires, when bounded by `Rn/`. */
  repetitions?: number;
}

export const parsePeriod = (value: string | undefined): Period | null | undefined => {
  if (value === undefined || value === '') return null;
  const rep = /^R(\d+)\/(.+)$/.exec(value);
  const body = rep ? rep[2] : value;
  const everyMs = parseGoDuration(body) ?? parseIsoDuration(body, false);
  if (everyMs === undefined || everyMs <= 0) return undefined;
  return rep ? { everyMs, repetitions: Number(rep[1]) } : { everyMs };
};
