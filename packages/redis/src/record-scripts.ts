import { script } from "./scripts.js";

// The RecordStore's scripts. Keys (P = "ts:{<namespace>}:"): P.."r:"..key (hash: v = the value, n = its version;
// Redis's own PEXPIRE when written with a ttlMs), P.."records" (zset, every score 0, member = key: ZRANGEBYLEX lists
// keys in UTF-8 byte order, which is code point order), P.."rx" (zset key → the ms its record lapses, for the records
// written with a ttlMs: lapsed members leave both zsets when a write needs room, a few with each new record, and when
// a list meets them), P.."xs" (the sessions whose records their end deletes: session-records.ts, whose clearUnder and
// upto these scripts use). Lua compares strings by the C locale's collation, so no script compares keys itself: the
// caller gives each range's bound, and Redis compares bytes.
const RECORDS = `
local INDEX, LAPSE = P .. 'records', P .. 'rx'
local function tidy(t, most)
  for _, key in ipairs(redis.call('ZRANGEBYSCORE', LAPSE, '-inf', '(' .. ms(t), 'LIMIT', 0, most)) do
    if redis.call('EXISTS', P .. 'r:' .. key) == 0 then
      redis.call('ZREM', INDEX, key)
      redis.call('ZREM', LAPSE, key)
    end
  end
end
`;

/** How many lapsed records a write of a new record removes from the indexes by the way (more when it needs room). */
const TIDY_EACH = 8;

// put(key, rec, n, value, ttl, max, room): write the record at version n + 1 (n: its live version, 0 for none), with
// ttl ('' = none), when there is room for it among max live records (looking for room lapsed ones); -1 when full.
// The common rewrite of a live record kept for good asks Redis no time, and leaves `rx` alone unless it had an expiry
// (a live record is in `rx` exactly when it has one; a new one may have a lapsed member there).
const PUT = `
local function put(key, rec, n, value, ttl, max, room)
  local t = 0
  if n == 0 or ttl ~= '' then t = now() end
  if n == 0 then
    tidy(t, ${TIDY_EACH})
    if not redis.call('ZSCORE', INDEX, key) then
      if redis.call('ZCARD', INDEX) >= max then
        tidy(t, room)
        if redis.call('ZCARD', INDEX) >= max then return -1 end
      end
      redis.call('ZADD', INDEX, 0, key)
    end
  end
  redis.call('HSET', rec, 'v', value, 'n', ms(n + 1))
  if ttl == '' then
    if n == 0 or redis.call('PERSIST', rec) == 1 then redis.call('ZREM', LAPSE, key) end
  else
    redis.call('PEXPIRE', rec, ttl)
    redis.call('ZADD', LAPSE, ms(t + tonumber(ttl)), key)
  end
  return n + 1
end
local function drop(key, rec)
  redis.call('DEL', rec)
  redis.call('ZREM', INDEX, key)
  redis.call('ZREM', LAPSE, key)
end
`;

/**
 * ARGV: P, key, value, ifVersion ("" = none), ttlMs ("" = none), max, room (how many lapsed records to look for
 * when full), session ("" = none: else the session whose store the record is in). The new version; 0 when ifVersion
 * is not the live record's (0 = none live), nothing changed; -1 when the store holds max live records and this one
 * is new; -2 when the session is not live (nothing written). A session written to joins P.."xs", by its expiry.
 */
export const WRITE_RECORD = script(`${RECORDS}${PUT}
local key, session = ARGV[2], ARGV[8]
if session ~= '' and not live(session, now()) then return -2 end
local rec = P .. 'r:' .. key
local n = tonumber(redis.call('HGET', rec, 'n') or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= n then return 0 end
local v = put(key, rec, n, ARGV[3], ARGV[5], tonumber(ARGV[6]), tonumber(ARGV[7]))
if v > 0 and session ~= '' then redis.call('ZADD', XS, expiry(session), session) end
return v
`);

/**
 * ARGV: P, key, expected version (0 = none), expected value, value, "1" to write value ("" to delete), ttlMs ("" =
 * none), max, room, session ("" = none; as WRITE_RECORD's, looked at only by a write). When the live record is the
 * expected one (version and value; none for 0): the new version (0 when deleted or when there was none to delete),
 * -1 when full and -2 when the session is not live, as WRITE_RECORD; else { value, version } of the live record, or
 * {} when there is none, nothing changed.
 */
export const SWAP_RECORD = script(`${RECORDS}${PUT}
local key, session = ARGV[2], ARGV[10]
if ARGV[6] == '1' and session ~= '' and not live(session, now()) then return -2 end
local rec = P .. 'r:' .. key
local f = redis.call('HMGET', rec, 'v', 'n')
local n = tonumber(f[2] or '0')
if n ~= tonumber(ARGV[3]) or (n ~= 0 and f[1] ~= ARGV[4]) then
  if n == 0 then return {} end
  return { f[1], f[2] }
end
if ARGV[6] == '1' then
  local v = put(key, rec, n, ARGV[5], ARGV[7], tonumber(ARGV[8]), tonumber(ARGV[9]))
  if v > 0 and session ~= '' then redis.call('ZADD', XS, expiry(session), session) end
  return v
end
if n ~= 0 then drop(key, rec) end
return 0
`);

/** ARGV: P, key, ifVersion ("" = none). 1 when a live record was deleted, else 0. */
export const DELETE_RECORD = script(`${RECORDS}${PUT}
local key = ARGV[2]
local rec = P .. 'r:' .. key
local n = redis.call('HGET', rec, 'n')
if n and ARGV[3] ~= '' and tonumber(ARGV[3]) ~= tonumber(n) then return 0 end
drop(key, rec)
if n then return 1 end
return 0
`);

/**
 * ARGV: P, prefix, from (a ZRANGEBYLEX bound: "[" prefix, "(" a key, or "-"), limit, most (members to look at),
 * bytes (of values to answer: the record that reaches it is the last). { { key, value, version, … }, resume, size }:
 * the live records from `from` on under `prefix`, at most `limit`, removing the lapsed members met, and their values'
 * bytes; resume is "" when there are no more or `limit` were found, else the bound to go on from (`most` members
 * looked at, or `bytes` answered, first).
 */
export const LIST_RECORDS = script(`${RECORDS}
local from, last = ARGV[3], upto(ARGV[2])
local limit, most, bytes = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local out, found, seen, size = {}, 0, 0, 0
while found < limit and seen < most do
  local want = math.min(limit - found, most - seen)
  local batch = redis.call('ZRANGEBYLEX', INDEX, from, last, 'LIMIT', 0, want)
  for _, key in ipairs(batch) do
    seen = seen + 1
    from = '(' .. key
    local f = redis.call('HMGET', P .. 'r:' .. key, 'v', 'n')
    if f[2] then
      table.insert(out, key)
      table.insert(out, f[1])
      table.insert(out, f[2])
      found = found + 1
      size = size + #f[1]
      if size >= bytes and found < limit then return { out, from, size } end
    else
      redis.call('ZREM', INDEX, key)
      redis.call('ZREM', LAPSE, key)
    end
  end
  if #batch < want then return { out, '', size } end
end
if found < limit then return { out, from, size } end
return { out, '', size }
`);

/**
 * ARGV: P, prefix, most. Deletes the first `most` records under `prefix` (lapsed members too): { live records
 * deleted, 1 when there may be more }.
 */
export const CLEAR_RECORDS = script(`${RECORDS}
local deleted, more = clearUnder(ARGV[2], tonumber(ARGV[3]))
if more then return { deleted, 1 } end
return { deleted, 0 }
`);
