import { describe, expect, it } from "vitest";
import type { AuthInfo } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { type Engine, EngineUnavailable, type ServerSignal } from "../engine/engine.js";
import { createMemoryEngine } from "../engine/memory.js";
import type { Guard } from "../registry/guards.js";
import { createTestClient } from "../testing/client.js";
import type { Announcement } from "./engine-link.js";
import type { Server } from "./servable.js";
import { createServer } from "./server.js";
import { onAnnounce } from "./server-access.js";

// Processes of one server whose shared engine goes away and comes back: what one did meanwhile reaches the others,
// what it missed is caught up, and every list agrees again.

type HandleSignal = Extract<ServerSignal, { type: "handle" }>;

/** Engines of one server on a tiny bus that keeps handle ops as Redis does; `cut` one off, `back` resumes it. */
function bus() {
  const ops: HandleSignal[] = [];
  const engines = new Map<Engine, { cut: boolean; heard: Set<(s: ServerSignal) => void>; resume: Set<() => void> }>();
  const away = () => Promise.reject(new EngineUnavailable("cut off"));
  const engine = (node: string): Engine => {
    const state = { cut: false, heard: new Set<(s: ServerSignal) => void>(), resume: new Set<() => void>() };
    const made: Engine = {
      ...createMemoryEngine(),
      node,
      shared: true,
      start: () => {},
      // A started server watches for orphaned tasks (a spread keeps no class methods).
      onOrphanTask: () => () => {},
      broadcast(signal) {
        if (state.cut) return away();
        if (signal.type === "handle") {
          const at = ops.findIndex((op) => op.kind === signal.kind && op.name === signal.name);
          if (at >= 0) ops.splice(at, 1);
          ops.push(signal);
        }
        for (const [other, { cut, heard }] of engines) {
          if (other === made || cut) continue;
          for (const listener of heard) queueMicrotask(() => listener(signal));
        }
        return Promise.resolve();
      },
      onBroadcast(listener) {
        state.heard.add(listener);
        return () => void state.heard.delete(listener);
      },
      handleOps: () => (state.cut ? away() : Promise.resolve([...ops])),
      onResume(listener) {
        state.resume.add(listener);
        return () => void state.resume.delete(listener);
      },
    };
    engines.set(made, state);
    return made;
  };
  const stateOf = (server: Server) => engines.get(server.engine) as { cut: boolean; resume: Set<() => void> };
  return {
    engine,
    cut(server: Server) {
      stateOf(server).cut = true;
    },
    /** Its store is back; `resume: false` as if the resume was missed. */
    back(server: Server, resume = true) {
      const state = stateOf(server);
      state.cut = false;
      if (resume) for (const listener of state.resume) listener();
    },
  };
}

const ADMIN: Guard = (ctx) => ctx.auth?.scopes.includes("admin") ?? false;
const BOB: AuthInfo = { subject: "bob", scopes: [] };
const ROOT: AuthInfo = { subject: "root", scopes: ["admin"] };

/** One server's code, as every process runs it; what it logs is kept (a failed broadcast is an error). */
function app(engine: Engine, logged: LogEntry[] = []): Server {
  const server = createServer({ name: "cluster", version: "1", engine, logger: (entry) => logged.push(entry) });
  server.tool({ name: "alpha", description: "Alpha", handler: () => "a" });
  server.tool({ name: "beta", description: "Beta", handler: () => "b" });
  server.resource({ uri: "docs://a", handler: () => "a" });
  return server;
}

const names = async (server: Server, auth?: AuthInfo) =>
  (await (await createTestClient(server, auth && { auth })).listTools()).map((tool) => tool.name);

async function cluster() {
  const shared = bus();
  const logged: LogEntry[] = [];
  const a = app(shared.engine("a"), logged);
  const b = app(shared.engine("b"));
  await a.startEngine();
  await b.startEngine();
  return { ...shared, a, b, logged };
}

