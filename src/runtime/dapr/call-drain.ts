// How long daprd waits for this app's in-flight actor calls before an actor moves (drainOngoingCallTimeout),
// against placement's dissemination round (`--disseminate-timeout`, 8 s by default: dapr
// cmd/placement/options/options.go). During a round each sidecar waits up to the drain for its local calls of
// every changed actor type before it acknowledges; a sidecar late for the round is dropped from it, and
// daprd 1.18.2 then keeps those types blocked until the next change of the table (a healthy survivor wedged).

/** The longest drain allowed: half the round, leaving the other half to the lock, update and unlock messages. */
export const maxCallDrainMs = (disseminateTimeoutMs: number): number => Math.floor(disseminateTimeoutMs / 2);

/** Why a drain does not fit placement's round; undefined when it does. */
export function callDrainProblem(drainMs: number, disseminateTimeoutMs: number): string | undefined {
  const max = maxCallDrainMs(disseminateTimeoutMs);
  if (drainMs <= max) return undefined;
  return `an actor call drain of ${drainMs} ms does not fit placement's ${disseminateTimeoutMs} ms dissemination round: at most ${max} ms (half the round), or a survivor whose call outlives the round is dropped from it and its actors stay blocked`;
}
