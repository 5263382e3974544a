import { randomUUID } from 'node:crypto';
import type Redis from 'ioredis';
import type { ReplicaRoster } from '../../services/recovery-scan';

// One hash, field = replica, value = when its mark runs out, by Redis's own clock (replicas' clocks may differ).
const NOW_MS = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;
const BEAT = `${NOW_MS} redis.call('HSET', KEYS[1], ARGV[1], now + tonumber(ARGV[2])) return 1`;
// Removes and answers the replicas whose mark ran out, so each departure is reported to one caller.
const DEPARTED = `${NOW_MS}
local gone = {}
local marks = redis.call('HGETALL', KEYS[1])
for i = 1, #marks, 2 do
  if tonumber(marks[i + 1]) < now then
    redis.call('HDEL', KEYS[1], marks[i])
    gone[#gone + 1] = marks[i]
  end
end
return gone`;

/** The replicas of a cluster that mark themselves alive in Redis (ReplicaRoster). */
export class RedisReplicaRoster implements ReplicaRoster {
  private readonly key: string;
  private readonly member: string;

  /** `name`: how this replica appears in others' logs (its host name); a random suffix keeps restarts apart. */
  constructor(
    private readonly redis: Redis,
    keyPrefix: string,
    roster: string,
    name: string,
  ) {
    this.key = `${keyPrefix}replicas:${roster}`;
    this.member = `${name}/${randomUUID().slice(0, 8)}`;
  }

  async beat(ttlMs: number): Promise<void> {
    await this.redis.eval(BEAT, 1, this.key, this.member, String(Math.ceil(ttlMs)));
  }

  async departed(): Promise<string[]> {
    return (await this.redis.eval(DEPARTED, 1, this.key)) as string[];
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
