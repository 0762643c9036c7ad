// The Lua that deletes records, shared by the record scripts and the prelude (a session's end deletes its own). A
// session written to with `session` is a member of P.."xs" (zset id → when to look at it next: its expiry as of its
// last such write, 0 when records are left to delete): its end deletes the first SESSION_END_MOST of them in the
// same script, and the tick (scripts.ts) the rest, SWEEP_MOST at a time, and those of a session whose keys Redis let
// expire with no process alive to end it (the member outlives them: it has no expiry).

/** How many of its records a session's end deletes in the script that ends it; the tick deletes the rest. */
export const SESSION_END_MOST = 64;
/** How many records the tick deletes per session it finds ended (at most SWEEP_SESSIONS sessions a tick). */
export const SWEEP_MOST = 500;
export const SWEEP_SESSIONS = 16;

export const RECORDS_LUA = `
local XS = P .. 'xs'
local function upto(prefix)
  if prefix == '' then return '+' end
  return '(' .. prefix .. '\\255'
end
-- Delete the first \`most\` records under \`prefix\` (lapsed members too): live records deleted, whether there may be more.
local function clearUnder(prefix, most)
  local from = '-'
  if prefix ~= '' then from = '[' .. prefix end
  local batch = redis.call('ZRANGEBYLEX', P .. 'records', from, upto(prefix), 'LIMIT', 0, most)
  if #batch == 0 then return 0, false end
  local keys = {}
  for i, key in ipairs(batch) do keys[i] = P .. 'r:' .. key end
  local deleted = redis.call('DEL', unpack(keys))
  redis.call('ZREM', P .. 'records', unpack(batch))
  redis.call('ZREM', P .. 'rx', unpack(batch))
  return deleted, #batch == most
end
-- A session's store scope, as core's storeScopePrefix("x", id) writes it (encodeURIComponent of the id's UTF-8).
local function scopeOf(id)
  local encoded = string.gsub(id, "[^A-Za-z0-9%-_%.!~%*'%(%)]", function(c) return string.format('%%%02X', string.byte(c)) end)
  return 'd:x:' .. encoded .. ':'
end
-- Delete up to \`most\` of an ended session's records: it leaves P.."xs" once none is left.
local function forget(id, most)
  local _, more = clearUnder(scopeOf(id), most)
  if more then redis.call('ZADD', XS, 0, id) else redis.call('ZREM', XS, id) end
end
`;
