import { createHash } from "node:crypto";
import { RECORDS_LUA, SESSION_END_MOST, SWEEP_MOST, SWEEP_SESSIONS } from "./session-records.js";

// The engine's Lua scripts: each a single round trip that Redis runs atomically, so what several processes do at
// once (limits, claims, an append and its signal) cannot interleave. ARGV[1] is the namespace's key prefix; KEYS[1]
// (the sessions index) names the slot every key of the namespace hashes to (`{namespace}` is their hash tag).

/** A Lua script with its SHA-1, run by EVALSHA (EVAL once when Redis does not know it yet, e.g. after a restart). */
export interface Script {
  readonly lua: string;
  readonly sha: string;
}

/** A script: the shared prelude, then `body`. */
export function script(body: string): Script {
  const lua = `${PRELUDE}\n${body}`;
  return { lua, sha: createHash("sha1").update(lua).digest("hex") };
}

// Keys (P = ARGV[1] = "ts:{<namespace>}:"): P.."sessions" (zset id → expiry ms; it outlives its sessions' keys), P.."s:"..id (hash: b = the record's
// fixed part as JSON, p = its principal as JSON ("" = none; absent in a record an earlier version kept), c = caller, i = initialized, l = log level, t = idleMs, n = subscription counter, sb = the
// bytes of its subscriptions' URIs), P.."sub:"..id (zset uri → order; never read by a load), P.."u:"..uri (set of ids), P.."k:"..caller (zset id → expiry ms),
// P.."e:"..id (stream: s = stream key, d = data), P.."ops" (list of handle ops), P.."node:"..node (lease, PX),
// P.."run:"..node (hash of running requests), P.."rt:"..node (set of its running tasks' ids), P.."nodes" (set of nodes
// that ran requests or tasks; all three expire RUN_KEEP_MS after their last renewal), P.."lost:"..node (hash: what
// another process claimed of the node's work, each request's field and "t:"..task id; the fence), P.."t:"..id (a task, see
// task-scripts.ts), P.."r:"..key, P.."records" and P.."rx" (the records: record-scripts.ts), P.."xs" (the sessions that have
// records: session-records.ts). Channels: P.."c:"..id (a session's), P.."tc:"..id (a task's), P.."bus" (the server's). Every type ends at its first ":" and the namespace holds none, so no id,
// URI or caller can make one key look like another.
const PRELUDE = `
local P = ARGV[1]
local SESSIONS = P .. 'sessions'
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local function ms(n) return string.format('%d', n) end
local function expiry(id)
  local at = redis.call('ZSCORE', SESSIONS, id)
  if at then return tonumber(at) end
  return nil
end
${RECORDS_LUA}
local function ending(id)
  local rec = P .. 's:' .. id
  local caller = redis.call('HGET', rec, 'c')
  if caller then redis.call('ZREM', P .. 'k:' .. caller, id) end
  local subs = P .. 'sub:' .. id
  for _, uri in ipairs(redis.call('ZRANGE', subs, 0, -1)) do redis.call('SREM', P .. 'u:' .. uri, id) end
  redis.call('DEL', rec, subs, P .. 'e:' .. id, P .. 'cx:' .. id, P .. 'cxo:' .. id)
  redis.call('ZREM', SESSIONS, id)
  -- Its store, when it has one: a session never written to costs this one lookup.
  if redis.call('ZSCORE', XS, id) then forget(id, ${SESSION_END_MOST}) end
  redis.call('PUBLISH', P .. 'c:' .. id, '{"type":"ended"}')
end
local function live(id, t)
  local at = expiry(id)
  if at == nil then return false end
  if at <= t then ending(id) return false end
  return true
end
local function extend(key, ttl)
  if ttl > 0 and redis.call('PTTL', key) < ttl then redis.call('PEXPIRE', key, ttl) end
end
`;

/**
 * ARGV: P, id, stream, data, most events, then optionally node, request field, held (1 when the node runs it, by its
 * own account): only while no other process claimed it from the node (a lapsed or lost run: entry is no claim). The
 * new event's id (and its signal published); nil when not live; -1 (nothing kept) when claimed or not held.
 */
export const APPEND = script(`
local t = now()
local id, stream, data = ARGV[2], ARGV[3], ARGV[4]
if not live(id, t) then return false end
if ARGV[6] and (ARGV[8] ~= '1' or redis.call('HEXISTS', P .. 'lost:' .. ARGV[6], ARGV[7]) == 1) then return -1 end
local events = P .. 'e:' .. id
local eid = redis.call('XADD', events, 'MAXLEN', ARGV[5], '*', 's', stream, 'd', data)
extend(events, redis.call('PTTL', P .. 's:' .. id))
redis.call('PUBLISH', P .. 'c:' .. id, cjson.encode({ type = 'event', event = { id = eid, stream = stream, data = data } }))
return eid
`);

