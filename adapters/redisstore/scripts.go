package redisstore

import "github.com/redis/go-redis/v9"

// The Lua scripts. Each one touches the keys of one bucket only (one hash slot), so it is
// atomic on a single node and on a cluster. A script that builds key names from the
// bucket base (ARGV) stays in the slot of its declared keys: every name starts with the
// same "{prefix:b}" hash tag.
//
// No script decodes a task's JSON: cjson turns numbers into doubles (S-VAL-1). Task
// values travel as opaque strings; the fields a script compares (status, owner, version,
// created_at, expiry) are kept beside them as plain strings, and integers are compared
// as decimal strings (icmp), never as Lua numbers. Sorted-set scores are doubles, so
// they only pick candidates; the exact comparison decides.

// luaICmp is prepended to every script that compares integers. It is apart from luaLib
// because a script pays for every function it defines on every run: the hot modern
// scripts define only this one.
const luaICmp = `
-- icmp compares two canonical decimal integers (strconv.FormatInt) exactly.
local function icmp(a, b)
  local na, nb = string.sub(a, 1, 1) == '-', string.sub(b, 1, 1) == '-'
  if na ~= nb then
    if na then return -1 else return 1 end
  end
  local r
  if a == b then return 0
  elseif #a ~= #b then if #a < #b then r = -1 else r = 1 end
  elseif a < b then r = -1 else r = 1 end
  if na then r = -r end
  return r
end
`

// luaLib is prepended to every legacy script.
const luaLib = luaICmp + `

local function terminal(s)
  return s == 'completed' or s == 'failed' or s == 'cancelled'
end

-- Legacy index maintenance. A task hash has the data fields '.'..key (JSON text) and the
-- promoted fields '#s' (status; working when absent), '#o' (owner; absent = unowned)
-- and '#c' (created_at when an integer).
local function lunindex(B, id, k)
  local m = redis.call('HMGET', k, '#s', '#o')
  if m[1] then redis.call('SREM', B .. ':l#s:' .. m[1], id) end
  if m[2] then redis.call('SREM', B .. ':l#o:' .. m[2], id) else redis.call('SREM', B .. ':l#u', id) end
  redis.call('ZREM', B .. ':l#done', id)
  redis.call('SREM', B .. ':l#all', id)
end

local function lindex(B, id, k)
  local m = redis.call('HMGET', k, '#s', '#o', '#c')
  redis.call('SADD', B .. ':l#all', id)
  redis.call('SADD', B .. ':l#s:' .. m[1], id)
  if m[2] then redis.call('SADD', B .. ':l#o:' .. m[2], id) else redis.call('SADD', B .. ':l#u', id) end
  if terminal(m[1]) and m[3] then
    redis.call('ZADD', B .. ':l#done', m[3], id)
  else
    redis.call('ZREM', B .. ':l#done', id)
  end
end

-- lmeta reads a task's promoted fields: {status, owner, created_at}, false when absent.
local function lmeta(k)
  return redis.call('HMGET', k, '#s', '#o', '#c')
end

-- doneScore is the score of a task in the terminal zset, or false when it is not there.
local function doneScore(m)
  if m[1] and terminal(m[1]) and m[3] then return m[3] end
  return false
end

-- lreindex moves id between index entries for a change of promoted fields from o to n,
-- touching only what changed.
local function lreindex(B, id, o, n)
  if o[1] ~= n[1] then
    if o[1] then redis.call('SREM', B .. ':l#s:' .. o[1], id) end
    redis.call('SADD', B .. ':l#s:' .. n[1], id)
  end
  if o[2] ~= n[2] then
    if o[2] then redis.call('SREM', B .. ':l#o:' .. o[2], id) else redis.call('SREM', B .. ':l#u', id) end
    if n[2] then redis.call('SADD', B .. ':l#o:' .. n[2], id) else redis.call('SADD', B .. ':l#u', id) end
  end
  local od, nd = doneScore(o), doneScore(n)
  if nd then
    if nd ~= od then redis.call('ZADD', B .. ':l#done', nd, id) end
  elseif od then
    redis.call('ZREM', B .. ':l#done', id)
  end
end

-- hsetFrom sets the field/value pairs ARGV[i..], in chunks (unpack has a stack limit).
local function hsetFrom(k, i)
  while i <= #ARGV do
    local j = math.min(i + 199, #ARGV)
    redis.call('HSET', k, unpack(ARGV, i, j))
    i = j + 1
  end
end
`

// legacyCreate: KEYS[1] task. ARGV: base, id, then field/value pairs (promoted included).
// Returns 1, or 0 when the id exists (nothing written).
var legacyCreate = redis.NewScript(luaLib + `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
hsetFrom(KEYS[1], 3)
lindex(ARGV[1], ARGV[2], KEYS[1])
return 1
`)

