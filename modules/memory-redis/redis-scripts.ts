/**
 * The Lua scripts of RedisMemory: each runs atomically on the server, so writers in any number
 * of processes see one consistent memory. Key names are built from the prefix inside the scripts.
 * On a Redis Cluster the prefix is `{<keyPrefix>}`: one hash tag, so every key of a memory is in
 * one slot and the memory-wide scripts (eviction, the event order, `recent`) stay atomic — the
 * memory works on a cluster but lives on one primary (spreading it would split those scripts).
 *
 * | key | type | holds |
 * |---|---|---|
 * | `<prefix>sessions` | sorted set | session ids scored by creation number (creation order) |
 * | `<prefix>ord` | string | the creation counter |
 * | `<prefix>s:<id>` | hash | appName, userId, createdAt, updatedAt (ms since the epoch) |
 * | `<prefix>s:<id>` field `added` | hash field | how many events the session was ever given (numbers its events 1, 2, …) |
 * | `<prefix>e:<id>` | list | the session's events as JSON (MemoryEvent JSON), oldest first |
 * | `<prefix>eseq` | string | the memory-wide event counter (the order of additions) |
 * | `<prefix>recent` | sorted set | one member `<gseq>|<n>|<id>` per event still kept, scored by gseq: getRecentEvents walks it from the top |
 * | `<prefix>ix:<id>` | list | the session's members of `recent`, oldest first — evicted and deleted with its events, so `recent` holds exactly the kept events |
 *
 * An event numbered n of a session that was given `added` events and keeps `len` sits at list
 * index n − (added − len) − 1.
 */

/** Removes a session, its events and its members of `recent` (prepended to the scripts that remove sessions). */
const DROP = `
local function drop(p, id)
  local members = redis.call('LRANGE', p .. 'ix:' .. id, 0, -1)
  for i = 1, #members, 500 do redis.call('ZREM', p .. 'recent', unpack(members, i, math.min(i + 499, #members))) end
  redis.call('DEL', p .. 's:' .. id, p .. 'e:' .. id, p .. 'ix:' .. id)
  redis.call('ZREM', p .. 'sessions', id)
end`;

/** ARGV: prefix, id, appName, userId, now, maxSessions, evictCount → 1 created, 0 exists. */
export const CREATE_SESSION = `${DROP}
local p, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', p .. 's:' .. id) == 1 then return 0 end
if redis.call('ZCARD', p .. 'sessions') >= tonumber(ARGV[6]) then
  local victims = redis.call('ZRANGE', p .. 'sessions', 0, tonumber(ARGV[7]) - 1)
  for _, v in ipairs(victims) do drop(p, v) end
end
redis.call('HSET', p .. 's:' .. id, 'appName', ARGV[3], 'userId', ARGV[4], 'createdAt', ARGV[5], 'updatedAt', ARGV[5])
redis.call('ZADD', p .. 'sessions', redis.call('INCR', p .. 'ord'), id)
return 1`;

/** ARGV: prefix, id, event JSON, maxEvents, now → 1 stored, 0 unknown session. */
export const ADD_EVENT = `
local p, id = ARGV[1], ARGV[2]
if redis.call('EXISTS', p .. 's:' .. id) == 0 then return 0 end
local member = redis.call('INCR', p .. 'eseq') .. '|' .. redis.call('HINCRBY', p .. 's:' .. id, 'added', 1) .. '|' .. id
redis.call('RPUSH', p .. 'e:' .. id, ARGV[3])
redis.call('RPUSH', p .. 'ix:' .. id, member)
redis.call('ZADD', p .. 'recent', tonumber(string.match(member, '^%d+')), member)
local over = redis.call('LLEN', p .. 'ix:' .. id) - tonumber(ARGV[4])
if over > 0 then
  redis.call('ZREM', p .. 'recent', unpack(redis.call('LPOP', p .. 'ix:' .. id, over)))
  redis.call('LTRIM', p .. 'e:' .. id, -tonumber(ARGV[4]), -1)
end
redis.call('HSET', p .. 's:' .. id, 'updatedAt', ARGV[5])
return 1`;

/** ARGV: prefix, id → 1 deleted, 0 unknown. */
export const DELETE_SESSION = `${DROP}
local p, id = ARGV[1], ARGV[2]
local n = redis.call('EXISTS', p .. 's:' .. id)
drop(p, id)
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
export const CLEANUP = `${DROP}
local p, cutoff = ARGV[1], tonumber(ARGV[2])
local removed = 0
for _, id in ipairs(redis.call('ZRANGE', p .. 'sessions', 0, -1)) do
  local updated = tonumber(redis.call('HGET', p .. 's:' .. id, 'updatedAt') or '0')
  if updated <= cutoff then
    drop(p, id)
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

/**
 * ARGV: prefix, limit, filtered ('1' or '0'), event types… → a flat list id, event JSON, id, event
 * JSON …, newest first. Walks `recent` from the top in pages, so without a filter it reads
 * `limit` members; a filter reads on until it has `limit` matches or the set ends.
 */
export const RECENT_EVENTS = `
local p, limit = ARGV[1], tonumber(ARGV[2])
local wanted = nil
if ARGV[3] == '1' then
  wanted = {}
  for i = 4, #ARGV do wanted[ARGV[i]] = true end
end
local out, from, page = {}, 0, math.max(limit, 64)
while #out < 2 * limit do
  local members = redis.call('ZREVRANGE', p .. 'recent', from, from + page - 1)
  if #members == 0 then break end
  for _, member in ipairs(members) do
    local n, id = string.match(member, '^%d+|(%d+)|(.+)$')
    local key = p .. 'e:' .. id
    local added = tonumber(redis.call('HGET', p .. 's:' .. id, 'added') or '0')
    local json = redis.call('LINDEX', key, tonumber(n) - (added - redis.call('LLEN', key)) - 1)
    if json and (wanted == nil or wanted[cjson.decode(json).event_type]) then
      out[#out + 1] = id
      out[#out + 1] = json
      if #out >= 2 * limit then break end
    end
  end
  from = from + page
end
return out`;
