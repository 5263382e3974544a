import type { IdempotencyStrategy } from '../model/requests';

/**
 * Where the execution holding an idempotency key stands: `pending` (claimed, its start not yet
 * committed), `stale` (claimed long ago and never committed: its starter died), `open` (RUNNING or
 * PAUSED), `ended` (any terminal status).
 */
export type KeyHolderState = 'pending' | 'stale' | 'open' | 'ended';

/**
 * What a start does with a key someone else holds: answer the holder's id, refuse (409), take the key over and
 * start anew, or ask the client to retry (the holder's start is still in flight: its execution may never exist).
 */
export type IdempotentStartOutcome = 'return-existing' | 'conflict' | 'take-over' | 'retry-later';

/** How long a start with RETURN_EXISTING waits for a holder's start still in flight to commit before answering 503. */
export const IN_FLIGHT_WAIT_MS = 5_000;

/** A claim that has not become an execution after this long is taken as abandoned (its starter crashed between claim and commit). */
export const STALE_CLAIM_MS = 60_000;

/**
 * Orkes' strategies: FAIL refuses while any execution holds the key, running or ended; RETURN_EXISTING
 * answers the holder's id, running or ended; FAIL_ON_RUNNING refuses while the holder is open and
 * starts a new execution (which takes the key) once it has ended.
 */
export function idempotentStartOutcome(strategy: IdempotencyStrategy, holder: KeyHolderState): IdempotentStartOutcome {
  if (holder === 'stale') return 'take-over';
  // An id whose start may still fail (its turn cut with its replica) is no answer: the client would hold an id
  // that never exists. Once it commits, the id; once the claim goes stale, a start of its own.
  if (strategy === 'RETURN_EXISTING') return holder === 'pending' ? 'retry-later' : 'return-existing';
  if (strategy === 'FAIL_ON_RUNNING' && holder === 'ended') return 'take-over';
  return 'conflict';
}

/** The holder's state from what the store shows: its status when its execution exists, else how old the claim is. */
export function keyHolderState(status: string | undefined, terminal: boolean, claimedAt: number, now: number): KeyHolderState {
  if (status === undefined) return now - claimedAt > STALE_CLAIM_MS ? 'stale' : 'pending';
  return terminal ? 'ended' : 'open';
}
