/**
 * Lua scripts of the Redis task limits and queue directory; each runs atomically inside Redis, so
 * replicas never see a half-applied check-and-take.
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

/**
 * One poll record, keeping the newest `max`. KEYS[1] hash field -> record, KEYS[2] sorted set of fields
 * scored by poll time (ms). ARGV: field, record, pollTime, max. Returns how many records were evicted.
 */
export const RECORD_POLL = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], tonumber(ARGV[3]), ARGV[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over <= 0 then return 0 end
local oldest = redis.call('ZRANGE', KEYS[2], 0, over - 1)
redis.call('ZREMRANGEBYRANK', KEYS[2], 0, over - 1)
for _, field in ipairs(oldest) do redis.call('HDEL', KEYS[1], field) end
return over
`;

/**
 * Failed attempts, checked and counted in one step across replicas. KEYS: one sorted set per subject,
 * attempt ids scored by time (ms). ARGV: now, windowMs, attemptId, then each subject's limit.
 * Returns 0 when the attempt is allowed (and counted against every subject), else the milliseconds to wait.
 */
export const BEGIN_ATTEMPT = `
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local wait = 0
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[3 + i])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local n = redis.call('ZCARD', key)
  if n >= limit then
    local oldest = redis.call('ZRANGE', key, n - limit, n - limit, 'WITHSCORES')
    local w = math.max(1, tonumber(oldest[2]) + window - now)
    if w > wait then wait = w end
  end
end
if wait > 0 then return wait end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, now, ARGV[3])
  redis.call('ZREMRANGEBYRANK', key, 0, -(tonumber(ARGV[3 + i]) + 1))
  redis.call('PEXPIRE', key, window)
end
return 0
`;

/** The attempt succeeded. KEYS: the subjects' sorted sets. ARGV: attemptId, then per subject '1' to drop every failure it holds, '0' to drop this attempt only. */
export const END_ATTEMPT = `
for i, key in ipairs(KEYS) do
  if ARGV[1 + i] == '1' then redis.call('DEL', key) else redis.call('ZREM', key, ARGV[1]) end
end
return 0
`;

/**
 * One descendant start below a root execution. KEYS[1] set of the descendants' ids, KEYS[2] sorted set of
 * the last second's starts scored by time (ms). ARGV: workflowId, maxDescendants, maxPerSecond, now, idleMs.
 * Returns 0 when counted (or counted before), 1 when the tree is full, 2 when the second is. Both keys lapse
 * once the tree idles for idleMs (the starts are trimmed to the last second at every call).
 */
export const TRY_DESCENDANT_START = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('SCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 1 end
local now = tonumber(ARGV[4])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - 1000)
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 2 end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[5]))
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[5]))
return 0
`;
