/** Command line of `npm run bench` to the settings of a run (pure). */
import type { Timing, WorkerSettings } from './load/protocol';

export type PhaseName =
  | 'ceiling'
  | 'bullmq'
  | 'simple3'
  | 'steps13'
  | 'update-v2'
  | 'latency'
  | 'in-flight'
  | 'two-servers'
  | 'conductor'
  | 'conductor-pg'
  | 'dapr-workflow'
  | 'restate'
  | 'distributed'
  | 'scale-out';
export const ALL_PHASES: readonly PhaseName[] = [
  'ceiling',
  'bullmq',
  'simple3',
  'steps13',
  'update-v2',
  'latency',
  'in-flight',
  'two-servers',
  'conductor',
  'conductor-pg',
  'dapr-workflow',
  'restate',
  'distributed',
  'scale-out',
];
/** Phases that measure a peer only: they need no Baton build. */
export const PEER_ONLY_PHASES: readonly PhaseName[] = ['ceiling', 'bullmq', 'conductor', 'conductor-pg', 'dapr-workflow', 'restate'];
/** Phases whose servers take minutes to start (a JVM, two replicas on real engines): a quick run leaves them out unless --only names them. */
export const SLOW_START_PHASES: Readonly<Partial<Record<PhaseName, string>>> = {
  conductor: "Conductor's JVM takes one to two minutes to start here",
  'conductor-pg': "Conductor's JVM takes one to two minutes to start here",
  distributed: 'two replicas on daprd, Cassandra and Elasticsearch take minutes to start and warm up',
  'scale-out': 'one to three replicas on daprd, Cassandra and Elasticsearch take minutes to start and warm up',
};

export interface BenchOptions {
  mode: 'quick' | 'full';
  timing: Timing;
  /** Timing of the open-loop phase (its warm-up ramps the rate up from zero). */
  latencyTiming: Timing;
  worker: WorkerSettings;
  /** Workflows kept running in the closed loop, per task type of the shape. */
  inFlightPerType: number;
  /** Fraction of the measured maximum at which latencies are taken. */
  latencyLoad: number;
  inFlightLevels: number[];
  /** Completed workflows after which RSS is read (0: no soak). */
  soakWorkflows: number;
  phases: PhaseName[];
  /** Phases left out of this run and why (quick mode without --only). */
  skippedPhases: { phase: PhaseName; reason: string }[];
  /** Warm-up of the JVM peer before its window (its JIT needs longer than Node's). */
  conductorWarmupMs: number;
  build: boolean;
  /** Run every Baton under `node --cpu-prof` and report where its CPU time went (figures get lower). */
  profile: boolean;
  out: string;
  /** A latest.json of the start commit, run back to back: the distributed tasks/s this run is compared with. */
  baseline: string | undefined;
}

export const USAGE = `usage: npm run bench -- [--quick] [--concurrency N] [--in-flight-per-type N] [--window S] [--warmup S]
  [--starters N] [--levels 1000,10000] [--soak N] [--no-build] [--profile] [--out FILE] [--baseline FILE]
  [--only ${ALL_PHASES.join(',')}]
  (--quick leaves out conductor, conductor-pg, distributed and scale-out unless --only names them)`;

/** Thrown for --help: the caller prints USAGE and exits successfully. */
export class UsageRequested extends Error {}

export function parseArgs(argv: readonly string[]): BenchOptions {
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (!arg.startsWith('--')) throw new Error(`unexpected argument ${arg}\n${USAGE}`);
    const eq = arg.indexOf('=');
    if (eq > 0) {
      flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else if (argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('--')) {
      flags.set(arg.slice(2), argv[++i] as string);
    } else {
      flags.set(arg.slice(2), true);
    }
  }
  const known = new Set([
    'quick',
    'concurrency',
    'starters',
    'in-flight-per-type',
    'window',
    'warmup',
    'levels',
    'soak',
    'only',
    'no-build',
    'profile',
    'out',
    'baseline',
    'help',
  ]);
  for (const k of flags.keys()) if (!known.has(k)) throw new Error(`unknown option --${k}\n${USAGE}`);
  if (flags.has('help')) throw new UsageRequested();

  const quick = flags.get('quick') === true;
  const num = (name: string, fallback: number, min: number): number => {
    const v = flags.get(name);
    if (v === undefined) return fallback;
    const n = Number(v);
    if (v === true || !Number.isFinite(n) || n < min) throw new Error(`--${name} needs a number >= ${min}`);
    return n;
  };
  const list = (name: string): string[] | undefined => {
    const v = flags.get(name);
    if (v === undefined) return undefined;
    if (v === true) throw new Error(`--${name} needs a comma-separated list`);
    return v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
  };

  const windowS = num('window', quick ? 3 : 20, 1);
  const warmupS = num('warmup', quick ? 1.5 : 5, 0);
  const levels = (list('levels') ?? (quick ? ['1000', '3000'] : ['1000', '10000', '100000'])).map((x) => {
    const n = Number(x);
    if (!Number.isInteger(n) || n < 1) throw new Error(`--levels: ${x} is not a positive integer`);
    return n;
  });
  const only = list('only');
  for (const p of only ?? []) if (!ALL_PHASES.includes(p as PhaseName)) throw new Error(`--only: unknown phase ${p}\n${USAGE}`);
  const out = flags.get('out');
  const baseline = flags.get('baseline');
  if (baseline === true) throw new Error('--baseline needs the path of a latest.json');
  return {
    mode: quick ? 'quick' : 'full',
    timing: { warmupMs: warmupS * 1000, windowMs: windowS * 1000 },
    latencyTiming: { warmupMs: Math.max(warmupS, quick ? 1.5 : 5) * 1000, windowMs: windowS * 1000 },
    worker: {
      concurrencyPerType: num('concurrency', 16, 1),
      pollTimeoutMs: 100,
      pollIntervalMs: 0,
      maxBackoffMs: 100,
      starters: num('starters', 8, 1),
    },
    inFlightPerType: num('in-flight-per-type', 32, 1),
    latencyLoad: 0.7,
    inFlightLevels: levels,
    soakWorkflows: num('soak', quick ? 0 : 100_000, 0),
    phases: only ? (only as PhaseName[]) : ALL_PHASES.filter((p) => !(quick && SLOW_START_PHASES[p])),
    skippedPhases:
      only || !quick ? [] : ALL_PHASES.flatMap((p) => (SLOW_START_PHASES[p] ? [{ phase: p, reason: `--quick: ${SLOW_START_PHASES[p] as string}` }] : [])),
    conductorWarmupMs: Math.max(warmupS * 1000, quick ? 10_000 : 30_000),
    build: !flags.has('no-build'),
    profile: flags.get('profile') === true,
    out: typeof out === 'string' ? out : 'bench/results/latest.json',
    baseline,
  };
}
