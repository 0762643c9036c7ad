// @toolsmith/redis/testing: a redis-server of one's own for tests (Debian's /usr/bin/redis-server, else the one on the PATH).
export { type RedisServer, type StartRedisOptions, startRedis } from "./redis-server.js";
