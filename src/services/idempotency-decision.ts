import type { IdempotencyStrategy } from '../model/requests';

/**
 * Where the execution holding an idempotency key stands: `pending` (claimed, its start not yet
 * committed), `stale` (claimed long ago and never committed: its starter died), `open` (RUNNING or
 * PAUSED), `ended` (any terminal status).
 */
export type KeyHolderState = 'pending' | 'stale' | 'open' | 'ended';

/** What a start does with a key someone else holds: answer the holder's id, refuse (409), or take the key over and start anew. */
export type IdempotentStartOutcome = 'return-existing' | 'conflict' | 'take-over';

/** A claim that has not become an execution after this long is taken as abandoned (its starter crashed between claim and commit). */
export const STALE_CLAIM_MS = 60_000;

/**
 * Orkes' strategies: FAIL refuses while any execution holds the key, running or ended; RETURN_EXISTING
 * answers the holder's id, running or ended; FAIL_ON_RUNNING refuses while the holder is open and
 * starts a new execution (which takes the key) once it has ended.
 */
export function idempotentStartOutcome(strategy: IdempotencyStrategy, holder: KeyHolderState): IdempotentStartOutcome {
  if (holder === 'stale') return 'take-over';
  if (strategy === 'RETURN_EXISTING') return 'return-existing';
  if (strategy === 'FAIL_ON_RUNNING' && holder === 'ended') return 'take-over';
  return 'conflict';
}

/** The holder's state from what the store shows: its status when its execution exists, else how old the claim is. */
export function keyHolderState(status: string | undefined, terminal: boolean, claimedAt: number, now: number): KeyHolderState {
  if (status === undefined) return now - claimedAt > STALE_CLAIM_MS ? 'stale' : 'pending';
  return terminal ? 'ended' : 'open';
}
