import { checkKeyValue, EngineUnavailable, type KeyValueStore } from "@toolsmith/core/engine";
import type { RedisLifecycle } from "./lifecycle.js";
import { script } from "./scripts.js";

// Keys (P = "ts:{<namespace>}:"): P.."v:"..key (a value, a string with Redis's own PX expiry), P.."values" (zset
// key → the ms its value lapses: the live values counted against maxValues), P.."n:"..key (a counter, INCR with PX
// set as it is made), P.."counters" (zset key → the ms it lapses). Lapsed members leave a zset when one more is
// counted; a key's own expiry is Redis's, so a read never finds a lapsed value however late that is.

/** ARGV: P, key, value, ttlMs, ifAbsent ("1"), max. 1 when stored, 0 when a live value was there (ifAbsent), -1 full. */
const SET_VALUE = script(`
local t = now()
local key, index = P .. 'v:' .. ARGV[2], P .. 'values'
local held = redis.call('EXISTS', key) == 1
if held and ARGV[5] == '1' then return 0 end
if not held then
  redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. ms(t))
  if redis.call('ZCARD', index) >= tonumber(ARGV[6]) then return -1 end
end
redis.call('SET', key, ARGV[3], 'PX', ARGV[4])
redis.call('ZADD', index, ms(t + tonumber(ARGV[4])), ARGV[2])
return 1
`);

/** ARGV: P, key. The live value, deleted; nil when none. */
const TAKE_VALUE = script(`
local value = redis.call('GETDEL', P .. 'v:' .. ARGV[2])
redis.call('ZREM', P .. 'values', ARGV[2])
return value
`);

/** ARGV: P, key. 1 when a live value was deleted, else 0. */
const DELETE_VALUE = script(`
local deleted = redis.call('DEL', P .. 'v:' .. ARGV[2])
redis.call('ZREM', P .. 'values', ARGV[2])
return deleted
`);

/** ARGV: P, key, windowMs, max. The count (1 for a new counter, its expiry set with it); -1 when full. */
const COUNT_UP = script(`
local key, index = P .. 'n:' .. ARGV[2], P .. 'counters'
if redis.call('EXISTS', key) == 1 then return redis.call('INCR', key) end
local t = now()
redis.call('ZREMRANGEBYSCORE', index, '-inf', '(' .. ms(t))
if redis.call('ZCARD', index) >= tonumber(ARGV[4]) then return -1 end
redis.call('SET', key, '1', 'PX', ARGV[3])
redis.call('ZADD', index, ms(t + tonumber(ARGV[3])), ARGV[2])
return 1
`);

/**
 * The Redis engine's `KeyValueStore`: each value a string key with Redis's own expiry, each change one round trip
 * (a script where a count must not interleave across processes: the bound, a single-use take, a counter and its
 * window made together, so no counter lives forever).
 */
export class RedisKeyValueStore implements KeyValueStore {
  readonly #redis: RedisLifecycle;

  constructor(redis: RedisLifecycle) {
    this.#redis = redis;
  }

  async setValue(
    key: string,
    value: string,
    options: { readonly ttlMs: number; readonly ifAbsent?: boolean },
  ): Promise<boolean> {
    checkKeyValue(key, { value, ttlMs: options.ttlMs });
    const { maxValues } = this.#redis.settings;
    const ifAbsent = options.ifAbsent ? "1" : "0";
    const outcome = await this.#redis.run(SET_VALUE, [key, value, options.ttlMs, ifAbsent, maxValues]);
    if (outcome === -1) throw this.#full("values");
    return outcome === 1;
  }

  async getValue(key: string): Promise<string | undefined> {
    checkKeyValue(key);
    const open = this.#redis.started();
    return (await this.#redis.call(() => open.main.get(`${open.prefix}v:${key}`))) ?? undefined;
  }

  async takeValue(key: string): Promise<string | undefined> {
    checkKeyValue(key);
    return ((await this.#redis.run(TAKE_VALUE, [key])) as string | null) ?? undefined;
  }

  async deleteValue(key: string): Promise<boolean> {
    checkKeyValue(key);
    return (await this.#redis.run(DELETE_VALUE, [key])) === 1;
  }

  async countUp(key: string, windowMs: number): Promise<number> {
    checkKeyValue(key, { windowMs });
    const count = (await this.#redis.run(COUNT_UP, [key, windowMs, this.#redis.settings.maxValues])) as number;
    if (count === -1) throw this.#full("counters");
    return count;
  }

  #full(what: "values" | "counters"): EngineUnavailable {
    const { maxValues, retryAfterSeconds } = this.#redis.settings;
    return new EngineUnavailable(
      `The key-value store is full: it keeps at most ${maxValues} live ${what}, and one more must wait for one to expire`,
      { retryAfterSeconds },
    );
  }
}
