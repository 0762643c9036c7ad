import { script } from "./scripts.js";

// The client's lines kept for the process that asked (a handshake-era answer POSTed to another process): P.."in:"..node
// is a list of `{"session":…,"line":…}` (JSON), the newest `most` kept, an hour after the last one. The channel only
// wakes the process; the list is what it takes, so a signal missed while its subscriber was away is not lost.

/**
 * ARGV: P, session, node, entry JSON, signal JSON, keepMs, most, lapsedMs. Kept for `node`, then published on the
 * session's channel: keepMs while its lease is live, else (its lease lapsed while Redis was down, or it stalled, or a
 * client named no process) only lapsedMs, long enough for a living process to come back and take it.
 */
export const KEEP_CLIENT_LINE = script(`
local inbox = P .. 'in:' .. ARGV[3]
redis.call('RPUSH', inbox, ARGV[4])
redis.call('LTRIM', inbox, -tonumber(ARGV[7]), -1)
if redis.call('EXISTS', P .. 'node:' .. ARGV[3]) == 1 then
  redis.call('PEXPIRE', inbox, ARGV[6])
elseif redis.call('PTTL', inbox) < tonumber(ARGV[8]) then
  redis.call('PEXPIRE', inbox, ARGV[8])
end
redis.call('PUBLISH', P .. 'c:' .. ARGV[2], ARGV[5])
return 1
`);

/** ARGV: P, node. Every entry kept for `node`, oldest first, taken (the list is gone after). */
export const TAKE_CLIENT_LINES = script(`
local inbox = P .. 'in:' .. ARGV[2]
local entries = redis.call('LRANGE', inbox, 0, -1)
redis.call('DEL', inbox)
return entries
`);
