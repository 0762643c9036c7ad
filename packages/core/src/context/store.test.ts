import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { EngineUnavailable } from "../engine/engine.js";
import { createMemoryEngine, type MemoryEngine } from "../engine/memory.js";
import { createServer } from "../server/server.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import type { LogEntry } from "./logger.js";
import type { Store } from "./store.js";

// ctx.store and server.store over the in-memory test client, in both eras: values kept exactly and bounded, lists
// paged, updates atomic, values that no longer fit their schema read as absent.

const clients: TestClient[] = [];
const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const engine of engines.splice(0)) engine.close();
});

function memory(options?: Parameters<typeof createMemoryEngine>[0]): MemoryEngine {
  const engine = createMemoryEngine(options);
  engines.push(engine);
  return engine;
}

/** A server whose tool `run` runs `body` on ctx.store, and the log it wrote. */
function storeServer(engine: MemoryEngine = memory()) {
  const logged: LogEntry[] = [];
  const server = createServer({ name: "store", version: "1", engine, logger: (entry) => logged.push(entry) });
  let body: (store: Store) => Promise<unknown> = async () => undefined;
  server.tool({
    name: "run",
    description: "Runs the test's body on ctx.store",
    handler: async (_args, ctx) => JSON.stringify((await body(ctx.store)) ?? null),
  });
  return {
    server,
    logged,
    engine,
    run(next: (store: Store) => Promise<unknown>) {
      body = next;
    },
  };
}

async function open(server: ReturnType<typeof createServer>, protocolVersion: "2025-06-18" | "2026-07-28") {
  const client = await createTestClient(server, { protocolVersion });
  clients.push(client);
  return client;
}

function textOf(result: { content?: unknown }): string {
  return ((result.content as { text: string }[])[0] as { text: string }).text;
}

