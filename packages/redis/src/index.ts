// @toolsmith/redis: the engine (sessions, events, the bus, leases) on Redis, for a server run as several processes.
export type { RedisEngineOptions } from "./options.js";
export { createRedisEngine } from "./redis-engine.js";
