import { randomUUID } from 'node:crypto';
import type { AttemptDecision, AttemptSubject, FailedAttempts } from '../ports';
import { retryAfterMs } from '../attempt-window';

interface Failure {
  at: number;
  attemptId: string;
}

/** Subjects remembered at most: each failing key id or address adds one, so guessing ever new key ids cannot grow memory without bound. */
export const MAX_ATTEMPT_SUBJECTS = 100_000;

/** Failed attempts counted in this process (the embedded profile). */
export class LocalFailedAttempts implements FailedAttempts {
  private readonly failures = new Map<string, Failure[]>();

  constructor(private readonly maxSubjects = MAX_ATTEMPT_SUBJECTS) {}

  async begin(subjects: readonly AttemptSubject[], windowMs: number, now: number): Promise<AttemptDecision> {
    let wait = 0;
    const live = subjects.map((s) => {
      const kept = (this.failures.get(s.key) ?? []).filter((f) => f.at > now - windowMs);
      wait = Math.max(
        wait,
        retryAfterMs(
          kept.map((f) => f.at),
          s.limit,
          windowMs,
          now,
        ),
      );
      return kept;
    });
    if (wait > 0) return { allowed: false, retryAfterMs: wait };
    const attemptId = randomUUID();
    subjects.forEach((s, i) => this.keep(s.key, [...live[i]!, { at: now, attemptId }].slice(-s.limit)));
    return { allowed: true, attemptId };
  }

  async succeeded(attemptId: string, subjects: readonly AttemptSubject[], forgive: readonly string[]): Promise<void> {
    for (const s of subjects) {
      const left = forgive.includes(s.key) ? [] : (this.failures.get(s.key) ?? []).filter((f) => f.attemptId !== attemptId);
      if (left.length === 0) this.failures.delete(s.key);
      else this.failures.set(s.key, left);
    }
  }

  async close(): Promise<void> {
    this.failures.clear();
  }

  /** Re-inserts `key` as the newest subject, dropping the least recently failed ones past the bound. */
  private keep(key: string, list: Failure[]): void {
    this.failures.delete(key);
    this.failures.set(key, list);
    while (this.failures.size > this.maxSubjects) this.failures.delete(this.failures.keys().next().value!);
  }
}
