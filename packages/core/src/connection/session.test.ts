import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { AuthInfo } from "../context/context.js";
import type { LogEntry } from "../context/logger.js";
import { EngineUnavailable, type SessionChange, type SessionRecord } from "../engine/engine.js";
import { httpStatusOf } from "../protocol/http-status.js";
import { createServer } from "../server/server.js";
import { ErrorCode } from "../wire/json-rpc.js";
import { connectLines, receiveLine, replyTo, sentOn } from "./connection.test-util.js";

// What a transport serving a session kept by the engine needs of a connection: restoring it, hearing its changes
// before they are answered, ids of its own requests unique across processes, and staying deaf to changes.

const CLIENT = { name: "restored-client", version: "9.9.9" };

function record(changes: Partial<SessionRecord> = {}): SessionRecord {
  return {
    id: "s-1",
    principal: undefined,
    caller: undefined,
    version: "2025-06-18",
    clientInfo: CLIENT,
    clientCapabilities: { elicitation: {} },
    initialized: true,
    logLevel: undefined,
    ...changes,
  };
}

function server(logged: LogEntry[] = []) {
  const s = createServer({ name: "kept", version: "1", logger: (entry) => logged.push(entry) });
  s.tool({
    name: "who",
    description: "Who is calling",
    handler: (_args, ctx) => ({ clientInfo: ctx.clientInfo, capabilities: ctx.clientCapabilities }),
  });
  s.tool({
    name: "chatty",
    description: "Logs at info",
    handler: (_args, ctx) => {
      ctx.log.info("hello");
      return "said";
    },
  });
  s.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "Sure?", schema: { ok: z.boolean() } })).action,
  });
  s.tool({
    name: "store",
    description: "Reaches a store that is down",
    handler: () => {
      throw new EngineUnavailable("redis down", { retryAfterSeconds: 3 });
    },
  });
  s.resource({ uri: "docs://a", handler: () => "a" });
  s.resource({
    uri: "docs://secret",
    guard: (ctx) => ctx.auth?.subject === "alice",
    handler: () => "s",
  });
  return s;
}

const call = (id: number | string, name: string) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: {} } });
const request = (id: number, method: string, params: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });
const INITIALIZED = JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" });
const parse = (line: string | undefined) => JSON.parse(line ?? "null");
const lines = (connection: ReturnType<typeof connectLines>, method: string) =>
  sentOn(connection).filter(({ line }) => parse(line).method === method);

