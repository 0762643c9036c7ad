import { type Script, script } from "./scripts.js";

// The task scripts. A task is the hash P.."t:"..id: b = its fixed fields as JSON without the closing brace, s =
// status, u = lastUpdatedAt, m = statusMessage (JSON), r = result (JSON), e = error (JSON), x = the time it may be
// purged after (ms, "" = never), n = the question counter, k = questions outstanding, per question q:<key> = its
// order and Q:<key> = `"<key>":<request>` (JSON), and per answer not yet taken by the task's process a:<key> =
// `"<key>":<value>` (JSON). Lua never parses the JSON it keeps: a result of any size or shape
// goes back exactly as given, and the record is put together as text. Every script takes the caller's clock (ARGV[3])
// so that expiry reads the same clock as `createdAt`.
const TASKS = `
local TERMINAL = { completed = true, cancelled = true, failed = true }
local function task_key(id) return P .. 't:' .. id end
local function task_live(key, t)
  local x = redis.call('HGET', key, 'x')
  if not x then return false end
  return x == '' or tonumber(x) >= t
end
local function task_json(key)
  local h = redis.call('HGETALL', key)
  local f, asks = {}, {}
  for i = 1, #h, 2 do
    if string.sub(h[i], 1, 2) == 'q:' then table.insert(asks, { tonumber(h[i + 1]), string.sub(h[i], 3) })
    else f[h[i]] = h[i + 1] end
  end
  table.sort(asks, function(a, b) return a[1] < b[1] end)
  local entries = {}
  for _, a in ipairs(asks) do table.insert(entries, f['Q:' .. a[2]]) end
  local out = f.b .. ',"status":"' .. f.s .. '"'
  if f.m then out = out .. ',"statusMessage":' .. f.m end
  out = out .. ',"lastUpdatedAt":' .. f.u .. ',"inputRequests":{' .. table.concat(entries, ',') .. '}'
  if f.r then out = out .. ',"result":' .. f.r end
  if f.e then out = out .. ',"error":' .. f.e end
  return out .. '}'
end
local function ask(key, name, entry)
  if redis.call('HEXISTS', key, 'q:' .. name) == 0 then
    redis.call('HSET', key, 'q:' .. name, redis.call('HINCRBY', key, 'n', 1))
    redis.call('HINCRBY', key, 'k', 1)
  end
  redis.call('HSET', key, 'Q:' .. name, entry)
end
local function unask(key, name)
  if redis.call('HDEL', key, 'q:' .. name, 'Q:' .. name) == 0 then return false end
  if redis.call('HINCRBY', key, 'k', -1) <= 0 then redis.call('HSET', key, 's', 'working') end
  return true
end
local function unask_all(key)
  for _, field in ipairs(redis.call('HKEYS', key)) do
    local kind = string.sub(field, 1, 2)
    if kind == 'q:' or kind == 'Q:' or kind == 'a:' then redis.call('HDEL', key, field) end
  end
  redis.call('HSET', key, 'k', 0)
end
local function changed(id, key)
  local json = task_json(key)
  redis.call('PUBLISH', P .. 'tc:' .. id, '{"type":"changed","task":' .. json .. '}')
  return json
end
`;

function taskScript(body: string): Script {
  return script(`${TASKS}\n${body}`);
}

/**
 * ARGV: P, id, now, fixed, status, lastUpdatedAt, message ("" = none), result ("" = none), error ("" = none), purge
 * after ("" = never), keep ms ("" = for ever), caller (JSON, "" = not counted), per-caller limit, limit in all, then
 * per question: key, entry. "exists" when a live task has that id; "full-for-caller" when its caller has as many live
 * ones stored, "full" when all callers do. P.."to:"..caller (the caller's tasks) and P.."tasks" (every counted task)
 * are zsets id → purge after (ms, +inf = never), checked and added to together; each expires with its last member.
 */
export const CREATE_TASK = taskScript(`
local key = task_key(ARGV[2])
if task_live(key, tonumber(ARGV[3])) then return 'exists' end
if ARGV[12] ~= '' then
  local mine, all = P .. 'to:' .. ARGV[12], P .. 'tasks'
  redis.call('ZREMRANGEBYSCORE', mine, '-inf', '(' .. ARGV[3])
  if redis.call('ZCARD', mine) >= tonumber(ARGV[13]) then return 'full-for-caller' end
  redis.call('ZREMRANGEBYSCORE', all, '-inf', '(' .. ARGV[3])
  if redis.call('ZCARD', all) >= tonumber(ARGV[14]) then return 'full' end
  for _, counted in ipairs({ mine, all }) do
    redis.call('ZADD', counted, ARGV[10] == '' and '+inf' or ARGV[10], ARGV[2])
    local last = redis.call('ZRANGE', counted, -1, -1, 'WITHSCORES')[2]
    if last == 'inf' then redis.call('PERSIST', counted)
    else redis.call('PEXPIRE', counted, math.max(1, tonumber(last) - tonumber(ARGV[3]) + 1)) end
  end
end
redis.call('DEL', key)
redis.call('HSET', key, 'b', ARGV[4], 's', ARGV[5], 'u', ARGV[6], 'x', ARGV[10], 'n', 0, 'k', 0)
if ARGV[7] ~= '' then redis.call('HSET', key, 'm', ARGV[7]) end
if ARGV[8] ~= '' then redis.call('HSET', key, 'r', ARGV[8]) end
if ARGV[9] ~= '' then redis.call('HSET', key, 'e', ARGV[9]) end
for i = 15, #ARGV, 2 do ask(key, ARGV[i], ARGV[i + 1]) end
if ARGV[11] ~= '' then redis.call('PEXPIRE', key, ARGV[11]) end
return 'created'
`);

