/**
 * Lua commands of a task-queue partition kept in Redis. Each runs atomically inside Redis, so replicas
 * never see a half-applied push or take. All keys of one partition share a hash tag (one cluster slot).
 * Every command a script runs costs Redis as much as one a client sends, so each path runs only what
 * its case needs (a new entry is in no set yet).
 *
 * Keys (KEYS[1..4]):
 *   E  hash    taskId -> JSON [workflowId, priority, visibleAt, pushedAt, 0] (the 0: records of older
 *              versions kept a lease time there)
 *   R  zset    ready entries, scored priority * 1e13 + pushedAt (lower priority first, then first
 *              pushed, as Conductor's Redis queues order by time; one millisecond's pushes by task id,
 *              which grows with creation time). pushedAt is the pushing replica's clock (epoch ms);
 *              earlier versions put a counter there, whose entries go first while both run
 *   D  zset    delayed entries scored by visibleAt (and entries a replica of an earlier version
 *              leased, scored by the lease's end)
 *   L  set     ids leased by a replica of an earlier version (which leased, then removed what it
 *              claimed): while a rolling upgrade runs both, an expired one comes back like a delayed one
 *
 * Invariant: an id in R, D or L has its record in E, and is in exactly one of R and D; L's ids are in D.
 */

const PRELUDE = `
local E, R, D, L = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local function score(rec) return rec[2] * 1e13 + rec[4] end
local function place(id, rec, now)
  redis.call('ZREM', R, id)
  redis.call('ZREM', D, id)
  if rec[3] <= now then redis.call('ZADD', R, score(rec), id) else redis.call('ZADD', D, rec[3], id) end
end
`;

/**
 * Push entries, idempotent by task id: a pending entry only moves its visibility earlier; one an earlier
 * version leased becomes pending again. ARGV: now, then taskId, workflowId, priority, visibleAt per entry.
 * Returns how many entries changed.
 */
export const PUSH = `${PRELUDE}
local now = tonumber(ARGV[1])
local changed = 0
for i = 2, #ARGV, 4 do
  local id, vis = ARGV[i], tonumber(ARGV[i + 3])
  local rec = { ARGV[i + 1], tonumber(ARGV[i + 2]), vis, now, 0 }
  if redis.call('HSETNX', E, id, cjson.encode(rec)) == 1 then
    if vis <= now then redis.call('ZADD', R, score(rec), id) else redis.call('ZADD', D, vis, id) end
    changed = changed + 1
  else
    rec = cjson.decode(redis.call('HGET', E, id))
    local leased = redis.call('SREM', L, id) == 1
    if leased or rec[3] > vis then
      rec = { ARGV[i + 1], tonumber(ARGV[i + 2]), vis, rec[4], 0 }
      redis.call('HSET', E, id, cjson.encode(rec))
      place(id, rec, now)
      changed = changed + 1
    end
  end
end
return changed
`;

/**
 * Take up to ARGV count visible entries out of the partition (their records too, read and deleted in one
 * command each, so a take costs the same few commands whatever its count). Due delayed entries
 * are moved to ready first (at most 1000 a call). ARGV: now, count. Returns JSON {entries: [[taskId,
 * workflowId, priority, visibleAt]...], next} (cjson writes an empty entries list as {}); `next`, the
 * earliest time in D, only when nothing was taken (a poll that got entries does not wait).
 */
export const TAKE = `${PRELUDE}
local now, count = tonumber(ARGV[1]), tonumber(ARGV[2])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', D, '-inf', now, 'LIMIT', 0, 1000)) do
  local raw = redis.call('HGET', E, id)
  if raw then
    redis.call('SREM', L, id)
    redis.call('ZADD', R, score(cjson.decode(raw)), id)
  end
  redis.call('ZREM', D, id)
end
local out = {}
if count > 0 then
  local popped = redis.call('ZPOPMIN', R, count)
  -- One HMGET and one HDEL per 500 ids, not one of each per entry (unpack's argument limit bounds a chunk).
  for first = 1, #popped, 1000 do
    local ids = {}
    for i = first, math.min(first + 998, #popped - 1), 2 do ids[#ids + 1] = popped[i] end
    local raws = redis.call('HMGET', E, unpack(ids))
    redis.call('HDEL', E, unpack(ids))
    for j = 1, #ids do
      if raws[j] then
        local rec = cjson.decode(raws[j])
        out[#out + 1] = { ids[j], rec[1], rec[2], rec[3] }
      end
    end
  end
end
local result = { entries = out }
if #out == 0 then
  local first = redis.call('ZRANGE', D, 0, 0, 'WITHSCORES')
  if #first > 0 then result.next = tonumber(first[2]) end
end
return cjson.encode(result)
`;

/** Remove entries. ARGV: task ids. Returns how many were there. */
export const REMOVE = `${PRELUDE}
local removed = 0
for _, id in ipairs(ARGV) do
  if redis.call('HDEL', E, id) == 1 then
    removed = removed + 1
    if redis.call('SREM', L, id) == 0 then redis.call('ZREM', R, id) end
    redis.call('ZREM', D, id)
  end
end
return removed
`;
