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

/**
 * ARGV: P, key, value, ifVersion ("" = none), ttlMs ("" = none), max, room (how many lapsed records to look for
 * when full), session ("" = none: else the session whose store the record is in). The new version; 0 when ifVersion
 * is not the live record's (0 = none live), nothing changed; -1 when the store holds max live records and this one
 * is new; -2 when the session is not live (nothing written). A session written to joins P.."xs", by its expiry.
 */
export const WRITE_RECORD = script(`${RECORDS}
local key, session = ARGV[2], ARGV[8]
local t = now()
if session ~= '' and not live(session, t) then return -2 end
local rec = P .. 'r:' .. key
local n = tonumber(redis.call('HGET', rec, 'n') or '0')
if ARGV[4] ~= '' and tonumber(ARGV[4]) ~= n then return 0 end
if n == 0 then
  tidy(t, ${TIDY_EACH})
  if not redis.call('ZSCORE', INDEX, key) then
    local max = tonumber(ARGV[6])
    if redis.call('ZCARD', INDEX) >= max then
      tidy(t, tonumber(ARGV[7]))
      if redis.call('ZCARD', INDEX) >= max then return -1 end
    end
    redis.call('ZADD', INDEX, 0, key)
  end
end
redis.call('HSET', rec, 'v', ARGV[3], 'n', ms(n + 1))
if ARGV[5] == '' then
  redis.call('PERSIST', rec)
  redis.call('ZREM', LAPSE, key)
else
  redis.call('PEXPIRE', rec, ARGV[5])
  redis.call('ZADD', LAPSE, ms(t + tonumber(ARGV[5])), key)
end
if session ~= '' then redis.call('ZADD', XS, expiry(session), session) end
return n + 1
`);

/** ARGV: P, key, ifVersion ("" = none). 1 when a live record was deleted, else 0. */
export const DELETE_RECORD = script(`${RECORDS}
local key = ARGV[2]
local rec = P .. 'r:' .. key
local n = redis.call('HGET', rec, 'n')
if n and ARGV[3] ~= '' and tonumber(ARGV[3]) ~= tonumber(n) then return 0 end
redis.call('DEL', rec)
redis.call('ZREM', INDEX, key)
redis.call('ZREM', LAPSE, key)
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
