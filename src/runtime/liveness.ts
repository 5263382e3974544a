/**
 * When a replica counts as wedged: its periodic self-probe (an actor call through its own sidecar)
 * failed `failures` times in a row, the first and the last of them at least `windowMs` apart, so a
 * rebalance that holds actor calls for a few seconds never turns the liveness check red.
 */
export interface LivenessPolicy {
  failures: number;
  windowMs: number;
}

/** The run of failed probes up to now; a probe that succeeds ends it. */
export interface ProbeHistory {
  readonly consecutiveFailures: number;
  readonly firstFailureAt?: number;
  readonly lastFailureAt?: number;
}

export const NO_FAILURES: ProbeHistory = { consecutiveFailures: 0 };

/** The history after one probe that ended at `at` (epoch ms). */
export function afterProbe(h: ProbeHistory, ok: boolean, at: number): ProbeHistory {
  if (ok) return NO_FAILURES;
  return { consecutiveFailures: h.consecutiveFailures + 1, firstFailureAt: h.firstFailureAt ?? at, lastFailureAt: at };
}

export function isWedged(h: ProbeHistory, p: LivenessPolicy): boolean {
  if (h.consecutiveFailures < p.failures || h.firstFailureAt === undefined || h.lastFailureAt === undefined) return false;
  return h.lastFailureAt - h.firstFailureAt >= p.windowMs;
}
