import { script } from "./scripts.js";

// The client's lines kept for the process that asked (a handshake-era answer POSTed to another process): P.."in:"..node
// is a list of `{"session":…,"line":…}` (JSON), the newest `most` kept, an hour after the last one, and P.."inc:"..node
// how many each session has there (at most `perSession`: a client flooding its session keeps no more, so it cannot
// push another session's answer out). The channel only wakes the process; the list is what it takes, so a signal
// missed while its subscriber was away is not lost.

/**
 * ARGV: P, session, node, entry JSON, signal JSON, keepMs, most, perSession, lapsedMs. Kept for `node` while the
 * session has room there, then published on the session's channel: keepMs while its lease is live, else (its lease
 * lapsed while Redis was down, or it stalled, or a client named no process) only lapsedMs, long enough for a living
 * process to come back and take it. Lines for names without a live lease are `most` a window of lapsedMs over all
 * such names together (P.."inl" counts them): a client naming made-up processes keeps no more than that.
 */
export const KEEP_CLIENT_LINE = script(`
local inbox, counts = P .. 'in:' .. ARGV[3], P .. 'inc:' .. ARGV[3]
local live = redis.call('EXISTS', P .. 'node:' .. ARGV[3]) == 1
local room = true
if not live then
  local lapsed = P .. 'inl'
  room = redis.call('INCR', lapsed) <= tonumber(ARGV[7])
  if redis.call('PTTL', lapsed) < 0 then redis.call('PEXPIRE', lapsed, ARGV[9]) end
end
if room then
  if redis.call('HINCRBY', counts, ARGV[2], 1) <= tonumber(ARGV[8]) then
    redis.call('RPUSH', inbox, ARGV[4])
    redis.call('LTRIM', inbox, -tonumber(ARGV[7]), -1)
  else
    redis.call('HINCRBY', counts, ARGV[2], -1)
  end
  if live then
    redis.call('PEXPIRE', inbox, ARGV[6])
    redis.call('PEXPIRE', counts, ARGV[6])
  else
    if redis.call('PTTL', inbox) < tonumber(ARGV[9]) then redis.call('PEXPIRE', inbox, ARGV[9]) end
    if redis.call('PTTL', counts) < tonumber(ARGV[9]) then redis.call('PEXPIRE', counts, ARGV[9]) end
  end
end
redis.call('PUBLISH', P .. 'c:' .. ARGV[2], ARGV[5])
return 1
`);

/** ARGV: P, node. Every entry kept for `node`, oldest first, taken (the list and its counts are gone after). */
export const TAKE_CLIENT_LINES = script(`
local inbox = P .. 'in:' .. ARGV[2]
local entries = redis.call('LRANGE', inbox, 0, -1)
redis.call('DEL', inbox, P .. 'inc:' .. ARGV[2])
return entries
`);

// The client's cancellations kept with their session: P.."cx:"..session is a hash request id text → the line, and
// P.."cxo:"..session the order they came in; the newest `most` kept (a client fills its own session's alone), gone
// with the session. The process running a request takes a cancellation of it from there if it missed the signal.

/** ARGV: P, session, request, line, signal JSON, most. Kept while the session is live; published either way. */
export const KEEP_CANCEL = script(`
local id = ARGV[2]
local kept, order = P .. 'cx:' .. id, P .. 'cxo:' .. id
if live(id, now()) and redis.call('HSETNX', kept, ARGV[3], ARGV[4]) == 1 then
  redis.call('RPUSH', order, ARGV[3])
  if redis.call('LLEN', order) > tonumber(ARGV[6]) then redis.call('HDEL', kept, redis.call('LPOP', order)) end
  local ttl = redis.call('PTTL', P .. 's:' .. id)
  extend(kept, ttl)
  extend(order, ttl)
end
redis.call('PUBLISH', P .. 'c:' .. id, ARGV[5])
return 1
`);

/**
 * ARGV: P, then per running request: session, request id text. Those a kept cancellation names, taken (removed), as
 * session, request, line, … in one flat list.
 */
export const TAKE_CANCELS = script(`
local taken = {}
for i = 2, #ARGV, 2 do
  local kept = P .. 'cx:' .. ARGV[i]
  local line = redis.call('HGET', kept, ARGV[i + 1])
  if line then
    redis.call('HDEL', kept, ARGV[i + 1])
    redis.call('LREM', P .. 'cxo:' .. ARGV[i], 1, ARGV[i + 1])
    table.insert(taken, ARGV[i])
    table.insert(taken, ARGV[i + 1])
    table.insert(taken, line)
  end
end
return taken
`);
