import { script } from "./scripts.js";

// A load restarts a session's idle time only when less than the idle time is left, and then sets it this part of the
// idle time further (a session is used every few seconds, its idle time is minutes): one renewal per part, not per
// request.
export const RENEW_PART = 16;

// The session scripts: a session is the hash P.."s:"..id (see scripts.ts for every key), its expiry in P.."sessions"
// and, per caller, in P.."k:"..caller; its subscriptions in P.."sub:"..id and each URI's index P.."u:"..uri.

/**
 * ARGV: P, id, fixed JSON, caller ("" = none), initialized (1/0), level ("" = none), idleMs, max, perCaller, grace,
 * principal JSON ("" = none; also in the fixed JSON, which an earlier version reads).
 */
export const CREATE = script(`
local t = now()
local id, caller, idle, grace = ARGV[2], ARGV[4], tonumber(ARGV[7]), tonumber(ARGV[10])
local at = expiry(id)
if at ~= nil then
  if at > t then return 'exists' end
  ending(id)
end
if redis.call('ZCOUNT', SESSIONS, '(' .. ms(t), '+inf') >= tonumber(ARGV[8]) then return 'full' end
local rec = P .. 's:' .. id
local keep = idle + grace
if caller ~= '' then
  local mine = P .. 'k:' .. caller
  redis.call('ZREMRANGEBYSCORE', mine, '-inf', ms(t))
  if redis.call('ZCARD', mine) >= tonumber(ARGV[9]) then return 'full-for-caller' end
  redis.call('ZADD', mine, ms(t + idle), id)
  extend(mine, keep)
  redis.call('HSET', rec, 'c', caller)
end
redis.call('HSET', rec, 'b', ARGV[3], 'p', ARGV[11], 'i', ARGV[5], 't', ARGV[7], 'n', 0, 'sb', 0)
if ARGV[6] ~= '' then redis.call('HSET', rec, 'l', ARGV[6]) end
redis.call('PEXPIRE', rec, keep)
redis.call('ZADD', SESSIONS, ms(t + idle), id)
extend(SESSIONS, keep)
return 'created'
`);

/**
 * ARGV: P, grace, how many of the ids (the first ones) want their fixed part, then one or more ids. For each id in
 * order: false when it is not live; else its state, initialized .. level as one string ("1debug", "0"), or
 * { fixed JSON, state } when it wants its fixed part. Only these fields are read: its subscriptions (any
 * number, any size) stay where they are. Its idle time restarts at most once per RENEW_PART of it: the expiry is
 * then set a part beyond the idle time, so a session never ends before its idle time unused.
 */
export const LOAD = script(`
local t = now()
local grace, fixed = tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for k = 4, #ARGV do
  local id = ARGV[k]
  local found = false
  local at = expiry(id)
  if at ~= nil and at <= t then ending(id)
  elseif at ~= nil then
    local rec = P .. 's:' .. id
    local wants = k - 3 <= fixed
    local h = redis.call('HMGET', rec, 't', 'i', 'l', 'c')
    local b = wants and redis.call('HGET', rec, 'b')
    -- A record without what only its create writes is no session (its hash lapsed, or was evicted).
    if not h[1] or (wants and not b) then ending(id)
    else
      local idle = tonumber(h[1])
      if at < t + idle then
        local part = math.floor(idle / ${RENEW_PART})
        local keep = idle + part + grace
        local due = ms(t + idle + part)
        redis.call('ZADD', SESSIONS, due, id)
        extend(SESSIONS, keep)
        if h[4] then
          redis.call('ZADD', P .. 'k:' .. h[4], due, id)
          extend(P .. 'k:' .. h[4], keep)
        end
        redis.call('PEXPIRE', rec, keep)
        redis.call('PEXPIRE', P .. 'sub:' .. id, keep)
        redis.call('PEXPIRE', P .. 'e:' .. id, keep)
      end
      local state = (h[2] or '0') .. (h[3] or '')
      if wants then found = { b, state } else found = state end
    end
  end
  out[k - 3] = found
end
return out
`);

