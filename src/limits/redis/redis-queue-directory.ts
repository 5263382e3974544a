import type Redis from 'ioredis';
import { LRUCache } from 'lru-cache';
import { POLL_DATA_MAX_ENTRIES, type PollRecord, type QueueDirectory } from '../ports';
import { RECORD_POLL } from './limit-scripts';

type DirectoryCommands = Redis & {
  batonRecordPoll(hash: string, recency: string, field: string, record: string, at: number, max: number): Promise<number>;
};

/**
 * Poll data and queue names shared by all replicas: a Redis hash of the last poll per
 * (task type, domain), with a sorted set of when each was polled that keeps the hash to the most
 * recently polled POLL_DATA_MAX_ENTRIES, and a set of queue names. A replica writes a poll at most
 * once a second per key, and a queue name once, so polling costs Redis almost nothing.
 */
export class RedisQueueDirectory implements QueueDirectory {
  private readonly redis: DirectoryCommands;
  /** When this replica last wrote each poll key (bounded like the hash: a forgotten key is written again). */
  private readonly lastWritten: LRUCache<string, number>;
  private readonly namesWritten = new Set<string>();

  /** Takes ownership of `connection`. */
  constructor(
    connection: Redis,
    private readonly keyPrefix: string,
    private readonly onError: (e: unknown) => void = () => undefined,
    private readonly throttleMs = 1000,
    private readonly maxPollRecords = POLL_DATA_MAX_ENTRIES,
  ) {
    connection.defineCommand('batonRecordPoll', { numberOfKeys: 2, lua: RECORD_POLL });
    this.redis = connection as DirectoryCommands;
    this.lastWritten = new LRUCache({ max: maxPollRecords });
  }

  private get pollKey(): string {
    return `${this.keyPrefix}polldata`;
  }
  private get pollRecencyKey(): string {
    return `${this.keyPrefix}polldata:recency`;
  }
  private get queuesKey(): string {
    return `${this.keyPrefix}queues`;
  }

  recordPoll(p: PollRecord): void {
    const field = `${p.queueName}\u0000${p.domain ?? ''}`;
    if (p.lastPollTime - (this.lastWritten.get(field) ?? 0) < this.throttleMs) return;
    this.lastWritten.set(field, p.lastPollTime);
    this.redis.batonRecordPoll(this.pollKey, this.pollRecencyKey, field, JSON.stringify(p), p.lastPollTime, this.maxPollRecords).catch(this.onError);
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
