/**
 * Lua scripts of the Redis task limits; each runs atomically inside Redis, so replicas never
 * see a half-applied check-and-take.
 */

/**
 * Sliding-window rate limit. KEYS[1] sorted set of grants scored by time (ms).
 * ARGV: now, windowMs, limit, member. Returns 1 when granted.
 */
export const TRY_RATE = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now, ARGV[4])
redis.call('PEXPIRE', key, window)
return 1
`;

/**
 * Concurrency slots. KEYS[1] sorted set of task ids scored by slot expiry (ms, Redis clock).
 * ARGV: limit, taskId, ttlMs. Re-acquiring by the same task id refreshes its slot. Returns 1 when held.
 */
export const TRY_ACQUIRE = `
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local ttl = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
if redis.call('ZSCORE', key, ARGV[2]) == false and redis.call('ZCARD', key) >= limit then return 0 end
redis.call('ZADD', key, now + ttl, ARGV[2])
local keep = redis.call('PTTL', key)
if keep < ttl then redis.call('PEXPIRE', key, ttl) end
return 1
`;