/** ARGV: P, id, last event id. { stream, id, data, id, data… } of that stream after it; nil when not held. */
export const REPLAY = script(`
local t = now()
local id, last = ARGV[2], ARGV[3]
if not live(id, t) then return false end
local events = P .. 'e:' .. id
local found = redis.call('XRANGE', events, last, last)
if #found == 0 then return false end
local stream = found[1][2][2]
local out = { stream }
for _, entry in ipairs(redis.call('XRANGE', events, '(' .. last, '+')) do
  if entry[2][2] == stream then
    table.insert(out, entry[1])
    table.insert(out, entry[2][4])
  end
end
return out
`);

/**
 * ARGV: P, op JSON, bus message, the same handle's enable JSON, disable JSON. Keeps a handle op for processes to come
 * (after dropping that handle's earlier enable or disable, which it overrides: the list stays bounded by the handles)
 * and tells those running now.
 */
export const HANDLE_OP = script(`
local ops = P .. 'ops'
redis.call('LREM', ops, 0, ARGV[4])
redis.call('LREM', ops, 0, ARGV[5])
if ARGV[2] ~= ARGV[4] and ARGV[2] ~= ARGV[5] then redis.call('LREM', ops, 0, ARGV[2]) end
redis.call('RPUSH', ops, ARGV[2])
redis.call('PUBLISH', P .. 'bus', ARGV[3])
return 1
`);

/** ARGV: P, node, leaseMs, field, request JSON, keepMs. This node runs it (its lease renewed with it), anew if claimed. */
export const RUNNING = script(`
redis.call('SET', P .. 'node:' .. ARGV[2], '1', 'PX', ARGV[3])
redis.call('HSET', P .. 'run:' .. ARGV[2], ARGV[4], ARGV[5])
redis.call('HDEL', P .. 'lost:' .. ARGV[2], ARGV[4])
redis.call('SADD', P .. 'nodes', ARGV[2])
redis.call('PEXPIRE', P .. 'run:' .. ARGV[2], ARGV[6])
redis.call('PEXPIRE', P .. 'nodes', ARGV[6])
return 1
`);

/**
 * ARGV: P, node, leaseMs, claim requests (1/0), keepMs, claim tasks (1/0). Renews this node's lease (and keeps its
 * running requests and tasks that long after it stopped, for a process to claim), ends expired sessions (telling their
 * followers), deletes the records of ended sessions (session-records.ts), and takes what every node whose lease lapsed left running: its requests, and its tasks that are still
 * live and not terminal, each marked in P.."lost:"..node (its writes are fenced from then on). Atomically, so each
 * goes to one caller. Answers { requests, task ids }.
 */
export const TICK = script(`
local t = now()
local node = ARGV[2]
redis.call('SET', P .. 'node:' .. node, '1', 'PX', ARGV[3])
redis.call('PEXPIRE', P .. 'run:' .. node, ARGV[5])
redis.call('PEXPIRE', P .. 'rt:' .. node, ARGV[5])
redis.call('PEXPIRE', P .. 'nodes', ARGV[5])
for _, id in ipairs(redis.call('ZRANGEBYSCORE', SESSIONS, '-inf', ms(t), 'LIMIT', 0, 100)) do ending(id) end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', XS, '-inf', ms(t), 'LIMIT', 0, ${SWEEP_SESSIONS})) do
  local at = expiry(id)
  if at and at > t then redis.call('ZADD', XS, at, id)
  elseif at then ending(id)
  else forget(id, ${SWEEP_MOST}) end
end
local claimed, tasks = {}, {}
if ARGV[4] == '1' or ARGV[6] == '1' then
  for _, other in ipairs(redis.call('SMEMBERS', P .. 'nodes')) do
    if other ~= node and redis.call('EXISTS', P .. 'node:' .. other) == 0 then
      local run, rt, lost = P .. 'run:' .. other, P .. 'rt:' .. other, P .. 'lost:' .. other
      if ARGV[4] == '1' then
        local held = redis.call('HGETALL', run)
        for i = 1, #held, 2 do
          redis.call('HSET', lost, held[i], '1')
          table.insert(claimed, held[i + 1])
        end
        redis.call('DEL', run)
      end
      if ARGV[6] == '1' then
        for _, id in ipairs(redis.call('SMEMBERS', rt)) do
          local f = redis.call('HMGET', P .. 't:' .. id, 's', 'x')
          local live = f[1] and (f[2] == '' or tonumber(f[2]) >= t)
          if live and f[1] ~= 'completed' and f[1] ~= 'cancelled' and f[1] ~= 'failed' then
            redis.call('HSET', lost, 't:' .. id, '1')
            table.insert(tasks, id)
          end
        end
        redis.call('DEL', rt)
      end
      if redis.call('EXISTS', lost) == 1 then redis.call('PEXPIRE', lost, ARGV[5]) end
      if redis.call('EXISTS', run, rt) == 0 then redis.call('SREM', P .. 'nodes', other) end
    end
  end
end
return { claimed, tasks }
`);
