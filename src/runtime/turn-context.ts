import { AsyncLocalStorage } from 'node:async_hooks';
import { BatonError } from '../model/errors';

/** The actor whose turn is running in the current async context. */
export interface TurnMark {
  readonly type: string;
  readonly id: string;
}

const turns = new AsyncLocalStorage<TurnMark>();

/** Runs `fn` as (part of) a turn of `mark`: what it awaits is work the turn holds its actor for. */
export const inTurn = <T>(mark: TurnMark, fn: () => T): T => turns.run(mark, fn);

/** The turn the current code runs in, if any (work started by `outsideTurn` runs in none). */
export const currentTurn = (): TurnMark | undefined => turns.getStore();

/**
 * Starts work the running turn does not wait for (fire-and-forget, an outbox drained after the
 * commit): it runs outside the turn, so it may call other actors.
 */
export const outsideTurn = <T>(fn: () => T): T => turns.exit(fn);

/**
 * An actor call made from inside a turn through the sidecar. Placement's dissemination round waits
 * for every in-flight call of the actor types it moves while it holds new ones: a turn awaiting such
 * a call can outlive the round and get its sidecar dropped. Start the call after the turn instead.
 */
export class CallInsideTurn extends BatonError {
  constructor(
    readonly call: { type: string; id: string; method: string },
    readonly turn: TurnMark,
  ) {
    super(500, `actor call ${call.type}.${call.method} (${call.id}) made inside a turn of ${turn.type} ${turn.id}: start it after the turn`);
  }
}