/** ARGV: P, id, now. The task as JSON; nil when unknown or past its TTL. */
export const LOAD_TASK = taskScript(`
local key = task_key(ARGV[2])
if not task_live(key, tonumber(ARGV[3])) then return false end
return task_json(key)
`);

/**
 * ARGV: P, id, now, kind, a, b (message: a = message; ask: a = key, b = entry; unask: a = key; complete: a = result;
 * fail: a = error, b = message or ""; cancel: b = message or ""), node ("" = any), held (1 when the node runs it, by
 * its own account). The task after it as JSON (`changed` published when it changed); nil when unknown; "lost"
 * (nothing written) when a node is given that does not hold it or from which another process claimed it (a lapsed or
 * lost P.."rt:"..node is no claim: P.."lost:"..node says so).
 */
export const CHANGE_TASK = taskScript(`
local id, kind, a, b = ARGV[2], ARGV[4], ARGV[5], ARGV[6]
local key = task_key(id)
if not task_live(key, tonumber(ARGV[3])) then return false end
if ARGV[7] ~= '' and (ARGV[8] ~= '1' or redis.call('HEXISTS', P .. 'lost:' .. ARGV[7], 't:' .. id) == 1) then
  return 'lost'
end
if TERMINAL[redis.call('HGET', key, 's')] then return task_json(key) end
if kind == 'message' then redis.call('HSET', key, 'm', a)
elseif kind == 'ask' then
  ask(key, a, b)
  redis.call('HSET', key, 's', 'input_required')
elseif kind == 'unask' then
  if not unask(key, a) then return task_json(key) end
elseif kind == 'complete' then
  unask_all(key)
  redis.call('HSET', key, 's', 'completed', 'r', a)
else
  unask_all(key)
  if kind == 'fail' then redis.call('HSET', key, 's', 'failed', 'e', a)
  else redis.call('HSET', key, 's', 'cancelled') end
  if b ~= '' then redis.call('HSET', key, 'm', b) end
end
redis.call('HSET', key, 'u', ARGV[3])
return changed(id, key)
`);

/**
 * ARGV: P, id, now, then per answer: key, key as JSON, value as JSON. Takes the outstanding ones (each kept as a:<key>
 * for the task's process, an `answer` each, then `changed`, published in order); answers the keys taken.
 */
export const ANSWER_TASK = taskScript(`
local id = ARGV[2]
local key = task_key(id)
if not task_live(key, tonumber(ARGV[3])) or TERMINAL[redis.call('HGET', key, 's')] then return {} end
local taken = {}
for i = 4, #ARGV, 3 do
  if unask(key, ARGV[i]) then
    table.insert(taken, ARGV[i])
    redis.call('HSET', key, 'a:' .. ARGV[i], ARGV[i + 1] .. ':' .. ARGV[i + 2])
    redis.call('PUBLISH', P .. 'tc:' .. id, '{"type":"answer","key":' .. ARGV[i + 1] .. ',"value":' .. ARGV[i + 2] .. '}')
  end
end
if #taken == 0 then return taken end
redis.call('HSET', key, 'u', ARGV[3])
changed(id, key)
return taken
`);

/**
 * ARGV: P, id, now. { the task as JSON, its kept answers as a JSON object } with those answers removed (each is taken
 * once); nil when unknown or past its TTL.
 */
export const TAKE_ANSWERS = taskScript(`
local key = task_key(ARGV[2])
if not task_live(key, tonumber(ARGV[3])) then return false end
local entries = {}
for _, field in ipairs(redis.call('HKEYS', key)) do
  if string.sub(field, 1, 2) == 'a:' then
    table.insert(entries, redis.call('HGET', key, field))
    redis.call('HDEL', key, field)
  end
end
return { task_json(key), '{' .. table.concat(entries, ',') .. '}' }
`);

/** ARGV: P, node, leaseMs, id, keepMs. This node runs the task (its lease renewed with it). */
export const TASK_RUNNING = taskScript(`
redis.call('SET', P .. 'node:' .. ARGV[2], '1', 'PX', ARGV[3])
redis.call('SADD', P .. 'rt:' .. ARGV[2], ARGV[4])
redis.call('SADD', P .. 'nodes', ARGV[2])
redis.call('PEXPIRE', P .. 'rt:' .. ARGV[2], ARGV[5])
redis.call('PEXPIRE', P .. 'nodes', ARGV[5])
return 1
`);
