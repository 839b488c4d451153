/**
 * The Redis store's Lua scripts: each write of a session is one of them, run atomically on the
 * server (EVAL), touching only the session's keys (one hash tag in a cluster) and, on one server,
 * the agent's index. Key names come from redis-keys.ts; redis-store.ts says which script serves
 * which call. Every script is idempotent, so a retry after a lost reply is safe.
 */

/** Lua: the metadata.id of a stored message's JSON, or nil (cjson.decode of one record). */
const ID_OF = `
local function idOf(v)
  local ok, m = pcall(cjson.decode, v)
  if ok and type(m) == 'table' and type(m.metadata) == 'table' and type(m.metadata.id) == 'string' and m.metadata.id ~= '' then return m.metadata.id end
  return nil
end
`;

/**
 * KEYS: list, meta, write id, attachments, ids[, index] (the index only on one server: in a cluster it is another slot).
 * ARGV: session id, now, ttl, cap, then (message id or '', json) per message. Pushes the messages
 * whose id the ids set did not hold (SADD answers 1; an id repeated in the call is pushed once; ''
 * is no id: always pushed). Returns how many were pushed, or -1 when this write id was already applied.
 * A list without the meta mark `ids` (written before ids were kept, or after clearRun) gets its set
 * built from its records first, once.
 */
export const APPEND = `${ID_OF}
if redis.call('SET', KEYS[3], '1', 'NX', 'EX', 600) == false then return -1 end
if redis.call('HGET', KEYS[2], 'ids') ~= '1' then
  redis.call('DEL', KEYS[5])
  local n = redis.call('LLEN', KEYS[1])
  for from = 0, n - 1, 1000 do
    for _, v in ipairs(redis.call('LRANGE', KEYS[1], from, from + 999)) do
      local id = idOf(v)
      if id then redis.call('SADD', KEYS[5], id) end
    end
  end
  redis.call('HSET', KEYS[2], 'ids', '1')
end
local fresh = {}
local bytes = 0
for i = 5, #ARGV, 2 do
  if ARGV[i] == '' or redis.call('SADD', KEYS[5], ARGV[i]) == 1 then
    fresh[#fresh + 1] = ARGV[i + 1]
    bytes = bytes + #ARGV[i + 1] + 1
  end
end
if #fresh == 0 then return 0 end
for i = 1, #fresh, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(fresh, i, math.min(i + 999, #fresh)))
end
redis.call('HINCRBY', KEYS[2], 'bytes', bytes)
redis.call('HSET', KEYS[2], 'updatedAt', ARGV[2])
if #KEYS >= 6 then redis.call('ZADD', KEYS[6], 0, ARGV[1]) end
local cap = tonumber(ARGV[4])
if cap > 0 then
  local len = redis.call('LLEN', KEYS[1])
  if len > cap then
    local dropped = redis.call('LRANGE', KEYS[1], 0, len - cap - 1)
    local b = 0
    for _, v in ipairs(dropped) do
      b = b + #v + 1
      local id = idOf(v)
      if id then redis.call('SREM', KEYS[5], id) end
    end
    redis.call('LTRIM', KEYS[1], len - cap, -1)
    redis.call('HINCRBY', KEYS[2], 'bytes', -b)
  end
end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('EXPIRE', KEYS[4], ttl)
  redis.call('EXPIRE', KEYS[5], ttl)
end
return #fresh
`;

/**
 * KEYS: list, meta, attachments, ids[, index] (one server only). ARGV: session id, now, ttl, bytes,
 * then (message id or '', json) per message (none: the session is emptied; its attachments stay).
 * The list is stored exactly as given; the ids set becomes the list's ids (marked complete).
 */
export const REPLACE = `
redis.call('DEL', KEYS[1], KEYS[4])
local jsons = {}
for i = 5, #ARGV, 2 do
  jsons[#jsons + 1] = ARGV[i + 1]
  if ARGV[i] ~= '' then redis.call('SADD', KEYS[4], ARGV[i]) end
end
for i = 1, #jsons, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(jsons, i, math.min(i + 999, #jsons)))
end
redis.call('HSET', KEYS[2], 'bytes', tonumber(ARGV[4]), 'updatedAt', ARGV[2], 'ids', '1')
if #jsons > 0 and #KEYS >= 5 then redis.call('ZADD', KEYS[5], 0, ARGV[1]) end
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  if #jsons > 0 then redis.call('EXPIRE', KEYS[1], ttl); redis.call('EXPIRE', KEYS[4], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
end
return #jsons
`;

/**
 * KEYS: list, meta, attachments, ids. ARGV: run id, now, ttl. Drops the messages whose
 * metadata.runId is the run id, keeping the others' order; the ids set is dropped with its mark
 * (the next append rebuilds it from what is left).
 */
export const CLEAR_RUN = `
local all = redis.call('LRANGE', KEYS[1], 0, -1)
local kept = {}
local bytes = 0
local removed = 0
for _, v in ipairs(all) do
  local rid = nil
  if string.find(v, '"runId"', 1, true) then
    local ok, m = pcall(cjson.decode, v)
    if ok and type(m) == 'table' and type(m.metadata) == 'table' then rid = m.metadata.runId end
  end
  if rid == ARGV[1] then removed = removed + 1 else kept[#kept + 1] = v; bytes = bytes + #v + 1 end
end
if removed == 0 then return 0 end
redis.call('DEL', KEYS[1])
for i = 1, #kept, 1000 do
  redis.call('RPUSH', KEYS[1], unpack(kept, i, math.min(i + 999, #kept)))
end
redis.call('HSET', KEYS[2], 'bytes', bytes, 'updatedAt', ARGV[2])
redis.call('HDEL', KEYS[2], 'ids')
redis.call('DEL', KEYS[4])
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  if #kept > 0 then redis.call('EXPIRE', KEYS[1], ttl) end
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
end
return removed
`;

/**
 * KEYS: index. ARGV: (session id, list key, meta key) per session, key names from redis-keys.ts.
 * Returns count, bytes, updatedAt per id ('' when absent); an id whose list and meta keys are
 * both gone (expired) is removed from the index.
 */
export const LIST = `
local out = {}
for i = 1, #ARGV, 3 do
  local n = redis.call('LLEN', ARGV[i + 1])
  local m = redis.call('HMGET', ARGV[i + 2], 'bytes', 'updatedAt')
  if n == 0 and m[1] == false and m[2] == false then redis.call('ZREM', KEYS[1], ARGV[i]) end
  out[#out + 1] = n
  out[#out + 1] = m[1] or ''
  out[#out + 1] = m[2] or ''
end
return out
`;

/** KEYS: list, meta, attachments, ids[, index] (one server only). ARGV: session id. Deletes the session's keys (and its index entry). */
export const DELETE = `
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
if #KEYS >= 5 then redis.call('ZREM', KEYS[5], ARGV[1]) end
return 1
`;

/**
 * KEYS: attachments, list, meta, ids. ARGV: name, text, ttl. Sets the attachment; with a ttl, the
 * session's keys get it again (EXPIRE of a missing key does nothing), so they expire together.
 */
export const ATTACH = `
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
local ttl = tonumber(ARGV[3])
if ttl > 0 then
  redis.call('EXPIRE', KEYS[1], ttl)
  redis.call('EXPIRE', KEYS[2], ttl)
  redis.call('EXPIRE', KEYS[3], ttl)
  redis.call('EXPIRE', KEYS[4], ttl)
end
return 1
`;

/** Cluster listing. KEYS: index. ARGV: session id, the score listing saw. Removes the id only if no write re-indexed it since. */
export const PRUNE = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if score and tonumber(score) == tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0
`;
