import { createServer } from "@toolsmith/core";
import { createMemoryEngine, type Engine, EngineUnavailable } from "@toolsmith/core/engine";
import { afterEach, describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { type HttpServer, listen } from "../doors/node-server.js";
import { call2026, get, H, initialize, openSession, post } from "../exchange/requests.test-util.js";

// The engine is started before a handshake-era request is served: `listen` awaits it, a handler waits for it.

const open: HttpServer[] = [];
afterEach(async () => {
  for (const server of open.splice(0)) await server.close();
});

// A memory engine whose start answers later (as a shared one's does), failing while `failing` says so.
function slowStarting(state: { started: boolean; failing: boolean; onStart?: () => void }): Engine {
  const engine = createMemoryEngine();
  return new Proxy(engine, {
    get(target, property) {
      if (property === "start") {
        return async (server: { name: string }) => {
          await new Promise((resolve) => setImmediate(resolve));
          if (state.failing) throw new EngineUnavailable("not yet", { retryAfterSeconds: 3 });
          target.start(server);
          state.started = true;
          state.onStart?.();
        };
      }
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

describe("the engine's start", () => {
  it("listen resolves once the engine has started", async () => {
    const state = { started: false, failing: false };
    const server = createServer({ name: "start", version: "1", engine: slowStarting(state) });
    open.push(await listen(server, { port: 0, log: null }));
    expect(state.started).toBe(true);
  });

  it("a handler's first requests wait for it; a failed start is 503 for a session and tried again later", async () => {
    const state = { started: false, failing: true };
    const server = createServer({ name: "start", version: "1", engine: slowStarting(state) });
    server.tool({ name: "one", description: "One", handler: () => "1" });
    const handle = createHttpHandler(server);
    const refused = await handle(post(initialize(4), H));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("3");
    expect(await refused.json()).toMatchObject({ id: 4, error: { code: -32000 } });
    // A 2026-07-28 request needs nothing of the engine.
    expect((await handle(call2026(5, "one", {}))).status).toBe(200);
    state.failing = false;
    const opened = await handle(post(initialize(6), H));
    expect(opened.status).toBe(200);
    expect(state.started).toBe(true);
  });
});

describe("an engine that cannot start yet", () => {
  it("listen serves anyway (a session is 503 meanwhile), and the engine starts by itself once it can", async () => {
    const state: { started: boolean; failing: boolean; onStart?: () => void } = { started: false, failing: true };
    const logged: string[] = [];
    const server = createServer({
      name: "start",
      version: "1",
      engine: slowStarting(state),
      logger: (entry) => logged.push(entry.message),
    });
    server.tool({ name: "one", description: "One", handler: () => "1" });
    const listening = await listen(server, { port: 0, log: null });
    open.push(listening);
    expect(logged.join("\n")).toContain("the engine could not start");
    const refused = await fetch(listening.url, {
      method: "POST",
      headers: { ...H, host: new URL(listening.url).host },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      }),
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("3");
    // No request comes: the process tries again by itself (within seconds; the deadline is the test's own).
    const started = new Promise<void>((resolve) => {
      state.onStart = resolve;
    });
    state.failing = false;
    await started;
    expect(state.started).toBe(true);
  });
});

describe("an engine whose start is refused", () => {
  it("is heard by a server that has only onError (no logger), with the error itself", async () => {
    const refusal = new Error("this Redis may evict its keys");
    const engine = new Proxy(createMemoryEngine(), {
      get(target, property) {
        if (property === "start") return () => Promise.reject(refusal);
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const heard: unknown[] = [];
    const server = createServer({ name: "refused", version: "1", engine, onError: (error) => heard.push(error) });
    const handle = createHttpHandler(server);
    // A session needs the engine: answered as an engine away, once the refusal has been told.
    const refused = await handle(post(initialize(), H));
    expect(refused.status).toBe(503);
    expect(heard).toEqual([refusal]);
    handle.close();
  });
});

describe("the engine failing a session change", () => {
  it("logging/setLevel is 503 with the Retry-After core's -32000 asks for", async () => {
    const engine = createMemoryEngine();
    const failing = new Proxy(engine, {
      get(target, property) {
        if (property === "changeSession") {
          return (id: string, change: { kind: string }) => {
            if (change.kind === "logLevel") throw new EngineUnavailable("down", { retryAfterSeconds: 4 });
            return target.changeSession(id, change as never);
          };
        }
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const handle = createHttpHandler(createServer({ name: "change", version: "1", engine: failing }));
    const session = await openSession(handle);
    const refused = await handle(
      post(
        { jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "debug" } },
        { ...H, "mcp-session-id": session },
      ),
    );
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("4");
    expect(await refused.json()).toMatchObject({ id: 3, error: { code: -32000, data: { retryAfterSeconds: 4 } } });
    handle.close();
  });
});

describe("two HTTP handlers of one server (one engine)", () => {
  it("a list change reaches a session's GET stream once, whichever handler serves it", async () => {
    const server = createServer({ name: "twice", version: "1" });
    server.tool({ name: "one", description: "One", handler: () => "1" });
    server.prompt({ name: "hello", description: "Hello", handler: () => "hello" });
    const first = createHttpHandler(server);
    const second = createHttpHandler(server);
    const session = await openSession(first);
    const stream = await second(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    const readUntil = async (part: string) => {
      while (!text.includes(part)) {
        const { value, done } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
    };
    server.registered("tool", "one")?.disable();
    await readUntil("tools/list_changed");
    // Then another change: a second copy of the first would have come before it.
    server.registered("prompt", "hello")?.disable();
    await readUntil("prompts/list_changed");
    await reader.cancel();
    expect(text.match(/tools\/list_changed/g)).toHaveLength(1);
    first.close();
    second.close();
  });
});
