import { afterEach, describe, expect, it } from "vitest";
import type { Engine, ServerSignal } from "../engine/engine.js";
import { createMemoryEngine, type MemoryEngine } from "../engine/memory.js";
import { createServer } from "../server/server.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import type { AuthInfo } from "./context.js";
import type { ContextStore } from "./store-scopes.js";

// The store's scopes (server, user, session) cannot reach one another; a session's records go when it ends; watchers
// and a resource fed by a store key hear each change once, on the process that made it.

const clients: TestClient[] = [];
const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const engine of engines.splice(0)) engine.close();
});

function memory(): MemoryEngine {
  const engine = createMemoryEngine();
  engines.push(engine);
  return engine;
}

const who = (subject: string): AuthInfo => ({ subject, scopes: [] });

/** A server whose tool `run` runs `body` on ctx.store and answers what it gave as JSON. */
function storeServer(engine: Engine = memory()) {
  const server = createServer({ name: "scopes", version: "1", engine, logger: () => {} });
  let body: (store: ContextStore) => Promise<unknown> = async () => undefined;
  server.tool({
    name: "run",
    description: "Runs the test's body on ctx.store",
    handler: async (_args, ctx) => JSON.stringify((await body(ctx.store)) ?? null),
  });
  return {
    server,
    run(next: (store: ContextStore) => Promise<unknown>) {
      body = next;
    },
  };
}

async function open(server: ReturnType<typeof createServer>, options: Parameters<typeof createTestClient>[1]) {
  const client = await createTestClient(server, options);
  clients.push(client);
  return client;
}

async function call(client: TestClient): Promise<{ error: boolean; text: string }> {
  const result = await client.callTool("run");
  return { error: result.isError === true, text: (result.content as { text: string }[])[0]?.text ?? "" };
}

describe.each(["2025-06-18", "2026-07-28"] as const)("the store's scopes in %s", (protocolVersion) => {
  it("keeps each caller's `user` store apart, keyed by the authenticated subject alone", async () => {
    const engine = memory();
    const { server, run } = storeServer(engine);
    // Subjects that would run into one another if written raw: "a" and "a:b", and one spelling the other's encoding.
    const [a, ab, encoded] = (await Promise.all(
      ["a", "a:b", "a%3Ab"].map((subject) => open(server, { protocolVersion, auth: who(subject) })),
    )) as [TestClient, TestClient, TestClient];
    for (const [client, subject] of [
      [a, "a"],
      [ab, "a:b"],
      [encoded, "a%3Ab"],
    ] as const) {
      run(async (store) => {
        await store.user.set("b:k", `of ${subject}`);
        return null;
      });
      expect((await call(client)).error).toBe(false);
    }
    run(async (store) => [await store.user.get("b:k"), (await store.user.list()).items, await store.get("b:k")]);
    expect(JSON.parse((await call(ab)).text)).toEqual(["of a:b", [{ key: "b:k", value: "of a:b" }], null]);
    expect(JSON.parse((await call(a)).text)[1]).toEqual([{ key: "b:k", value: "of a" }]);
    expect(engine.listRecords("d:u:a", { limit: 10 }).map((r) => r.key)).toEqual([
      "d:u:a%253Ab:b:k",
      "d:u:a%3Ab:b:k",
      "d:u:a:b:k",
    ]);
    const anonymous = await open(server, { protocolVersion });
    run((store) => store.user.get("b:k"));
    const refused = await call(anonymous);
    expect(refused).toMatchObject({ error: true });
    expect(refused.text).toMatch(/ctx.store.user needs an authenticated caller/);
  });

  it("keeps the whole server's store apart from every user's and session's", async () => {
    const { server, run } = storeServer();
    const client = await open(server, { protocolVersion, auth: who("alice") });
    await server.store.set("k", "server");
    run(async (store) => {
      await store.user.set("k", "alice");
      return [await store.get("k"), await store.user.get("k"), (await store.list()).items.length];
    });
    expect(JSON.parse((await call(client)).text)).toEqual(["server", "alice", 1]);
    expect((await server.store.list()).items).toEqual([{ key: "k", value: "server" }]);
  });
});

