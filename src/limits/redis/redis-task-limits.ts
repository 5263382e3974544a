import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { TaskLimits } from '../ports';
import { TRY_ACQUIRE, TRY_RATE } from './limit-scripts';

type LimitCommands = Redis & {
  batonTryRate(key: string, now: number, windowMs: number, limit: number, member: string): Promise<number>;
  batonTryAcquire(key: string, limit: number, taskId: string, ttlMs: number): Promise<number>;
};

export interface RedisTaskLimitsOptions {
  keyPrefix: string;
  /**
   * A concurrency slot never released (its replica died between poll and update) frees itself
   * after this long; re-acquiring by the same task id renews it.
   */
  slotTtlMs?: number;
}

/** TaskDef rate and concurrency limits shared by every replica through Redis. */
export class RedisTaskLimits implements TaskLimits {
  private readonly redis: LimitCommands;
  private readonly slotTtlMs: number;

  /** Takes ownership of `connection`. */
  constructor(
    connection: Redis,
    private readonly opts: RedisTaskLimitsOptions,
  ) {
    connection.defineCommand('batonTryRate', { numberOfKeys: 1, lua: TRY_RATE });
    connection.defineCommand('batonTryAcquire', { numberOfKeys: 1, lua: TRY_ACQUIRE });
    this.redis = connection as LimitCommands;
    this.slotTtlMs = opts.slotTtlMs ?? 24 * 3600 * 1000;
  }

  async tryRate(taskDefName: string, perFrequency: number, frequencySeconds: number, now: number): Promise<boolean> {
    if (perFrequency <= 0 || frequencySeconds <= 0) return true;
    const granted = await this.redis.batonTryRate(
      `${this.opts.keyPrefix}rate:${taskDefName}`,
      now,
      frequencySeconds * 1000,
      perFrequency,
      `${now}:${randomUUID()}`,
    );
    return granted === 1;
  }

  async tryAcquire(taskDefName: string, limit: number, taskId: string): Promise<boolean> {
    if (limit <= 0) return true;
    const held = await this.redis.batonTryAcquire(this.slotsKey(taskDefName), limit, taskId, this.slotTtlMs);
    return held === 1;
  }

  async release(taskDefName: string, taskId: string): Promise<void> {
    await this.redis.zrem(this.slotsKey(taskDefName), taskId);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }

  private slotsKey(taskDefName: string): string {
    return `${this.opts.keyPrefix}slots:${taskDefName}`;
  }
}
