import { describe, expect, it } from "vitest";
import type { LogEntry } from "../context/logger.js";
import { SESSION_BOUNDS } from "../engine/session-bounds.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { connectLines, replyTo } from "./connection.test-util.js";

// A resource's `watch`: started by this process's first subscriber of a URI (a subscribe, a listen naming it), stopped
// when the last goes (unsubscribe, the listen ending, the connection closing), once per URI whoever holds it.

const HANDSHAKE = { protocolVersion: "2025-06-18" } as const;

function watched(logged: LogEntry[] = []) {
  const events: string[] = [];
  const watch = (uri: string) => {
    events.push(`watch ${uri}`);
    return () => void events.push(`stop ${uri}`);
  };
  const server = createServer({ name: "watched", version: "1", logger: (entry) => logged.push(entry) });
  server.resource({ uri: "docs://a", watch, handler: () => "a" });
  server.resource({ uri: "docs://plain", handler: () => "plain" });
  server.resource({ uri: "docs://secret", guard: (ctx) => ctx.auth?.subject === "alice", watch, handler: () => "s" });
  server.resource({ uriTemplate: "notes://{id}", watch, handler: ({ id }) => `note ${id}` });
  const module = createServer({ name: "module", version: "1" });
  module.resource({ uri: "mod://x", watch, handler: () => "x" });
  server.mount("m", module);
  return { server, events };
}

const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

describe("a resource's watch, handshake era", () => {
  it("starts on the first subscriber of a URI, stops when the last unsubscribes or closes", async () => {
    const { server, events } = watched();
    const a = await createTestClient(server, HANDSHAKE);
    const b = await createTestClient(server, HANDSHAKE);
    await a.request("resources/subscribe", { uri: "docs://a" });
    await a.request("resources/subscribe", { uri: "docs://a" });
    await b.request("resources/subscribe", { uri: "docs://a" });
    expect(events).toEqual(["watch docs://a"]);
    await a.request("resources/unsubscribe", { uri: "docs://a" });
    await a.request("resources/unsubscribe", { uri: "docs://a" });
    expect(events).toEqual(["watch docs://a"]);
    b.close();
    expect(events).toEqual(["watch docs://a", "stop docs://a"]);
    a.close();
    expect(events).toHaveLength(2);
  });

  it("watches a template's URI and a mounted module's resource; a resource without watch needs none", async () => {
    const { server, events } = watched();
    const a = await createTestClient(server, HANDSHAKE);
    for (const uri of ["notes://1", "notes://2", "mod://x", "docs://plain", "docs://none"]) {
      await a.request("resources/subscribe", { uri });
    }
    expect(events).toEqual(["watch notes://1", "watch notes://2", "watch mod://x"]);
    a.close();
    expect(events.slice(3).sort()).toEqual(["stop mod://x", "stop notes://1", "stop notes://2"]);
  });

  it("a caller the resource's guard refuses starts no watch", async () => {
    const { server, events } = watched();
    const bob = await createTestClient(server, { ...HANDSHAKE, auth: { subject: "bob", scopes: [] } });
    await bob.request("resources/subscribe", { uri: "docs://secret" });
    expect(events).toEqual([]);
    const alice = await createTestClient(server, { ...HANDSHAKE, auth: { subject: "alice", scopes: [] } });
    await alice.request("resources/subscribe", { uri: "docs://secret" });
    expect(events).toEqual(["watch docs://secret"]);
  });

  it("a watch or stop that throws is logged; the subscription is answered all the same", async () => {
    const logged: LogEntry[] = [];
    const server = createServer({ name: "w", version: "1", logger: (entry) => logged.push(entry) });
    server.resource({
      uri: "docs://bad",
      watch: () => () => {
        throw new Error("stop broke");
      },
      handler: () => "b",
    });
    server.resource({
      uri: "docs://worse",
      watch: () => {
        throw new Error("watch broke");
      },
      handler: () => "w",
    });
    const a = await createTestClient(server, HANDSHAKE);
    expect(await a.request("resources/subscribe", { uri: "docs://bad" })).toEqual({});
    expect(await a.request("resources/subscribe", { uri: "docs://worse" })).toEqual({});
    await a.request("resources/unsubscribe", { uri: "docs://bad" });
    await a.request("resources/unsubscribe", { uri: "docs://worse" });
    expect(logged.map((entry) => [entry.message, (entry.error as Error).message])).toEqual([
      ["resource watch of docs://worse threw", "watch broke"],
      ["resource stop of docs://bad threw", "stop broke"],
    ]);
  });

  it("a session its engine keeps holds the watch while this connection of it lasts, and only once the engine took it", async () => {
    const { server, events } = watched();
    const session = {
      id: "s-1",
      principal: undefined,
      caller: undefined,
      version: "2025-06-18",
      clientInfo: { name: "c", version: "1" },
      clientCapabilities: {},
      initialized: true,
      logLevel: undefined,
    } as const;
    let refuse = true;
    const connection = connectLines(server, {
      session,
      hearsChanges: false,
      onSessionChange: () => {
        if (refuse) throw new Error("the engine is down");
      },
    });
    await replyTo(connection, request(1, "resources/subscribe", { uri: "docs://a" }));
    expect(events).toEqual([]);
    refuse = false;
    await replyTo(connection, request(2, "resources/subscribe", { uri: "docs://a" }));
    await replyTo(connection, request(3, "resources/subscribe", { uri: "notes://7" }));
    expect(events).toEqual(["watch docs://a", "watch notes://7"]);
    await replyTo(connection, request(4, "resources/unsubscribe", { uri: "docs://a" }));
    expect(events).toEqual(["watch docs://a", "watch notes://7", "stop docs://a"]);
    connection.close();
    expect(events).toEqual(["watch docs://a", "watch notes://7", "stop docs://a", "stop notes://7"]);
  });
});

describe("a resource's watch, 2026-07-28", () => {
  it("a listen naming URIs holds each once until it ends; a subscriber elsewhere keeps it going", async () => {
    const { server, events } = watched();
    const a = await createTestClient(server);
    const old = await createTestClient(server, HANDSHAKE);
    await old.request("resources/subscribe", { uri: "docs://a" });
    const stream = await a.listen({ resourceSubscriptions: ["docs://a", "notes://1", "notes://1", "docs://plain"] });
    expect(events).toEqual(["watch docs://a", "watch notes://1"]);
    await stream.close();
    await a.request("tools/list").catch(() => undefined);
    expect(events).toEqual(["watch docs://a", "watch notes://1", "stop notes://1"]);
    old.close();
    expect(events.at(-1)).toBe("stop docs://a");
  });

  it("a listen holds at most as many URIs as a session may subscribe to; the client closing ends its holds", async () => {
    const { server, events } = watched();
    const a = await createTestClient(server);
    const uris = Array.from({ length: SESSION_BOUNDS.subscriptions + 50 }, (_, i) => `notes://${i}`);
    await a.listen({ resourceSubscriptions: uris });
    expect(events).toHaveLength(SESSION_BOUNDS.subscriptions);
    a.close();
    expect(events.filter((e) => e.startsWith("stop"))).toHaveLength(SESSION_BOUNDS.subscriptions);
  });
});
