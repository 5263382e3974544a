import type Redis from 'ioredis';

/**
 * Remembers CloudEvent ids already handled, so a redelivered message is acked without running its
 * handler again. Marked only after the handler succeeded.
 */
export interface DeliveryDedupe {
  isDone(id: string): Promise<boolean>;
  markDone(id: string): Promise<void>;
  /** Claims the id while its handler runs, across replicas; false when another delivery holds it. */
  begin?(id: string): Promise<boolean>;
  /** Releases the claim taken by `begin` (after success or failure). */
  end?(id: string): Promise<void>;
}

/**
 * In-process window of the most recent ids. Best effort: a redelivery that reaches another
 * replica, or arrives after `capacity` newer ids, runs the handler again (handlers stay idempotent).
 */
export class RecentIds implements DeliveryDedupe {
  private readonly ids = new Set<string>();
  constructor(private readonly capacity = 10_000) {}

  async isDone(id: string): Promise<boolean> {
    return this.ids.has(id);
  }

  async markDone(id: string): Promise<void> {
    this.ids.delete(id);
    this.ids.add(id);
    if (this.ids.size > this.capacity) {
      const oldest = this.ids.values().next().value;
      if (oldest !== undefined) this.ids.delete(oldest);
    }
  }
}

/** Ids shared by every replica in Redis for `ttlSeconds` (covers redeliveries to another replica). */
export class RedisDeliveryDedupe implements DeliveryDedupe {
  constructor(
    private readonly redis: Redis,
    private readonly keyPrefix: string,
    private readonly ttlSeconds = 24 * 3600,
    /** A claim outlives a crashed replica by at most this long. */
    private readonly inFlightMs = 60_000,
  ) {}

  async isDone(id: string): Promise<boolean> {
    return (await this.redis.exists(this.key(id))) === 1;
  }

  async markDone(id: string): Promise<void> {
    await this.redis.set(this.key(id), '1', 'EX', this.ttlSeconds);
  }

  /** Two replicas receiving the same id at once: one runs it, the other answers RETRY and later finds it done. */
  async begin(id: string): Promise<boolean> {
    return (await this.redis.set(this.inFlightKey(id), '1', 'PX', this.inFlightMs, 'NX')) === 'OK';
  }

  async end(id: string): Promise<void> {
    await this.redis.del(this.inFlightKey(id));
  }

  private key(id: string): string {
    return `${this.keyPrefix}delivered:${id}`;
  }

  private inFlightKey(id: string): string {
    return `${this.keyPrefix}delivering:${id}`;
  }
}
