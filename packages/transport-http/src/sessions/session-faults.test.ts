import { createServer } from "@toolsmith/core";
import { createMemoryEngine, type Engine, EngineUnavailable } from "@toolsmith/core/engine";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { H, initialize, post } from "../exchange/requests.test-util.js";

// The engine failing where a session's requests meet it: each failure is an answer (503 + Retry-After for an
// outage), never a dropped promise or a rejection out of the handler.

// `engine` with `member` failing as `fail` says while `state.failing`; every other member as it is.
function failing(engine: Engine, member: keyof Engine, fail: () => unknown, state: { failing: boolean }): Engine {
  return new Proxy(engine, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      if (property !== member) return value.bind(target);
      return (...args: unknown[]) => (state.failing ? fail() : value.apply(target, args));
    },
  });
}

const INITIALIZED = { jsonrpc: "2.0", method: "notifications/initialized" };

describe("the engine failing a session's requests", () => {
  it("a notifications/initialized the engine fails to keep (after the load) is 503 with Retry-After, not 202", async () => {
    const state = { failing: false };
    const down = () => Promise.reject(new EngineUnavailable("down", { retryAfterSeconds: 3 }));
    const engine = failing(createMemoryEngine(), "changeSession", down, state);
    const handle = createHttpHandler(createServer({ name: "kept", version: "1", engine }));
    const opened = await handle(post(initialize(), H));
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    state.failing = true;
    const refused = await handle(post(INITIALIZED, headers));
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("3");
    expect(await refused.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32000,
        message: "Service unavailable: the server's state store cannot be reached; try again in 3 s",
        data: { retryAfterSeconds: 3 },
      },
    });
    state.failing = false;
    expect((await handle(post(INITIALIZED, headers))).status).toBe(202);
    handle.close();
  });

  it("an engine whose start throws (synchronously) on initialize is 503 with Retry-After, as one that rejects", async () => {
    const state = { failing: true };
    const refuse = () => {
      throw new Error("this Redis may evict its keys");
    };
    for (const fail of [refuse, () => Promise.reject(new Error("this Redis may evict its keys"))]) {
      const heard: unknown[] = [];
      const engine = failing(createMemoryEngine(), "start", fail, state);
      const server = createServer({ name: "start", version: "1", engine, onError: (error) => heard.push(error) });
      const handle = createHttpHandler(server);
      const refused = await handle(post(initialize(), H));
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("2");
      expect(await refused.json()).toMatchObject({ id: 1, error: { code: -32000, data: { retryAfterSeconds: 2 } } });
      // Said once, however many requests meet it.
      expect(heard.map(String)).toEqual(["Error: this Redis may evict its keys"]);
      handle.close();
    }
  });
});
