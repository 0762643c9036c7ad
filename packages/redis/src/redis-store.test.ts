import { createServer, type Server } from "@toolsmith/core";
import { isEngineUnavailable } from "@toolsmith/core/engine";
import { createTestClient, type TestClient } from "@toolsmith/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { useRedis } from "./redis.test-util.js";
import { createRedisEngine } from "./redis-engine.js";

const at = useRedis();

// Core's store on the Redis engine, as two processes of one server hold it (a server and an engine each): what one
// writes the other reads, and a Redis outage fails a call within the engine's command timeout. (Racing writers:
// redis-records.test.ts, on the engine's compare-and-set that the store's update uses; and below, through the store.)
const COMMAND_TIMEOUT_MS = 1000;

const clients: TestClient[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
});

async function two(): Promise<[Server, Server]> {
  const namespace = crypto.randomUUID();
  const servers = [0, 1].map(() => {
    const engine = createRedisEngine({ url: at.redis.url, namespace, commandTimeoutMs: COMMAND_TIMEOUT_MS });
    at.engines.push(engine);
    return createServer({ name: "store", version: "1.0.0", engine });
  });
  for (const server of servers) await server.startEngine();
  return servers as [Server, Server];
}

describe("core's store on the Redis engine", () => {
  it("shares values, pages and updates between processes", async () => {
    const [a, b] = await two();
    await a.store.set("notes:1", { text: "from a", tags: ["x"] });
    expect(await b.store.get("notes:1")).toEqual({ text: "from a", tags: ["x"] });
    for (let n = 2; n <= 5; n++) await b.store.set(`notes:${n}`, { text: `note ${n}` });
    const first = await a.store.list({ prefix: "notes:", limit: 3 });
    expect(first.items.map((item) => item.key)).toEqual(["notes:1", "notes:2", "notes:3"]);
    const rest = await b.store.list({ prefix: "notes:", limit: 3, cursor: first.nextCursor });
    expect(rest.items.map((item) => item.key)).toEqual(["notes:4", "notes:5"]);

    expect(await a.store.update("count", (old: number | undefined) => (old ?? 0) + 1)).toBe(1);
    expect(await b.store.update("count", (old: number | undefined) => (old ?? 0) + 1)).toBe(2);
    expect(await b.store.delete("count")).toBe(true);
    expect(await a.store.get("count")).toBeUndefined();
  });

  it("ends a page after the value that brings it to 4 MiB, with a cursor that goes on from any process", async () => {
    const [a, b] = await two();
    const big = "x".repeat(1_048_574);
    for (let n = 0; n < 9; n++) await a.store.set(`big:${n}`, big);
    const first = await b.store.list({ prefix: "big:", limit: 1000 });
    expect(first.items.map((item) => item.key)).toEqual(["big:0", "big:1", "big:2", "big:3"]);
    const second = await a.store.list({ prefix: "big:", limit: 1000, cursor: first.nextCursor });
    const third = await b.store.list({ prefix: "big:", limit: 1000, cursor: second.nextCursor });
    expect([second, third].map((page) => page.items.length)).toEqual([4, 1]);
    expect(third.nextCursor).toBeUndefined();
  });

  it("loses no update of one key when each of two processes runs 1000 at once", { timeout: 120_000 }, async () => {
    const [a, b] = await two();
    const bump = (server: Server) => server.store.update("count", (old: number | undefined) => (old ?? 0) + 1);
    const each = (server: Server) => Promise.all(Array.from({ length: 1000 }, () => bump(server)));
    const [fromA, fromB] = await Promise.all([each(a), each(b)]);
    expect(await a.store.get("count")).toBe(2000);
    // Every update answered a count of its own: none was lost to, or written over by, another.
    expect(new Set([...fromA, ...fromB]).size).toBe(2000);
  });

  it("loses no update when requests on two processes each read a key, then update it (hints gone stale)", {
    timeout: 120_000,
  }, async () => {
    const servers = await two();
    const counts = servers.map((server) => {
      server.tool({
        name: "bump",
        description: "Reads the count, then adds one",
        handler: async (_args, ctx) => {
          const read = await ctx.store.get("count");
          const made = await ctx.store.update("count", (old: number | undefined) => (old ?? 0) + 1);
          return JSON.stringify([read, made]);
        },
      });
      return createTestClient(server, { protocolVersion: "2026-07-28" });
    });
    const opened = await Promise.all(counts);
    clients.push(...opened);
    const each = (client: TestClient) =>
      Promise.all(
        Array.from({ length: 300 }, async () => {
          const result = await client.callTool("bump");
          const [read, made] = JSON.parse((result.content as { text: string }[])[0]?.text ?? "") as [number, number];
          // What the update started from was at least what the get read: it counts on from there or later.
          expect(made).toBeGreaterThan(read ?? 0);
          return made;
        }),
      );
    const made = (await Promise.all(opened.map(each))).flat();
    expect(await (servers[0] as Server).store.get("count")).toBe(600);
    expect(new Set(made).size).toBe(600);
  });

  it("fails a store call with EngineUnavailable within the command timeout while Redis is frozen, and works after", async () => {
    const [a, b] = await two();
    await a.store.set("kept", 1);
    const pid = at.redis.pid as number;
    process.kill(pid, "SIGSTOP");
    try {
      const calls = [
        () => a.store.get("kept"),
        () => a.store.set("kept", 2),
        () => a.store.update("kept", (n: number | undefined) => (n ?? 0) + 1),
        () => a.store.delete("kept"),
        () => b.store.list({ prefix: "" }),
      ];
      const outcomes = await Promise.all(
        calls.map(async (call) => {
          const started = performance.now();
          const error = await call().then(
            () => undefined,
            (thrown: unknown) => thrown,
          );
          return { error, took: performance.now() - started };
        }),
      );
      for (const { error, took } of outcomes) {
        expect(error).toSatisfy(isEngineUnavailable);
        // The command timeout, and what a slow shared machine adds to it.
        expect(took).toBeLessThan(COMMAND_TIMEOUT_MS + 1500);
      }
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // A write that timed out had been sent: Redis may run it once it runs again (the set of 2, or the delete), so
    // which value is there depends on what reached it; the store works again either way.
    const after = await b.store.update("kept", (n: number | undefined) => (n ?? 0) + 1);
    expect([1, 2, 3]).toContain(after);
    expect(await a.store.get("kept")).toBe(after);
  });
  it("fails each of many queued updates of one key within the command timeout while Redis is frozen, not one after another", async () => {
    const [a] = await two();
    await a.store.set("votes", 1);
    const pid = at.redis.pid as number;
    process.kill(pid, "SIGSTOP");
    try {
      const started = performance.now();
      // Updates of one key in one process wait their turn: behind one that meets a frozen Redis, each would wait
      // out a command timeout of its own.
      const outcomes = await Promise.all(
        Array.from({ length: 4 }, () =>
          a.store
            .update("votes", (n: number | undefined) => (n ?? 0) + 1)
            .then(
              () => ({ error: undefined as unknown, took: performance.now() - started }),
              (error: unknown) => ({ error, took: performance.now() - started }),
            ),
        ),
      );
      for (const { error, took } of outcomes) {
        expect(error).toSatisfy(isEngineUnavailable);
        expect(took).toBeLessThan(COMMAND_TIMEOUT_MS + 1500);
      }
    } finally {
      process.kill(pid, "SIGCONT");
    }
    // The engine works again, and a later update of the key takes its turn afresh.
    expect(await a.store.update("votes", (n: number | undefined) => (n ?? 0) + 1)).toBeGreaterThan(1);
  });
});
