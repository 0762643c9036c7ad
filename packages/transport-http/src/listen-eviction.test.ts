import { PassThrough } from "node:stream";
import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HttpServer, listen } from "./listen.js";

// A Redis that may evict the engine's keys is said loudly where a server run by `listen` logs (its log stream, else
// stderr), or refused before the process serves: the engine starts before the first request, its logger first.

let evicting: RedisServer;
let unlimited: RedisServer;
const engines: { close(): unknown }[] = [];
const open: HttpServer[] = [];
beforeAll(async () => {
  [evicting, unlimited] = await Promise.all([
    startRedis({ appendonly: false, args: ["--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"] }),
    startRedis({ appendonly: false, args: ["--maxmemory-policy", "volatile-lru"] }),
  ]);
}, 60_000);
afterAll(async () => {
  for (const server of open) await server.close();
  await Promise.all(engines.map((engine) => engine.close()));
  await Promise.all([evicting?.stop(), unlimited?.stop()]);
});

function serverOn(url: string) {
  const engine = createRedisEngine({ url });
  engines.push(engine);
  return createServer({ name: "listen-eviction", version: "1", engine });
}

describe("listen on a Redis engine that may evict", () => {
  it("says so on the log stream before serving", async () => {
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    const http = await listen(serverOn(unlimited.url), { port: 0, log: stream });
    open.push(http);
    const warning = text.split("\n").find((line) => line.includes("maxmemory-policy"));
    expect(warning).toMatch(/^\[toolsmith\] Redis engine: .*maxmemory-policy volatile-lru and no maxmemory yet/);
  });

  it("refuses to start one that evicts when full: listen rejects, nothing listens", async () => {
    const stream = new PassThrough();
    await expect(listen(serverOn(evicting.url), { port: 0, log: stream })).rejects.toThrow(
      /^Refusing to start the Redis engine: .*maxmemory-policy volatile-lru/,
    );
  });
});
