import { afterEach, describe, expect, it, vi } from "vitest";
import { createMemoryEngine, type MemoryEngine } from "../engine/memory.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient, type TestClient } from "../testing/client.js";
import type { AuthInfo } from "./context.js";
import type { ContextStore } from "./store-scopes.js";

// A request's update starts from what the same request last read or wrote of that record (its hint), so a get and
// an update cost one read and one swap; the swap checks the hint (version and value), so a stale one costs one more
// swap and never a lost write; a hint is one request's, for one key in one scope.

const clients: TestClient[] = [];
const engines: MemoryEngine[] = [];
afterEach(() => {
  for (const client of clients.splice(0)) client.close();
  for (const engine of engines.splice(0)) engine.close();
});

const who = (subject: string): AuthInfo => ({ subject, scopes: [] });

/** Two servers (two processes) on one engine, counting the engine's reads and swaps; `run` sets the tool's body. */
function twoServers() {
  const engine = createMemoryEngine();
  engines.push(engine);
  const reads = vi.spyOn(engine, "readRecord");
  const swaps = vi.spyOn(engine, "swapRecord");
  const make = () => createServer({ name: "hints", version: "1", engine, logger: () => {} });
  const [server, other] = [make(), make()] as [Server, Server];
  let body: (store: ContextStore) => Promise<unknown> = async () => undefined;
  server.tool({
    name: "run",
    description: "Runs the test's body on ctx.store",
    handler: async (_args, ctx) => JSON.stringify((await body(ctx.store)) ?? null),
  });
  return {
    server,
    other,
    /** How many reads and swaps the engine made since the last call. */
    counted() {
      const made = { reads: reads.mock.calls.length, swaps: swaps.mock.calls.length };
      reads.mockClear();
      swaps.mockClear();
      return made;
    },
    run(next: (store: ContextStore) => Promise<unknown>) {
      body = next;
    },
  };
}

async function call(
  server: Server,
  auth?: AuthInfo,
  protocolVersion: "2025-06-18" | "2026-07-28" = "2026-07-28",
): Promise<unknown> {
  const client = await createTestClient(server, { protocolVersion, ...(auth ? { auth } : {}) });
  clients.push(client);
  const result = await client.callTool("run");
  const text = (result.content as { text: string }[])[0]?.text ?? "";
  if (result.isError === true) throw new Error(text);
  return JSON.parse(text);
}

const plusOne = (old: number | undefined) => (old ?? 0) + 1;

describe("a request's store hints", () => {
  it("updates what the request just read with one swap and no second read, in every scope", async () => {
    const { server, run, counted } = twoServers();
    run(async (store) => {
      const seen = [await store.get("n"), await store.user.get("n"), await store.session.get("n")];
      const made = [
        await store.update("n", plusOne),
        await store.user.update("n", plusOne),
        await store.session.update("n", plusOne),
        await store.update("n", plusOne),
      ];
      return [seen, made];
    });
    expect(await call(server, who("alice"), "2025-06-18")).toEqual([
      [null, null, null],
      [1, 1, 1, 2],
    ]);
    expect(counted()).toEqual({ reads: 3, swaps: 4 });
    run(async (store) => {
      await store.set("s", { list: [1] });
      const made = await store.update("s", (old: { list: number[] } | undefined) => ({
        list: [...(old?.list ?? []), 2],
      }));
      await store.delete("s");
      return [made, await store.update("s", (old: unknown) => old ?? "anew")];
    });
    expect(await call(server)).toEqual([{ list: [1, 2] }, "anew"]);
    expect(counted()).toEqual({ reads: 0, swaps: 2 });
  });

  it("hands update a fresh copy of the value, never the one get gave the handler (it may have changed it)", async () => {
    const { server, run } = twoServers();
    await server.store.set("doc", { tags: ["a"] });
    run(async (store) => {
      const read = (await store.get("doc")) as { tags: string[] };
      read.tags.push("changed by the handler, not stored");
      return store.update("doc", (old: { tags: string[] } | undefined) => ({ tags: [...(old?.tags ?? []), "b"] }));
    });
    expect(await call(server)).toEqual({ tags: ["a", "b"] });
  });

  it("starts again from another process's write that made the hint stale: one swap more, nothing lost", async () => {
    const { server, other, run, counted } = twoServers();
    await other.store.set("n", 1);
    run(async (store) => {
      await store.get("n");
      await other.store.set("n", 10);
      return store.update("n", plusOne);
    });
    expect(await call(server)).toBe(11);
    // other.store's set, then this request's read, its stale swap, its swap.
    expect(counted()).toEqual({ reads: 1, swaps: 2 });
    expect(await other.store.get("n")).toBe(11);
  });

  it("never takes a record deleted and made again at the same version for the one it read", async () => {
    const { server, other, run } = twoServers();
    await other.store.set("n", 1);
    run(async (store) => {
      await store.get("n");
      await other.store.delete("n");
      await other.store.set("n", 7);
      return store.update("n", plusOne);
    });
    expect(await call(server)).toBe(8);
  });

  it("checks a hint of none before taking it: an update that leaves none alone acts on what another process made", async () => {
    const { server, other, run, counted } = twoServers();
    run(async (store) => {
      const before = await store.get("n");
      await other.store.set("n", 5);
      const made = await store.update("n", (old: number | undefined) => (old === undefined ? undefined : old + 1));
      return [before, made];
    });
    expect(await call(server)).toEqual([null, 6]);
    expect(counted()).toEqual({ reads: 1, swaps: 2 });
  });

  it("uses a hint for its own key in its own scope only: another key or scope reads first", async () => {
    const { server, other, run, counted } = twoServers();
    await other.store.set("n", 1);
    await other.store.set("m", 100);
    counted();
    run(async (store) => {
      await store.user.get("n");
      await store.get("m");
      return [await store.update("n", plusOne), await store.user.update("m", plusOne)];
    });
    expect(await call(server, who("alice"))).toEqual([2, 1]);
    // Two gets, then each update's own read: no swap lost on a hint of another record.
    expect(counted()).toEqual({ reads: 4, swaps: 2 });
  });

  it("uses a hint in the request that read it only, never in another request, another caller's or its own", async () => {
    const { server, run, counted } = twoServers();
    await server.store.set("n", 1);
    run(async (store) => store.get("n"));
    expect(await call(server, who("alice"))).toBe(1);
    run(async (store) => store.update("n", plusOne));
    counted();
    expect(await call(server, who("bob"))).toBe(2);
    expect(await call(server, who("alice"))).toBe(3);
    expect(counted()).toEqual({ reads: 2, swaps: 2 });
    // server.store (outside any request) keeps no hints: each update reads first.
    await server.store.get("n");
    expect(await server.store.update("n", plusOne)).toBe(4);
    expect(counted()).toEqual({ reads: 2, swaps: 1 });
  });

  it("keeps hints of eight records: past them, the first seen go, and an update of one of those reads again", async () => {
    const { server, run, counted } = twoServers();
    run(async (store) => {
      for (let n = 0; n < 9; n++) await store.get(`k${n}`);
      return [await store.update("k8", plusOne), await store.update("k1", plusOne), await store.update("k0", plusOne)];
    });
    expect(await call(server)).toEqual([1, 1, 1]);
    expect(counted()).toEqual({ reads: 10, swaps: 3 });
  });
});
