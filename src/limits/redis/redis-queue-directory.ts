import type Redis from 'ioredis';
import type { PollRecord, QueueDirectory } from '../ports';

/**
 * Poll data and queue names shared by all replicas: a Redis hash of the last poll per
 * (task type, domain) and a set of queue names. A replica writes a poll at most once a second per
 * key, and a queue name once, so polling costs Redis almost nothing.
 */
export class RedisQueueDirectory implements QueueDirectory {
  private readonly lastWritten = new Map<string, number>();
  private readonly namesWritten = new Set<string>();

  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly throttleMs = 1000,
  ) {}

  private get pollKey(): string {
    return `${this.keyPrefix}polldata`;
  }
  private get queuesKey(): string {
    return `${this.keyPrefix}queues`;
  }

  recordPoll(p: PollRecord): void {
    const field = `${p.queueName}\u0000${p.domain ?? ''}`;
    if (p.lastPollTime - (this.lastWritten.get(field) ?? 0) < this.throttleMs) return;
    this.lastWritten.set(field, p.lastPollTime);
    this.redis.hset(this.pollKey, field, JSON.stringify(p)).catch(this.onError);
  }

  recordQueue(name: string): void {
    if (this.namesWritten.has(name)) return;
    this.namesWritten.add(name);
    this.redis.sadd(this.queuesKey, name).catch((e) => {
      this.namesWritten.delete(name);
      this.onError(e);
    });
  }

  async pollData(): Promise<PollRecord[]> {
    const all = await this.redis.hvals(this.pollKey);
    return all.map((v) => JSON.parse(v) as PollRecord);
  }

  async queues(): Promise<string[]> {
    return this.redis.smembers(this.queuesKey);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