/** Until `check` holds, a microtask turn at a time (what a resume does settles within a few). */
async function settled(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let turn = 0; turn < 1000; turn++) {
    if (await check()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`${what} never happened`);
}

describe("a shared engine that went away and came back", () => {
  it("a tool disabled on A while it was cut off reaches B once A's engine is back: B's stream hears, lists agree", async () => {
    const { a, b, cut, back, logged } = await cluster();
    const stream = await (await createTestClient(b)).listen({ toolsListChanged: true });
    cut(a);
    a.registered("tool", "alpha")?.disable();
    await settled(() => logged.length >= 2, "the failed broadcasts logged");
    expect(logged[0]?.message).toMatch(/could not be sent \(kept to be sent again/);
    expect(await names(b)).toEqual(["alpha", "beta"]);
    back(a);
    expect((await stream.next()).method).toBe("notifications/tools/list_changed");
    expect(await names(b)).toEqual(["beta"]);
    expect(await names(a)).toEqual(["beta"]);
  });

  it("A, cut off while B disabled a tool, catches up once back; its streams are told, and its sessions of what changed here", async () => {
    const { a, b, cut, back } = await cluster();
    const stream = await (await createTestClient(a)).listen({ toolsListChanged: true });
    const announced: Announcement[] = [];
    onAnnounce(a, (announcement) => announced.push(announcement));
    cut(a);
    b.registered("tool", "beta")?.disable();
    await settled(async () => (await names(b)).length === 1, "B's own op");
    expect(await names(a)).toEqual(["alpha", "beta"]);
    back(a);
    expect((await stream.next()).method).toBe("notifications/tools/list_changed");
    expect(await names(a)).toEqual(["alpha"]);
    // Sessions kept in the engine heard of it from B: A tells them only of what changed here, once.
    await settled(() => announced.length > 0, "A's announcement of what it applied");
    expect(announced).toEqual([{ type: "listChanged", kind: "tools", names: ["beta"], audience: undefined }]);
  });

  it("the latest op wins everywhere: A's op made while cut off is sent before A reads the kept ops back", async () => {
    const { a, b, cut, back } = await cluster();
    b.registered("tool", "alpha")?.disable();
    await settled(async () => (await names(a)).length === 1, "B's disable applied on A");
    cut(a);
    a.registered("tool", "alpha")?.enable();
    back(a);
    await settled(async () => (await names(b)).length === 2, "A's enable applied on B");
    await settled(async () => (await names(a)).length === 2, "A's state after catching up");
    expect(await names(a)).toEqual(["alpha", "beta"]);
    expect(await names(b)).toEqual(["alpha", "beta"]);
  });

  it("a resume missed: the next broadcast that gets through sends what was kept", async () => {
    const { a, b, cut, back } = await cluster();
    cut(a);
    a.registered("tool", "alpha")?.disable();
    back(a, false);
    a.resourceUpdated("docs://a");
    await settled(async () => (await names(b)).length === 1, "A's kept op applied on B");
    expect(await names(b)).toEqual(["beta"]);
  });

  it("the spurious change told on a resume reaches no caller that sees no item of its kind", async () => {
    const shared = bus();
    const guarded = (engine: Engine) => {
      const server = createServer({ name: "locked", version: "1", engine });
      server.tool({ name: "wipe", description: "Admins only", guard: ADMIN, handler: () => "w" });
      return server;
    };
    const a = guarded(shared.engine("a"));
    await a.startEngine();
    const admin = await (await createTestClient(a, { auth: ROOT })).listen({ toolsListChanged: true });
    const bob = await (await createTestClient(a, { auth: BOB })).listen({ toolsListChanged: true });
    shared.cut(a);
    shared.back(a);
    expect((await admin.next()).method).toBe("notifications/tools/list_changed");
    // Told in the same turn as the admin's: nothing for Bob.
    expect(bob.notifications).toEqual([]);
    a.tool({ name: "open", description: "Anyone", handler: () => "o" });
    expect((await bob.next()).method).toBe("notifications/tools/list_changed");
  });
});
