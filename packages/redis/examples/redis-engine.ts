// The @example block of @toolsmith/redis: compiled by `pnpm typecheck`, copied into the TSDoc by
// scripts/sync-examples.mjs.
import { createServer, type Server } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";

export function shared(): Server {
  //#region createRedisEngine
  const engine = createRedisEngine({ url: process.env.REDIS_URL ?? "redis://127.0.0.1:6379" });
  const server = createServer({ name: "notes", version: "1.0.0", engine });
  //#endregion createRedisEngine
  return server;
}
