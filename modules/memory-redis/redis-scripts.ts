/**
 * The Lua scripts of RedisMemory: each runs atomically on the server, so writers in any number
 * of processes see one consistent memory. Key names are built from the prefix inside the scripts
 * (a single Redis server or replicated primary, not Redis Cluster).
 *
 * | key | type | holds |
 * |---|---|---|
 * | `<prefix>sessions` | sorted set | session ids scored by creation number (creation order) |
 * | `<prefix>ord` | string | the creation counter |
 * | `<prefix>s:<id>` | hash | appName, userId, createdAt, updatedAt (ms since the epoch) |
 * | `<prefix>e:<id>` | list | the session's events as JSON (the seed's to_dict), oldest first |
 */

/** ARGV: prefix, id, appName, userId, now, maxSessions, evictCount → 1 created, 0 exists. */
export const CREATE_SESSION = `
local p, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', p .. 's:' .. id) == 1 then return 0 end
if redis.call('ZCARD', p .. 'sessions') >= tonumber(ARGV[6]) then
  local victims = redis.call('ZRANGE', p .. 'sessions', 0, tonumber(ARGV[7]) - 1)
  for _, v in ipairs(victims) do
    redis.call('DEL', p .. 's:' .. v, p .. 'e:' .. v)
    redis.call('ZREM', p .. 'sessions', v)
  end
end
redis.call('HSET', p .. 's:' .. id, 'appName', ARGV[3], 'userId', ARGV[4], 'createdAt', ARGV[5], 'updatedAt', ARGV[5])
redis.call('ZADD', p .. 'sessions', redis.call('INCR', p .. 'ord'), id)
return 1`;

/** ARGV: prefix, id, event JSON, maxEvents, now → 1 stored, 0 unknown session. */
export const ADD_EVENT = `
local p, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', p .. 's:' .. id) == 0 then return 0 end
redis.call('RPUSH', p .. 'e:' .. id, ARGV[3])
redis.call('LTRIM', p .. 'e:' .. id, -tonumber(ARGV[4]), -1)
redis.call('HSET', p .. 's:' .. id, 'updatedAt', ARGV[5])
return 1`;

/** ARGV: prefix, id → 1 deleted, 0 unknown. */
export const DELETE_SESSION = `
local p, id = ARGV[1], ARGV[2]
local n = redis.call('DEL', p .. 's:' .. id)
redis.call('DEL', p .. 'e:' .. id)
redis.call('ZREM', p .. 'sessions', id)
return n`;

/** ARGV: prefix, userId or '' → ids in creation order. */
export const LIST_SESSIONS = `
local p, user = ARGV[1], ARGV[2]
local ids = redis.call('ZRANGE', p .. 'sessions', 0, -1)
if user == '' then return ids end
local out = {}
for _, id in ipairs(ids) do
  if redis.call('HGET', p .. 's:' .. id, 'userId') == user then out[#out + 1] = id end
end
return out`;

/** ARGV: prefix, cutoff (ms) → sessions removed. */
export const CLEANUP = `
local p, cutoff = ARGV[1], tonumber(ARGV[2])
local removed = 0
for _, id in ipairs(redis.call('ZRANGE', p .. 'sessions', 0, -1)) do
  local updated = tonumber(redis.call('HGET', p .. 's:' .. id, 'updatedAt') or '0')
  if updated <= cutoff then
    redis.call('DEL', p .. 's:' .. id, p .. 'e:' .. id)
    redis.call('ZREM', p .. 'sessions', id)
    removed = removed + 1
  end
end
return removed`;

/** ARGV: prefix → { sessions, events }. */
export const STATS = `
local p = ARGV[1]
local ids = redis.call('ZRANGE', p .. 'sessions', 0, -1)
local events = 0
for _, id in ipairs(ids) do events = events + redis.call('LLEN', p .. 'e:' .. id) end
return { #ids, events }`;
