// @toolsmith/redis: the engine (sessions, events, the bus, leases) on Redis, for a server run as several processes.
export { createRedisEngine, type RedisEngineOptions } from "./redis-engine.js";
