import { BatonError } from '../model/errors';
import type { Task } from '../model/execution';
import type { TaskResult } from '../model/requests';
import { isTerminalTask } from '../model/statuses';
import { OutcomeUnknown } from '../runtime/ports';

/**
 * How a call whose answer was lost is settled before the client hears of it: re-sent this many
 * times, `delayMs` x the attempt apart. A re-send is a fresh turn of the same actor: it runs after
 * the lost call's turn on the same activation, and on another one the store's fence (rev) lets only
 * one of the two commit; so its answer is the outcome of both.
 */
export interface SettlePolicy {
  resends: number;
  delayMs: number;
}

/** Enough for a rolling update: the actor host's own routing retries already wait for the actor to move. */
export const SETTLE_POLICY: SettlePolicy = { resends: 3, delayMs: 200 };

export interface UnknownOutcomeSettling<T> {
  /** The call as first made. */
  call(): Promise<T>;
  /** The same operation again, idempotent: a repeat of an applied one changes nothing and answers as applied. */
  resend(): Promise<T>;
  /** Last resort when every re-send was inconclusive: the answer read from the store, undefined when it shows no effect. */
  lookup(): Promise<T | undefined>;
}

/** The store or the actor could not tell whether a write happened (the turn's commit timed out). */
const isUnknown = (e: unknown): boolean => e instanceof OutcomeUnknown || (e instanceof BatonError && e.code === 'OUTCOME_UNKNOWN');

/** A re-send failure that tells nothing about the outcome: it may have run too, or it did not run at all. */
const inconclusive = (e: unknown): boolean => isUnknown(e) || !(e instanceof BatonError) || e.retryable;

/**
 * Runs `call`; when its outcome is unknown, settles it by re-sending, then by the store, and throws the
 * unknown outcome only when neither could tell (a client must never hear "retry" for what may have run).
 */
export async function settleUnknownOutcome<T>(
  s: UnknownOutcomeSettling<T>,
  policy: SettlePolicy = SETTLE_POLICY,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  let unknown: unknown;
  try {
    return await s.call();
  } catch (e) {
    if (!isUnknown(e)) throw e;
    unknown = e;
  }
  for (let attempt = 1; attempt <= policy.resends; attempt++) {
    await sleep(policy.delayMs * attempt);
    try {
      return await s.resend();
    } catch (e) {
      if (!inconclusive(e)) throw e;
    }
  }
  const found = await s.lookup().catch(() => undefined);
  if (found !== undefined) return found;
  throw unknown;
}

/**
 * What the stored task says of an update whose answer was lost: once the task has ended, a repeat changes nothing,
 * so its status answers (this result's: applied; another: ignored, as a repeat would be); undefined while it may still apply.
 */
export function storedUpdateOutcome(
  result: Pick<TaskResult, 'status' | 'extendLease'>,
  task: Pick<Task, 'status'> | undefined,
): 'applied' | 'ignored' | undefined {
  if (result.extendLease || !isTerminalTask(result.status) || !task || !isTerminalTask(task.status)) return undefined;
  return task.status === result.status ? 'applied' : 'ignored';
}
