import { once } from "node:events";
import { connect } from "node:net";
import { PassThrough } from "node:stream";
import { createServer } from "@toolsmith/core";
import { createRedisEngine } from "@toolsmith/redis";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../../../../scripts/wait.js";
import { type HttpServer, listen } from "./node-server.js";

// A Redis that may evict the engine's keys is said loudly where a server run by `listen` logs (its log stream, else
// stderr), or refused before the process serves: the engine starts before the first request, its logger first.

let evicting: RedisServer;
let unlimited: RedisServer;
let late: RedisServer;
const engines: { close(): unknown }[] = [];
const open: HttpServer[] = [];
beforeAll(async () => {
  const evictingArgs = ["--maxmemory", "64mb", "--maxmemory-policy", "volatile-lru"];
  [evicting, unlimited, late] = await Promise.all([
    startRedis({ appendonly: false, args: evictingArgs }),
    startRedis({ appendonly: false, args: ["--maxmemory-policy", "volatile-lru"] }),
    startRedis({ appendonly: false, args: evictingArgs }),
  ]);
}, 60_000);
afterAll(async () => {
  for (const server of open) await server.close();
  await Promise.all(engines.map((engine) => engine.close()));
  await Promise.all([evicting?.stop(), unlimited?.stop(), late?.stop()]);
});

/** CONFIG SET on the Redis at `port`, in RESP over a socket of its own; resolves on its "+OK". */
async function configSet(port: number, name: string, value: string): Promise<void> {
  const socket = connect(port, "127.0.0.1");
  const parts = ["CONFIG", "SET", name, value];
  socket.write(`*${parts.length}\r\n${parts.map((part) => `$${part.length}\r\n${part}\r\n`).join("")}`);
  const [reply] = (await once(socket, "data")) as [Buffer];
  socket.destroy();
  expect(reply.toString()).toBe("+OK\r\n");
}

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

  it("a Redis that was down at listen and comes up evicting: 503 with Retry-After, said once, served once fixed", async () => {
    await late.stop();
    const logged: string[] = [];
    const server = createServer({
      name: "listen-eviction",
      version: "1",
      engine: createRedisEngine({ url: late.url }),
      logger: (entry) => logged.push(entry.message),
    });
    const http = await listen(server, { port: 0, log: null });
    open.push(http);
    await late.restart();
    const initialize = () =>
      fetch(http.url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 7,
          method: "initialize",
          params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
        }),
      });
    const refusals = () => logged.filter((line) => line.includes("Refusing to start the Redis engine"));
    // Each request tries the start again: until one meets the Redis that is up, it cannot be reached.
    const refused = await until(async () => {
      const response = await initialize();
      return response.status !== 503 || refusals().length > 0 ? response : undefined;
    }, "a start that met the evicting Redis");
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("2");
    expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32000 } });
    expect((await initialize()).status).toBe(503);
    expect(refusals()).toHaveLength(1);
    // Fixed while the process runs: its next start succeeds.
    await configSet(late.port, "maxmemory-policy", "noeviction");
    const served = await until(async () => {
      const response = await initialize();
      return response.status === 200 ? response : undefined;
    }, "the session opened once Redis was fixed");
    expect(await served.json()).toMatchObject({ id: 7, result: { protocolVersion: "2025-11-25" } });
  });
});
