import type { Engine } from "@toolsmith/core/engine";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll } from "vitest";
import type { HttpHandler } from "../doors/http-handler.js";

/**
 * One real redis-server for a test file's processes (each an engine and an HTTP handler on it), started before its
 * tests and stopped after them with every engine and handler the file kept in `engines` and `handlers`. `redis` is
 * the server once started.
 */
export function sharedRedis(): { redis: RedisServer; engines: Engine[]; handlers: HttpHandler[] } {
  let server: RedisServer | undefined;
  const engines: Engine[] = [];
  const handlers: HttpHandler[] = [];
  beforeAll(async () => {
    server = await startRedis();
  }, 60_000);
  afterAll(async () => {
    for (const handle of handlers) handle.close();
    await Promise.all(engines.map((engine) => engine.close()));
    await server?.stop();
  });
  const redis = new Proxy({} as RedisServer, {
    get(_target, property) {
      if (server === undefined) throw new Error("redis-server is not started yet: use it inside a test");
      const value = Reflect.get(server, property, server);
      return typeof value === "function" ? value.bind(server) : value;
    },
  });
  return { redis, engines, handlers };
}