describe("ctx.store.session", () => {
  it("is the handshake-era session's own, and goes when the session ends", async () => {
    const engine = memory();
    const { server, run } = storeServer(engine);
    const first = await open(server, { protocolVersion: "2025-06-18" });
    const second = await open(server, { protocolVersion: "2025-06-18" });
    run(async (store) => store.session.update("visits", (n: number | undefined) => (n ?? 0) + 1));
    expect((await call(first)).text).toBe("1");
    expect((await call(first)).text).toBe("2");
    expect((await call(second)).text).toBe("1");
    expect(engine.listRecords("d:x:", { limit: 10 })).toHaveLength(2);
    first.close();
    expect(engine.listRecords("d:x:", { limit: 10 })).toHaveLength(1);
    expect((await call(second)).text).toBe("2");
  });

  it("costs nothing at the end of a session that never wrote to it, and takes no write once its session ended", async () => {
    const engine = memory();
    const cleared: string[] = [];
    const clear = engine.clearRecords.bind(engine);
    engine.clearRecords = (prefix: string) => {
      cleared.push(prefix);
      return clear(prefix);
    };
    const { server, run } = storeServer(engine);
    const quiet = await open(server, { protocolVersion: "2025-06-18" });
    const writer = await open(server, { protocolVersion: "2025-06-18" });
    let kept: ContextStore["session"] | undefined;
    run(async (store) => {
      kept = store.session;
      return store.session.get("k");
    });
    await call(quiet);
    quiet.close();
    expect(cleared).toEqual([]);
    await expect(kept?.set("late", 1)).rejects.toThrow(/has ended \(or never was\)/);
    run(async (store) => store.session.set("k", 1));
    expect((await call(writer)).error).toBe(false);
    writer.close();
    expect(cleared).toHaveLength(1);
    expect(engine.listRecords("d:", { limit: 10 })).toEqual([]);
  });

  it("is refused in 2026-07-28, which has no session, naming what to use instead", async () => {
    const { server, run } = storeServer();
    const client = await open(server, { protocolVersion: "2026-07-28", auth: who("alice") });
    run((store) => store.session.get("k"));
    const refused = await call(client);
    expect(refused.error).toBe(true);
    expect(refused.text).toMatch(/needs a handshake-era session and a 2026-07-28 request has none: use ctx.store.user/);
  });
});

describe("watching the store", () => {
  it("tells a watcher of each change in its scope made through any store of the server, after the write", async () => {
    const { server, run } = storeServer();
    const client = await open(server, { protocolVersion: "2026-07-28", auth: who("alice") });
    const heard: unknown[] = [];
    const stop = server.store.watch("k", (change) => heard.push(["k", change]));
    server.store.watch({ prefix: "p:" }, (change) => heard.push(["p:", change]));
    server.store.watch("boom", () => {
      throw new Error("a watcher's own bug");
    });
    run(async (store) => {
      await store.set("k", 1);
      await store.user.set("k", "not the server's");
      await store.update("p:1", () => ({ a: 1 }));
      await store.delete("p:1");
      await store.delete("p:never");
      await store.set("boom", 1);
      await store.set("pp", 1);
      return null;
    });
    expect((await call(client)).error).toBe(false);
    expect(heard).toEqual([
      ["k", { key: "k", value: 1 }],
      ["p:", { key: "p:1", value: { a: 1 } }],
      ["p:", { key: "p:1", value: undefined }],
    ]);
    stop();
    await server.store.set("k", 2);
    expect(heard).toHaveLength(3);
  });

  it("announces a resource fed by a store key once, across processes, to every subscriber", async () => {
    const {
      engines: [onA, onB],
      sent,
    } = sharedEngines();
    const processes = [onA, onB].map((engine) => {
      const made = storeServer(engine);
      made.server.resource({ uri: "board://today", storeKey: "board", handler: () => "the board" });
      made.server.startEngine();
      return made;
    });
    const [a, b] = processes as [(typeof processes)[0], (typeof processes)[0]];
    const streams = await Promise.all(
      [a, b].map(async ({ server }) =>
        (await open(server, { protocolVersion: "2026-07-28" })).listen({ resourceSubscriptions: ["board://today"] }),
      ),
    );
    await a.server.store.set("board", { items: 1 });
    for (const stream of streams) expect((await stream.next()).method).toBe("notifications/resources/updated");
    await a.server.store.set("not-the-board", 1);
    await b.server.store.update("board", () => ({ items: 2 }));
    for (const stream of streams) expect((await stream.next()).params).toMatchObject({ uri: "board://today" });
    expect(sent).toEqual([
      { type: "resourceUpdated", uri: "board://today" },
      { type: "resourceUpdated", uri: "board://today" },
    ]);
    for (const stream of streams) expect(stream.notifications).toHaveLength(2);
  });
});

/** Two processes' engines over one memory engine's records, with a bus between them: a shared engine in little. */
function sharedEngines() {
  const records = memory();
  const sent: ServerSignal[] = [];
  const hearers = new Set<{ from: Engine; listener: (signal: ServerSignal) => void }>();
  const engines = ["a", "b"].map((node) => {
    const engine: MemoryEngine = memory();
    // The memory engine's node is a getter (its id is made on first use): defined, not assigned.
    Object.defineProperty(engine, "node", { value: node });
    return Object.assign(engine, {
      shared: true,
      readRecord: records.readRecord.bind(records),
      writeRecord: records.writeRecord.bind(records),
      swapRecord: records.swapRecord.bind(records),
      deleteRecord: records.deleteRecord.bind(records),
      listRecords: records.listRecords.bind(records),
      clearRecords: records.clearRecords.bind(records),
      broadcast(signal: ServerSignal) {
        sent.push(signal);
        for (const { from, listener } of hearers) if (from !== engine) queueMicrotask(() => listener(signal));
      },
      onBroadcast(listener: (signal: ServerSignal) => void) {
        const hearer = { from: engine as Engine, listener };
        hearers.add(hearer);
        return () => hearers.delete(hearer);
      },
    }) as unknown as Engine;
  });
  return { engines, sent };
}
