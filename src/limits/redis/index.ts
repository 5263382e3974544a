import Redis from 'ioredis';
import { RedisLineageCounters } from './redis-lineage-counters';
import { RedisTaskLimits } from './redis-task-limits';
import { RedisWakeUps } from './redis-wake-ups';

export { RedisLineageCounters, RedisTaskLimits, RedisWakeUps };

export interface RedisLimitsConfig {
  url: string;
  keyPrefix: string;
  slotTtlMs?: number;
  onError?: (err: unknown) => void;
}

/** Composition-root helper: the limit ports of the distributed profile, each owning its connections. */
export const createRedisLimits = (cfg: RedisLimitsConfig): { wakeUps: RedisWakeUps; taskLimits: RedisTaskLimits; lineage: RedisLineageCounters } => ({
  wakeUps: new RedisWakeUps(new Redis(cfg.url), cfg.keyPrefix, cfg.onError),
  taskLimits: new RedisTaskLimits(new Redis(cfg.url), { keyPrefix: cfg.keyPrefix, slotTtlMs: cfg.slotTtlMs }),
  lineage: new RedisLineageCounters(new Redis(cfg.url), cfg.keyPrefix),
});
