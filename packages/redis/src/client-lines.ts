import { script } from "./scripts.js";

// The client's lines kept for the process that asked (a handshake-era answer POSTed to another process): P.."in:"..node
// is a list of `{"session":…,"line":…}` (JSON), the newest `most` kept, an hour after the last one. The channel only
// wakes the process; the list is what it takes, so a signal missed while its subscriber was away is not lost.

/**
 * ARGV: P, session, node, entry JSON, signal JSON, keepMs, most. Kept for `node` while it lives (a client naming any
 * other process stores nothing), then published on the session's channel.
 */
export const KEEP_CLIENT_LINE = script(`
local inbox = P .. 'in:' .. ARGV[3]
if redis.call('EXISTS', P .. 'node:' .. ARGV[3]) == 1 then
  redis.call('RPUSH', inbox, ARGV[4])
  redis.call('LTRIM', inbox, -tonumber(ARGV[7]), -1)
  redis.call('PEXPIRE', inbox, ARGV[6])
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