// legacyUpdate: KEYS[1] task. ARGV: base, id, nAllowed (-1: any status), allowed…,
// nDel, fields to delete…, promoted ('1' when a promoted field may change: the indexes
// are then brought up to date), then field/value pairs. Returns the task after the merge
// (HGETALL), {'nf'} when missing, {'conflict', status} when the status is not allowed.
var legacyUpdate = redis.NewScript(luaLib + `
local B, id, k = ARGV[1], ARGV[2], KEYS[1]
if redis.call('EXISTS', k) == 0 then return {'nf'} end
local i = 3
local na = tonumber(ARGV[i]); i = i + 1
if na >= 0 then
  local cur = redis.call('HGET', k, '#s')
  local ok = false
  for j = i, i + na - 1 do
    if ARGV[j] == cur then ok = true end
  end
  if not ok then return {'conflict', cur} end
  i = i + na
end
local nd = tonumber(ARGV[i]); i = i + 1
local del = i
i = i + nd
local promoted = ARGV[i]; i = i + 1
local old
if promoted == '1' then old = lmeta(k) end
for j = del, del + nd - 1 do redis.call('HDEL', k, ARGV[j]) end
hsetFrom(k, i)
if promoted == '1' then lreindex(B, id, old, lmeta(k)) end
return {'ok', redis.call('HGETALL', k)}
`)

// legacyDelete: KEYS[1] task. ARGV: base, id. Returns 1 when a task was removed.
var legacyDelete = redis.NewScript(luaLib + `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
lunindex(ARGV[1], ARGV[2], KEYS[1])
redis.call('DEL', KEYS[1])
return 1
`)

// legacyList: KEYS[1] the bucket's all-ids set. ARGV: base, hasStatus ('1'/'0'),
// status, scope ('a' any, 'n' unowned only, 'p' principal + unowned, 'q' principal
// only), principal, limit (-1: unbounded). Returns {tasks, more}: the matching tasks
// (HGETALL each, at most limit) and 1 when the limit left matching tasks out, else 0.
var legacyList = redis.NewScript(luaLib + `
local B = ARGV[1]
local st = nil
if ARGV[2] == '1' then st = B .. ':l#s:' .. ARGV[3] end
local function members(set)
  if st and set then return redis.call('SINTER', st, set)
  elseif st then return redis.call('SMEMBERS', st)
  elseif set then return redis.call('SMEMBERS', set)
  end
  return redis.call('SMEMBERS', KEYS[1])
end
local groups
local scope = ARGV[4]
if scope == 'a' then groups = {members(nil)}
elseif scope == 'n' then groups = {members(B .. ':l#u')}
elseif scope == 'p' then groups = {members(B .. ':l#o:' .. ARGV[5]), members(B .. ':l#u')}
else groups = {members(B .. ':l#o:' .. ARGV[5])} end
local limit = tonumber(ARGV[6])
local out = {}
for _, ids in ipairs(groups) do
  for _, id in ipairs(ids) do
    if limit >= 0 and #out >= limit then return {out, 1} end
    out[#out + 1] = redis.call('HGETALL', B .. ':l:' .. id)
  end
end
return {out, 0}
`)

// legacyCleanup: KEYS[1] the bucket's terminal zset (score created_at). ARGV: base,
// bound (remove created_at ≤ bound), batch. Returns {removed, examined, stale}: stale
// counts the zset entries whose hash was gone.
//
// One HMGET per candidate reads everything the decision and the index removal need
// (status, owner, created_at); the removals are then made once per batch, one variadic
// ZREM, SREM per index set and UNLINK, instead of seven commands per task.
var legacyCleanup = redis.NewScript(luaLib + `
local B, bound = ARGV[1], ARGV[2]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', bound, 'LIMIT', 0, tonumber(ARGV[3]))
local gone, keys, stale = {}, {}, 0
local sets = {}
local function add(set, id)
  local l = sets[set]
  if not l then l = {}; sets[set] = l end
  l[#l + 1] = id
end
for _, id in ipairs(ids) do
  local k = B .. ':l:' .. id
  local m = redis.call('HMGET', k, '#s', '#o', '#c')
  if not m[1] then
    gone[#gone + 1] = id
    stale = stale + 1
  elseif terminal(m[1]) and m[3] and icmp(m[3], bound) <= 0 then
    gone[#gone + 1] = id
    keys[#keys + 1] = k
    add(B .. ':l#s:' .. m[1], id)
    if m[2] then add(B .. ':l#o:' .. m[2], id) else add(B .. ':l#u', id) end
    add(B .. ':l#all', id)
  end
end
-- each calls cmd key list[i..j] in chunks (unpack has a stack limit).
local function each(cmd, key, list)
  local i = 1
  while i <= #list do
    local j = math.min(i + 499, #list)
    if key then redis.call(cmd, key, unpack(list, i, j)) else redis.call(cmd, unpack(list, i, j)) end
    i = j + 1
  end
end
each('ZREM', KEYS[1], gone)
for set, l in pairs(sets) do each('SREM', set, l) end
each('UNLINK', nil, keys)
return {#keys, #ids, stale}
`)