/**
 * ARGV: P, id, kind, value, most subscriptions, most bytes of their URIs. -1 when a subscription would pass either
 * bound (nothing changed).
 */
export const CHANGE = script(`
local t = now()
local id, kind, value = ARGV[2], ARGV[3], ARGV[4]
if not live(id, t) then return 0 end
local rec = P .. 's:' .. id
if kind == 'initialized' then redis.call('HSET', rec, 'i', '1')
elseif kind == 'logLevel' then redis.call('HSET', rec, 'l', value)
else
  local subs = P .. 'sub:' .. id
  local index = P .. 'u:' .. value
  if kind == 'subscribe' then
    if redis.call('ZSCORE', subs, value) then return 1 end
    local bytes = tonumber(redis.call('HGET', rec, 'sb') or '0')
    if redis.call('ZCARD', subs) >= tonumber(ARGV[5]) or bytes + #value > tonumber(ARGV[6]) then return -1 end
    redis.call('HINCRBY', rec, 'sb', #value)
    redis.call('ZADD', subs, redis.call('HINCRBY', rec, 'n', 1), value)
    redis.call('SADD', index, id)
    local ttl = redis.call('PTTL', rec)
    extend(subs, ttl)
    extend(index, ttl)
  elseif redis.call('ZREM', subs, value) == 1 then
    redis.call('SREM', index, id)
    -- Never below 0: a subscription an earlier version kept was never counted, and must not make room for more.
    local left = tonumber(redis.call('HGET', rec, 'sb') or '0') - #value
    redis.call('HSET', rec, 'sb', left > 0 and left or 0)
  end
end
return 1
`);

/** ARGV: P, id. 1 when there was such a session (it ended now), else 0. */
export const DELETE = script(`
if expiry(ARGV[2]) == nil then return 0 end
ending(ARGV[2])
return 1
`);

/** ARGV: P, uri. The live sessions subscribed to it (those that ended are dropped from its index). */
export const SUBSCRIBERS = script(`
local t = now()
local index = P .. 'u:' .. ARGV[2]
local found = {}
for _, id in ipairs(redis.call('SMEMBERS', index)) do
  local at = expiry(id)
  if at == nil then redis.call('SREM', index, id)
  elseif at > t then table.insert(found, id) end
end
return found
`);

/** ARGV: P. Every live session's id. */
export const SESSION_IDS = script(`
return redis.call('ZRANGEBYSCORE', SESSIONS, '(' .. ms(now()), '+inf')
`);

/**
 * ARGV: P, by URI (1/0), uri. { id, principal, fixed } of each live initialized session (subscribed to the URI when
 * by URI): principal "" for none; fixed "" unless the record has no principal field (kept by an earlier version),
 * then its fixed JSON, which holds it. No idle time restarted: a change told to every session keeps none alive.
 */
export const INITIALIZED = script(`
local t = now()
local ids = {}
if ARGV[2] == '1' then
  local index = P .. 'u:' .. ARGV[3]
  for _, id in ipairs(redis.call('SMEMBERS', index)) do
    local at = expiry(id)
    if at == nil then redis.call('SREM', index, id)
    elseif at > t then table.insert(ids, id) end
  end
else
  ids = redis.call('ZRANGEBYSCORE', SESSIONS, '(' .. ms(t), '+inf')
end
local out = {}
for _, id in ipairs(ids) do
  local rec = P .. 's:' .. id
  local h = redis.call('HMGET', rec, 'i', 'p')
  if h[1] == '1' then
    local fixed = ''
    if not h[2] then fixed = redis.call('HGET', rec, 'b') end
    -- A record without its fixed part is no session (a load ends it): told nothing.
    if fixed then
      table.insert(out, id)
      table.insert(out, h[2] or '')
      table.insert(out, fixed)
    end
  end
end
return out
`);