describe.each(["2025-06-18", "2026-07-28"] as const)("ctx.store in %s", (protocolVersion) => {
  it("sets, gets, updates, deletes and lists JSON values, seen by server.store too", async () => {
    const { server, run } = storeServer();
    const client = await open(server, protocolVersion);
    run(async (store) => {
      await store.set("a", { n: 1, list: [1, "two", null, true], "": { nested: "ok" } });
      await store.set("b", "text");
      const updated = await store.update("c", (old: number | undefined) => (old ?? 40) + 2);
      return [await store.get("a"), await store.get("b"), updated, await store.get("missing")];
    });
    expect(JSON.parse(textOf(await client.callTool("run")))).toEqual([
      { n: 1, list: [1, "two", null, true], "": { nested: "ok" } },
      "text",
      42,
      null,
    ]);
    expect(await server.store.get("c")).toBe(42);
    expect((await server.store.list()).items.map((item) => item.key)).toEqual(["a", "b", "c"]);
    run(async (store) => [await store.delete("a"), await store.delete("a"), await store.update("c", () => undefined)]);
    expect(JSON.parse(textOf(await client.callTool("run")))).toEqual([true, false, null]);
    expect(await server.store.list()).toEqual({ items: [{ key: "b", value: "text" }] });
  });

  it("refuses hostile keys and values as the tool's error, keeping nothing: huge, deep, not JSON", async () => {
    const { server, run, engine } = storeServer();
    const client = await open(server, protocolVersion);
    let deep: unknown = "bottom";
    for (let level = 0; level < 65; level++) deep = [deep];
    const refused: [unknown, RegExp][] = [
      ["x".repeat(1_048_576), /more than the 1048576 allowed/],
      [deep, /nests deeper than 64 levels/],
      [undefined, /the value is undefined/],
      [{ when: new Date(0) }, /the value at "when" is a Date/],
      [{ n: Number.NaN }, /the value at "n" is NaN/],
      [[() => 1], /the value at 0 is a function/],
      [10n, /bigint/],
    ];
    for (const [value, message] of refused) {
      run((store) => store.set("k", value));
      const result = await client.callTool("run");
      expect(result.isError).toBe(true);
      expect(textOf(result)).toMatch(message);
    }
    for (const key of ["k".repeat(513), "half \uD83D"]) {
      run((store) => store.set(key, 1));
      expect(textOf(await client.callTool("run"))).toMatch(/key (is 513 characters|must be well-formed)/);
    }
    expect(engine.listRecords("", { limit: 10 })).toEqual([]);
    let ok: unknown = "bottom";
    for (let level = 0; level < 63; level++) ok = [ok];
    run(async (store) => {
      await store.set("deep", ok);
      return (await store.get("deep")) !== undefined;
    });
    expect(textOf(await client.callTool("run"))).toBe("true");
  });

  it("keeps `__proto__` as a key like any other: read back exactly, nothing polluted", async () => {
    const { server, run } = storeServer();
    const client = await open(server, protocolVersion);
    const hostile = JSON.parse('{"__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}');
    run(async (store) => {
      await store.set("__proto__", hostile);
      await store.update("constructor", () => hostile);
      const back = (await store.get("__proto__")) as Record<string, unknown>;
      return [Object.hasOwn(back, "__proto__"), Object.getPrototypeOf(back) === Object.prototype, back.polluted];
    });
    expect(JSON.parse(textOf(await client.callTool("run")))).toEqual([true, true, null]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((await server.store.list()).items.map((item) => item.key)).toEqual(["__proto__", "constructor"]);
  });
});

describe("server.store", () => {
  it("pages a list by an opaque cursor, by prefix, in code point order", async () => {
    const { server } = storeServer();
    const keys = Array.from({ length: 250 }, (_, n) => `item:${String(n).padStart(3, "0")}`);
    for (const key of [...keys].reverse()) await server.store.set(key, { key });
    await server.store.set("item", "not under item:");
    await server.store.set("other:1", 1);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await server.store.list({ prefix: "item:", limit: 100, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((item) => item.key));
      cursor = page.nextCursor;
      if (cursor !== undefined) expect(cursor).not.toContain("item");
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(keys);
    await expect(server.store.list({ cursor: "not a cursor!" })).rejects.toThrow(/cursor is not one this store gave/);
    await expect(server.store.list({ limit: 1001 })).rejects.toThrow(RangeError);
    expect((await server.store.list({ limit: 1000 })).items).toHaveLength(252);
  });

  it("ends a page after the value that brings it to 4 MiB, with a cursor, whatever the limit", async () => {
    const { server } = storeServer();
    // JSON of exactly 1 MiB each: a page holds four.
    const big = "x".repeat(1_048_574);
    for (let n = 0; n < 10; n++) await server.store.set(`big:${n}`, big);
    const pages: string[][] = [];
    let cursor: string | undefined;
    do {
      const page = await server.store.list({ prefix: "big:", limit: 1000, ...(cursor ? { cursor } : {}) });
      pages.push(page.items.map((item) => item.key));
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(pages.map((keys) => keys.length)).toEqual([4, 4, 2]);
    expect(pages.flat()).toEqual(Array.from({ length: 10 }, (_, n) => `big:${n}`));
  });

  it("reads a value that no longer fits its schema as absent, and logs it: get, list and update", async () => {
    const { server, logged } = storeServer();
    const Note = z.object({ text: z.string(), stars: z.number().default(0) });
    await server.store.set("n:1", { text: "old shape, fits", extra: true });
    await server.store.set("n:2", { title: "older shape" });
    await server.store.set("n:3", "not even an object");
    expect(await server.store.get("n:1", Note)).toEqual({ text: "old shape, fits", stars: 0 });
    expect(await server.store.get("n:2", Note)).toBeUndefined();
    expect(await server.store.get("n:2")).toEqual({ title: "older shape" });
    const page = await server.store.list({ prefix: "n:", schema: Note });
    expect(page.items).toEqual([{ key: "n:1", value: { text: "old shape, fits", stars: 0 } }]);
    const seen: unknown[] = [];
    const next = await server.store.update(
      "n:3",
      (old) => {
        seen.push(old);
        return { text: "migrated", stars: 1 };
      },
      { schema: Note },
    );
    expect([seen, next, await server.store.get("n:3", Note)]).toEqual([
      [undefined],
      { text: "migrated", stars: 1 },
      { text: "migrated", stars: 1 },
    ]);
    const warnings = logged.filter((entry) => entry.level === "warning").map((entry) => entry.message);
    expect(warnings.filter((message) => message.includes('"n:2" read as absent'))).toHaveLength(2);
    expect(warnings.some((message) => message.includes('"n:3" read as absent'))).toBe(true);
  });

  it("reads a record that is not JSON as absent, and logs that without any of its text", async () => {
    const { server, logged, engine } = storeServer();
    // Written past the store (by hand, an older version, another program): the store never writes such a value.
    engine.writeRecord("d:s:token", "sk-live-0123456789abcdef");
    expect(await server.store.get("token")).toBeUndefined();
    const [warning] = logged.filter((entry) => entry.level === "warning");
    expect(warning?.message).toMatch(/"token" read as absent: it is not JSON/);
    expect(JSON.stringify(logged)).not.toMatch(/sk-live/);
  });

  it("lets a value lapse after its ttlMs by the engine's clock; a set without ttlMs keeps it", async () => {
    let now = 1_000_000;
    const { server } = storeServer(memory({ now: () => now }));
    await server.store.set("brief", 1, { ttlMs: 1000 });
    await server.store.set("kept", 1, { ttlMs: 1000 });
    await server.store.set("kept", 2);
    await server.store.update("counted", (n: number | undefined) => (n ?? 0) + 1, { ttlMs: 500 });
    now += 1000;
    expect([await server.store.get("brief"), await server.store.get("counted")]).toEqual([1, undefined]);
    now += 1;
    expect(await server.store.get("brief")).toBeUndefined();
    expect(await server.store.list()).toEqual({ items: [{ key: "kept", value: 2 }] });
    await expect(server.store.set("bad", 1, { ttlMs: 0 })).rejects.toThrow(/ttlMs must be a whole number above 0/);
  });

  it("loses no update of two servers on one engine racing on one key, 1000 updates each", async () => {
    const engine = memory();
    const [a, b] = [storeServer(engine).server, storeServer(engine).server];
    const bump = async (store: Store) => {
      for (let n = 0; n < 1000; n++) {
        await store.update("count", async (old: number | undefined) => {
          // Yield inside the change, so the other server writes between this read and this write.
          await Promise.resolve();
          return (old ?? 0) + 1;
        });
      }
    };
    await Promise.all([bump(a.store), bump(b.store)]);
    expect(await a.store.get("count")).toBe(2000);
    expect(engine.readRecord("d:s:count")?.version).toBe(2000);
  });

  it("gives up an update after 64 lost races with EngineUnavailable, a 503 for the caller to retry", async () => {
    const { server } = storeServer();
    let tries = 0;
    const lost = server.store.update("hot", async (old: number | undefined) => {
      tries++;
      // Another writer lands between every read and write.
      await server.store.set("hot", (old ?? 0) + 100);
      return (old ?? 0) + 1;
    });
    await expect(lost).rejects.toBeInstanceOf(EngineUnavailable);
    expect(tries).toBe(64);
  });

  it("turns an engine out of reach into -32000 with retryAfterSeconds, as the engine's other faults", async () => {
    const engine = memory();
    const { server, run } = storeServer(engine);
    const client = await open(server, "2026-07-28");
    engine.readRecord = () => {
      throw new EngineUnavailable("redis is down");
    };
    run((store) => store.get("k"));
    const error = await rpcError(client.callTool("run"));
    expect(error.code).toBe(-32000);
    expect(error.data).toMatchObject({ retryAfterSeconds: expect.any(Number) });
  });

  it("names the engine when it keeps no records", async () => {
    const engine = memory();
    const partial = Object.assign(Object.create(engine) as MemoryEngine, { readRecord: undefined });
    const server = createServer({ name: "store", version: "1", engine: partial });
    await expect(server.store.get("k")).rejects.toThrow(/needs an engine that keeps records \(the RecordStore role/);
  });
});
