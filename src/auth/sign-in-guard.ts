import { retryAfterSeconds } from '../limits/attempt-window';
import type { AttemptSubject, FailedAttempts } from '../limits/ports';
import { Errors } from '../model/named-errors';
import { RetryLater } from './retry-later';

/**
 * Failed POST /api/token attempts allowed per access key id and per client address within a window
 * (BATON_TOKEN_MAX_FAILURES_PER_KEY, BATON_TOKEN_MAX_FAILURES_PER_CLIENT, BATON_TOKEN_FAILURE_WINDOW_SECONDS).
 */
export interface SignInLimits {
  perKey: number;
  perClient: number;
  windowMs: number;
}

/**
 * Brute force on access key secrets: past a limit every attempt is refused with a 429 until the window
 * passes, even one with the right secret, so guessing learns nothing. Unknown key ids count like known
 * ones (a difference would tell which exist). A success forgives its key id's failures (only the
 * secret's holder can do that), never its address's (an attacker's own key would wipe them).
 */
export class SignInGuard {
  constructor(
    private readonly attempts: FailedAttempts,
    private readonly limits: SignInLimits,
    private readonly now: () => number = Date.now,
  ) {}

  /** `check` answers the principal, or undefined for a wrong key id or secret (a failure). */
  async attempt<T>(keyId: string, client: string, check: () => Promise<T | undefined>): Promise<T | undefined> {
    const key = `key:${keyId}`;
    const subjects: AttemptSubject[] = [
      { key, limit: this.limits.perKey },
      { key: `client:${client}`, limit: this.limits.perClient },
    ];
    // Without the count (Redis unreachable) no secret is checked: a retryable 503, never an unlimited endpoint.
    const decision = await this.attempts.begin(subjects, this.limits.windowMs, this.now()).catch(() => {
      throw Errors.TOKEN_LIMITS_UNCHECKABLE();
    });
    if (!decision.allowed)
      throw new RetryLater('Too many failed token requests for this access key or from this client: retry later', retryAfterSeconds(decision.retryAfterMs));
    let result: T | undefined;
    try {
      result = await check();
    } catch (err) {
      // Not an answer on the secret (hashing busy, store down): it does not count.
      await this.attempts.succeeded(decision.attemptId, subjects, []).catch(() => undefined);
      throw err;
    }
    // The caller has shown the secret: a lost forgiveness only leaves one failure counted.
    if (result !== undefined) await this.attempts.succeeded(decision.attemptId, subjects, [key]).catch(() => undefined);
    return result;
  }
}
