import { describe, expect, it } from "vitest";
import type { AuthInfo, RequestContext } from "../context/context.js";
import type { Engine, ServerSignal } from "../engine/engine.js";
import { createMemoryEngine } from "../engine/memory.js";
import type { Server } from "../server/servable.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";

// What an app tool's handle does to its app is told as a resources list change, to whom it may concern, on every
// route (handshake sessions, 2026-07-28 listen streams, other processes); and the list is per-caller only when a
// guard can make it so.

const PAGE = "<!doctype html><p>app</p>";
const RESOURCES = "notifications/resources/list_changed";
const TOOLS = "notifications/tools/list_changed";
const admin: AuthInfo = { subject: "ada", scopes: ["admin"] };
const reader: AuthInfo = { subject: "rob", scopes: [] };
const isAdmin = (ctx: RequestContext) => ctx.auth?.scopes.includes("admin") === true;
const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function apps(engine?: Engine) {
  const s = createServer({ name: "apps", version: "1", engine });
  const open = s.tool({ name: "open", description: "Open", ui: { html: PAGE }, handler: () => 1 });
  const secret = s.tool({
    name: "secret",
    description: "Secret",
    guard: isAdmin,
    ui: { html: PAGE },
    handler: () => 1,
  });
  return { s, open, secret };
}

// Each caller's notifications since the last look: a handshake session's and a listen stream's, per caller.
async function listeners(server: Server) {
  const callers: [string, () => string[]][] = [];
  for (const [who, auth] of [
    ["admin", admin],
    ["reader", reader],
  ] as const) {
    const session = await createTestClient(server, { protocolVersion: "2025-11-25", auth });
    callers.push([`${who} session`, () => session.notifications.map((n) => n.method)]);
    const listen = await (await createTestClient(server, { auth })).listen({
      toolsListChanged: true,
      resourcesListChanged: true,
    });
    callers.push([`${who} listen`, () => listen.notifications.map((n) => n.method)]);
  }
  const seen = new Map<string, number>();
  return async () => {
    await tick();
    const told: Record<string, string[]> = {};
    for (const [name, methods] of callers) {
      const all = methods();
      told[name] = all.slice(seen.get(name) ?? 0);
      seen.set(name, all.length);
    }
    return told;
  };
}

const to = (adminHears: string[], readerHears: string[]) => ({
  "admin session": adminHears,
  "admin listen": adminHears,
  "reader session": readerHears,
  "reader listen": readerHears,
});

describe.each([
  ["served alone", (s: Server) => s],
  ["in a mounted module", (s: Server) => createServer({ name: "app", version: "1" }).mount("mod", s)],
])("an app tool's handle tells of its app (%s)", (_layout, wrap) => {
  it("disable, enable and remove tell resources/list_changed to whom the tool's guard allows", async () => {
    const { s, open, secret } = apps();
    const server = wrap(s);
    const told = await listeners(server);
    open.disable();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
    open.enable();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
    secret.disable();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], []));
    secret.enable();
    secret.remove();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], []));
    open.remove();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
    expect(server.capabilities().extensions).toBeUndefined();
  });

  it("a new guard on an app tool moves its app, and both sides hear of it", async () => {
    const { s, open } = apps();
    const server = wrap(s);
    const asReader = await createTestClient(server, { auth: reader });
    const told = await listeners(server);
    open.update({ guard: isAdmin });
    expect((await asReader.listResources()).map((r) => r.uri)).toEqual([]);
    await expect(asReader.readResource("ui://open/app.html")).rejects.toThrow("Resource not found");
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
  });
});

describe("an app tool's handle op on another process", () => {
  // Engines of one server sharing a tiny bus, as processes sharing Redis would.
  function bus() {
    const hearers = new Set<{ engine: Engine; hear: Set<(signal: ServerSignal) => void> }>();
    const ops: Extract<ServerSignal, { type: "handle" }>[] = [];
    return (): Engine => {
      const hear = new Set<(signal: ServerSignal) => void>();
      const memory = createMemoryEngine();
      const own: Partial<Engine> = {
        shared: true,
        start: () => {},
        broadcast(signal) {
          if (signal.type === "handle") ops.push(signal);
          for (const other of hearers) {
            if (other.engine !== engine) for (const one of other.hear) queueMicrotask(() => one(signal));
          }
        },
        onBroadcast(listener) {
          hear.add(listener);
          return () => {
            hear.delete(listener);
          };
        },
        handleOps: () => [...ops],
        onResume: () => () => {},
      };
      // The memory engine for everything else (sessions, streams), its methods bound to it.
      const engine: Engine = new Proxy(memory, {
        get: (target, key) => {
          if (key in own) return own[key as keyof Engine];
          const value = Reflect.get(target, key);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      hearers.add({ engine, hear });
      return engine;
    };
  }

  it("is told on the other's listen streams to whom the tool's guard allows", async () => {
    const engine = bus();
    const a = apps(engine());
    const b = apps(engine());
    a.s.startEngine();
    b.s.startEngine();
    const told = await listeners(b.s);
    a.secret.disable();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], []));
    a.open.disable();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
    a.secret.enable();
    a.secret.remove();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], []));
    expect(b.s.registered("resource", "ui://secret/app.html")).toBeUndefined();
    a.open.remove();
    expect(await told()).toEqual(to([TOOLS, RESOURCES], [TOOLS, RESOURCES]));
  });
});

describe("resources/list's cache hint with apps (2026-07-28)", () => {
  it("stays shared while no tool linking an app has a guard, and turns private once one has", async () => {
    const s = createServer({ name: "apps", version: "1" });
    const open = s.tool({ name: "open", description: "Open", ui: { html: PAGE }, handler: () => 1 });
    s.tool({ name: "also", description: "Also", ui: { uri: "ui://open/app.html" }, handler: () => 1 });
    const client = await createTestClient(s);
    expect(await client.request("resources/list")).toMatchObject({ cacheScope: "public" });
    open.disable();
    expect(await client.request("resources/list")).toMatchObject({ cacheScope: "public" });
    s.tool({ name: "secret", description: "Secret", guard: isAdmin, ui: { html: PAGE }, handler: () => 1 });
    expect(await client.request("resources/list")).toMatchObject({ cacheScope: "private" });
  });

  it("an unguarded tool enabled beside a guarded one shows the app to all; disabled, the guard decides", async () => {
    const s = createServer({ name: "apps", version: "1" });
    const open = s.tool({ name: "open", description: "Open", ui: { html: PAGE }, handler: () => 1 });
    s.tool({ name: "mine", description: "Mine", guard: isAdmin, ui: { uri: "ui://open/app.html" }, handler: () => 1 });
    const asReader = await createTestClient(s, { auth: reader });
    expect(await asReader.request("resources/list")).toMatchObject({ cacheScope: "public" });
    open.disable();
    expect(await asReader.request("resources/list")).toMatchObject({ resources: [], cacheScope: "private" });
  });
});
