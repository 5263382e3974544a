import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { ScanLease } from '../../services/recovery-scan';

// Renew or release only while we still hold the lease (compare-and-set on the holder's token).
const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A cluster-wide lease in Redis: SET NX PX to take it, token-checked scripts to renew and release. */
export class RedisScanLease implements ScanLease {
  private readonly token = randomUUID();
  private readonly key: string;

  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
    name: string,
  ) {
    this.key = `${keyPrefix}lease:${name}`;
  }

  async acquire(ttlMs: number): Promise<boolean> {
    const ms = String(Math.ceil(ttlMs));
    if ((await this.redis.set(this.key, this.token, 'PX', ms, 'NX')) === 'OK') return true;
    return (await this.redis.eval(RENEW, 1, this.key, this.token, ms)) === 1;
  }

  async release(): Promise<void> {
    await this.redis.eval(RELEASE, 1, this.key, this.token);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