// Modern task hash: 'v' version, 'c' created_at, 'o' owner (absent = none), 'e'
// expires_at (absent = never), 'b' the rest of the task as JSON text.

// modernCreate: KEYS[1] task, KEYS[2] expiry zset. ARGV: id, created, body, hasOwner,
// owner, hasExpiry, expiresAt, backstop ms (empty: none). Returns 1, or 0 when the id exists.
var modernCreate = redis.NewScript(`
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 'c', ARGV[2], 'b', ARGV[3])
if ARGV[4] == '1' then redis.call('HSET', KEYS[1], 'o', ARGV[5]) end
if ARGV[6] == '1' then
  redis.call('HSET', KEYS[1], 'e', ARGV[7])
  redis.call('ZADD', KEYS[2], ARGV[7], ARGV[1])
end
if ARGV[8] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[8]) end
return 1
`)

// modernSwap: KEYS[1] task, KEYS[2] expiry zset. ARGV: id, caller kind ('s' system,
// 'a' anonymous, 'p' principal), caller id, expected version, new version, hasOwner,
// owner, created, now, hasExpiry, expiresAt, body, backstop ms (empty: none). Returns {'ok'},
// {'nf'} (missing, expired or invisible), {'owner', cur}, {'created', cur} or
// {'conflict', cur version}; checks in the order of modern.CheckSwap.
//
// created_at cannot change, so the expiry changes only with the ttl: a Swap that keeps
// it (the common case: progress, completion) writes only 'v' and 'b', and renews the
// backstop when this store has one. That leans on invariants every write keeps: a hash
// with 'e' has its zset entry at score 'e', and a native TTL, if any, of 'e' plus a
// margin (a point in time: still right for the same 'e'); a hash without 'e' has no
// native TTL, and its zset entry, if any, is stale (a backstop removed an earlier task
// of the id), which Sweep drops.
var modernSwap = redis.NewScript(luaICmp + `
local k = KEYS[1]
local m = redis.call('HMGET', k, 'v', 'c', 'o', 'e')
if not m[1] then return {'nf'} end
if m[4] and icmp(ARGV[9], m[4]) >= 0 then return {'nf'} end
if m[3] and ARGV[2] ~= 's' and not (ARGV[2] == 'p' and ARGV[3] == m[3]) then return {'nf'} end
local owner = false
if ARGV[6] == '1' then owner = ARGV[7] end
if owner ~= m[3] then return {'owner', m[3] or ''} end
if ARGV[8] ~= m[2] then return {'created', m[2]} end
if ARGV[4] ~= m[1] then return {'conflict', m[1]} end
local e = false
if ARGV[10] == '1' then e = ARGV[11] end
if e == m[4] then
  redis.call('HSET', k, 'v', ARGV[5], 'b', ARGV[12])
  if ARGV[13] ~= '' then redis.call('PEXPIRE', k, ARGV[13]) end
  return {'ok'}
end
if e then
  redis.call('HSET', k, 'v', ARGV[5], 'b', ARGV[12], 'e', e)
  redis.call('ZADD', KEYS[2], e, ARGV[1])
else
  redis.call('HSET', k, 'v', ARGV[5], 'b', ARGV[12])
  redis.call('HDEL', k, 'e')
  redis.call('ZREM', KEYS[2], ARGV[1])
end
if ARGV[13] ~= '' then redis.call('PEXPIRE', k, ARGV[13]) else redis.call('PERSIST', k) end
return {'ok'}
`)

// modernDelete: KEYS[1] task, KEYS[2] expiry zset. ARGV: id.
var modernDelete = redis.NewScript(`
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
`)

// modernSweep: KEYS[1] the bucket's expiry zset. ARGV: base, now, batch. Returns
// {removed, examined, stale entries dropped}.
var modernSweep = redis.NewScript(luaICmp + `
local B, now = ARGV[1], ARGV[2]
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
local n, stale = 0, 0
for _, id in ipairs(ids) do
  local k = B .. ':m:' .. id
  local e = redis.call('HGET', k, 'e')
  if not e then
    redis.call('ZREM', KEYS[1], id)
    stale = stale + 1
  elseif icmp(now, e) >= 0 then
    redis.call('DEL', k)
    redis.call('ZREM', KEYS[1], id)
    n = n + 1
  end
end
return {n, #ids, stale}
`)