function deferred() {
  let resolve: () => void = () => {};
  let reject: (error: unknown) => void = () => {};
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

describe("connect({ session }): a session kept elsewhere carries on", () => {
  it("serves without initialize, with the client info and capabilities stored, and refuses a second initialize", async () => {
    const connection = connectLines(server(), { session: record() });
    expect(connection.phase).toBe("operation");
    expect(connection.negotiatedVersion).toBe("2025-06-18");
    const reply = parse(await replyTo(connection, call(1, "who")));
    expect(reply.result.structuredContent).toEqual({ clientInfo: CLIENT, capabilities: { elicitation: {} } });
    const again = parse(
      await replyTo(
        connection,
        request(2, "initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: CLIENT }),
      ),
    );
    expect(again.error.code).toBe(ErrorCode.InvalidRequest);
  });

  it("keeps the stored log level", async () => {
    const quiet = connectLines(server(), { session: record({ logLevel: "error" }) });
    await replyTo(quiet, call(1, "chatty"));
    expect(lines(quiet, "notifications/message")).toEqual([]);
    const loud = connectLines(server(), { session: record({ logLevel: "debug" }) });
    await replyTo(loud, call(1, "chatty"));
    expect(lines(loud, "notifications/message")).toHaveLength(1);
  });

  it("a session not yet initialized waits for notifications/initialized", async () => {
    const connection = connectLines(server(), { session: record({ initialized: false }) });
    expect(connection.phase).toBe("initialization");
    await connection.receive(INITIALIZED);
    expect(connection.phase).toBe("operation");
  });

  it("subscribes once restored (its engine keeps what it subscribed to elsewhere): guards decide, unsubscribe ends it", async () => {
    const s = server();
    const alice: AuthInfo = { subject: "alice", scopes: [] };
    const allowed = connectLines(s, { session: record(), auth: alice });
    const refused = connectLines(s, { session: record(), auth: { subject: "bob", scopes: [] } });
    for (const connection of [allowed, refused]) {
      for (const [i, uri] of ["docs://a", "docs://secret"].entries()) {
        await replyTo(connection, request(100 + i, "resources/subscribe", { uri }));
      }
    }
    s.resourceUpdated("docs://secret");
    expect(lines(allowed, "notifications/resources/updated")).toHaveLength(1);
    expect(lines(refused, "notifications/resources/updated")).toEqual([]);
    expect(parse(await replyTo(allowed, request(1, "resources/unsubscribe", { uri: "docs://secret" }))).result).toEqual(
      {},
    );
    s.resourceUpdated("docs://secret");
    s.resourceUpdated("docs://a");
    const updates = lines(allowed, "notifications/resources/updated").map(({ line }) => parse(line).params.uri);
    expect(updates).toEqual(["docs://secret", "docs://a"]);
  });

  it("a stateless revision is no session to restore", () => {
    expect(() => server().connect({ send: () => {}, session: record({ version: "2026-07-28" }) })).toThrow(
      /not a handshake-era revision/,
    );
  });
});

describe("connection.sessionKept(record): the session as its engine holds it now", () => {
  it("takes in what another process kept (initialized, the log level), telling nothing back; never goes back", async () => {
    const s = server();
    const heard: SessionChange[] = [];
    const connection = connectLines(s, {
      session: record({ initialized: false }),
      onSessionChange: (change) => void heard.push(change),
    });
    connection.sessionKept(record({ initialized: true, logLevel: "debug" }));
    expect(connection.phase).toBe("operation");
    expect(connection.logLevel).toBe("debug");
    await replyTo(connection, call(1, "chatty"));
    expect(lines(connection, "notifications/message")).toHaveLength(1);
    // In operation, it hears of list changes as one initialized through it does.
    s.tool({ name: "late", description: "Added later", handler: () => "late" });
    await Promise.resolve();
    expect(lines(connection, "notifications/tools/list_changed")).toHaveLength(1);
    // An older record does not take it back into the handshake; its level is the record's.
    connection.sessionKept(record({ initialized: false, logLevel: "error" }));
    expect(connection.phase).toBe("operation");
    expect(connection.logLevel).toBe("error");
    expect(heard).toEqual([]);
  });
});

describe("connect({ onSessionChange }): told before the reply", () => {
  it("hears each change, and the reply waits for it", async () => {
    const heard: SessionChange[] = [];
    let gate = deferred();
    const connection = connectLines(server(), {
      session: record({ initialized: false }),
      onSessionChange: (change) => {
        heard.push(change);
        return gate.promise;
      },
    });
    const initialized = connection.receive(INITIALIZED);
    expect(connection.phase).toBe("initialization");
    gate.resolve();
    await initialized;
    expect(connection.phase).toBe("operation");
    for (const [id, method, params] of [
      [1, "logging/setLevel", { level: "debug" }],
      [2, "resources/subscribe", { uri: "docs://a" }],
      [3, "resources/unsubscribe", { uri: "docs://a" }],
    ] as const) {
      gate = deferred();
      const { replies, reply } = receiveLine(connection, request(id, method, params));
      await Promise.resolve();
      expect(replies).toEqual([]);
      gate.resolve();
      expect(parse(await reply).result).toEqual({});
    }
    expect(heard).toEqual([
      { kind: "initialized" },
      { kind: "logLevel", level: "debug" },
      { kind: "subscribe", uri: "docs://a" },
      { kind: "unsubscribe", uri: "docs://a" },
    ]);
    expect(connection.logLevel).toBe("debug");
  });

  it("an EngineUnavailable is -32000 Service unavailable with retryAfterSeconds, 503 over HTTP, and nothing changes", async () => {
    const connection = connectLines(server(), {
      session: record({ logLevel: "error" }),
      onSessionChange: () => Promise.reject(new EngineUnavailable("redis down", { retryAfterSeconds: 4 })),
    });
    const reply = parse(await replyTo(connection, request(1, "logging/setLevel", { level: "debug" })));
    expect(reply.error).toEqual({
      code: -32000,
      message: expect.stringMatching(/^Service unavailable/),
      data: { retryAfterSeconds: 4 },
    });
    expect(JSON.stringify(reply)).not.toContain("redis");
    const delivery = sentOn(connection).at(-1)?.delivery;
    expect(delivery).toMatchObject({ kind: "response", error: -32000, retryAfterSeconds: 4 });
    expect(httpStatusOf(delivery?.error, "handshake", delivery?.retryAfterSeconds)).toBe(503);
    expect(httpStatusOf(delivery?.error, "stateless", delivery?.retryAfterSeconds)).toBe(503);
    expect(connection.logLevel).toBe("error");
  });

  it("other -32000 answers keep their status", () => {
    expect(httpStatusOf(ErrorCode.ServerError, "handshake")).toBe(200);
    expect(httpStatusOf(ErrorCode.ServerError, "stateless")).toBe(200);
  });

  it("an EngineUnavailable thrown by a tool is the request's -32000, not the tool's isError", async () => {
    const connection = connectLines(server(), { session: record() });
    const reply = parse(await replyTo(connection, call(1, "store")));
    expect(reply.error).toMatchObject({ code: -32000, data: { retryAfterSeconds: 3 } });
  });

  it("any other rejection fails the request with -32603, and the subscription is not kept", async () => {
    const internal: unknown[] = [];
    const s = server();
    const connection = connectLines(s, {
      session: record(),
      onSessionChange: () => Promise.reject(new Error("boom")),
      onInternalError: (error) => internal.push(error),
    });
    const reply = parse(await replyTo(connection, request(1, "resources/subscribe", { uri: "docs://a" })));
    expect(reply.error).toEqual({ code: ErrorCode.InternalError, message: "Internal error" });
    expect(internal).toHaveLength(1);
    s.resourceUpdated("docs://a");
    expect(lines(connection, "notifications/resources/updated")).toEqual([]);
  });

  it("notifications/initialized that cannot be kept rejects receive, is logged, and may be sent again", async () => {
    const logged: LogEntry[] = [];
    let fail = true;
    const connection = connectLines(server(logged), {
      session: record({ initialized: false }),
      onSessionChange: () => (fail ? Promise.reject(new EngineUnavailable("down")) : undefined),
    });
    await expect(connection.receive(INITIALIZED)).rejects.toThrow("down");
    expect(connection.phase).toBe("initialization");
    expect(logged.some((entry) => entry.level === "error" && entry.method === "notifications/initialized")).toBe(true);
    fail = false;
    connection.receive(INITIALIZED);
    expect(connection.phase).toBe("operation");
  });
});

describe("connect({ outboundIds }): the server's own requests by string ids", () => {
  it('asks with "<prefix>-<n>", is answered by it, and drops an answer with a string id not its own', async () => {
    const connection = connectLines(server(), { session: record(), outboundIds: "node-a-c1" });
    const { reply } = receiveLine(connection, call(1, "ask"));
    await Promise.resolve();
    const asked = sentOn(connection).find(({ delivery }) => delivery.kind === "request");
    expect(parse(asked?.line).id).toBe("node-a-c1-0");
    const answer = (id: unknown) =>
      JSON.stringify({ jsonrpc: "2.0", id, result: { action: "accept", content: { ok: true } } });
    // Another process's question, or a number: none of this connection's business, and no reply.
    expect(await replyTo(connection, answer("node-b-c1-0"))).toBeUndefined();
    expect(await replyTo(connection, answer(0))).toBeUndefined();
    await replyTo(connection, answer("node-a-c1-0"));
    expect(parse(await reply).result.content[0].text).toBe("accept");
  });

  it("without it, ids are numbers from 0", async () => {
    const connection = connectLines(server(), { session: record() });
    const { reply } = receiveLine(connection, call(1, "ask"));
    await Promise.resolve();
    const asked = sentOn(connection).find(({ delivery }) => delivery.kind === "request");
    expect(parse(asked?.line).id).toBe(0);
    await replyTo(connection, JSON.stringify({ jsonrpc: "2.0", id: 0, result: { action: "decline" } }));
    expect(parse(await reply).result.content[0].text).toBe("decline");
  });
});

describe("connect({ hearsChanges: false })", () => {
  it("is told of no list change and no resource update, yet subscribes and unsubscribes through its engine", async () => {
    const s = server();
    const heard: SessionChange[] = [];
    const deaf = connectLines(s, {
      session: record(),
      hearsChanges: false,
      onSessionChange: (c) => void heard.push(c),
    });
    const hearing = connectLines(s, { session: record() });
    for (const connection of [deaf, hearing]) {
      expect(parse(await replyTo(connection, request(0, "resources/subscribe", { uri: "docs://a" }))).result).toEqual(
        {},
      );
    }
    sentOn(deaf).length = 0;
    s.tool({ name: "late", description: "Added later", handler: () => "late" });
    s.resourceUpdated("docs://a");
    await Promise.resolve();
    expect(lines(hearing, "notifications/tools/list_changed")).toHaveLength(1);
    expect(lines(hearing, "notifications/resources/updated")).toHaveLength(1);
    expect(sentOn(deaf)).toEqual([]);
    expect(parse(await replyTo(deaf, request(1, "resources/unsubscribe", { uri: "docs://a" }))).result).toEqual({});
    expect(heard).toEqual([
      { kind: "subscribe", uri: "docs://a" },
      { kind: "unsubscribe", uri: "docs://a" },
    ]);
  });
});
