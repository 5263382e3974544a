import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { AttemptDecision, AttemptSubject, FailedAttempts } from '../ports';
import { BEGIN_ATTEMPT, END_ATTEMPT } from './limit-scripts';

type AttemptCommands = Redis & {
  batonBeginAttempt(...args: Array<string | number>): Promise<number>;
  batonEndAttempt(...args: Array<string | number>): Promise<number>;
};

/** Failed attempts shared by every replica through Redis; each set expires with its window. */
export class RedisFailedAttempts implements FailedAttempts {
  private readonly redis: AttemptCommands;

  /** Takes ownership of `connection`. */
  constructor(
    connection: Redis,
    private readonly keyPrefix: string,
  ) {
    connection.defineCommand('batonBeginAttempt', { lua: BEGIN_ATTEMPT });
    connection.defineCommand('batonEndAttempt', { lua: END_ATTEMPT });
    this.redis = connection as AttemptCommands;
  }

  async begin(subjects: readonly AttemptSubject[], windowMs: number, now: number): Promise<AttemptDecision> {
    const attemptId = randomUUID();
    const keys = subjects.map((s) => this.keyOf(s.key));
    const wait = await this.redis.batonBeginAttempt(keys.length, ...keys, now, windowMs, attemptId, ...subjects.map((s) => s.limit));
    return wait > 0 ? { allowed: false, retryAfterMs: wait } : { allowed: true, attemptId };
  }

  async succeeded(attemptId: string, subjects: readonly AttemptSubject[], forgive: readonly string[]): Promise<void> {
    const keys = subjects.map((s) => this.keyOf(s.key));
    await this.redis.batonEndAttempt(keys.length, ...keys, attemptId, ...subjects.map((s) => (forgive.includes(s.key) ? '1' : '0')));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }

  // One hash tag: a script touches several subjects, which a Redis Cluster must find in one slot.
  private keyOf(subject: string): string {
    return `${this.keyPrefix}{attempts}:${subject}`;
  }
}
