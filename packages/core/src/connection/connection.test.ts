import { describe, expect, it } from "vitest";
import { z } from "zod";
import { type Connection, createServer, type ErrorReport, MetaKey, type Server } from "../index.js";
import { connectLines, replyTo } from "./connection.test-util.js";

const HANDSHAKE = ["2025-03-26", "2025-06-18", "2025-11-25"] as const;
const CLIENT = { name: "raw-client", version: "0.0.1" };
const META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT,
};

type Json = Record<string, unknown>;

// What the fixture advertises: logging always, and list changes (and subscriptions) for every kind it registers.
const FIXTURE_CAPABILITIES = {
  logging: {},
  tools: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: true },
};

interface Gate {
  /** Resolves once the slow tool's handler is running. */
  started: Promise<void>;
  /** Lets the slow tool finish with this text. */
  release(value: string): void;
  signals: AbortSignal[];
}

function fixture(options: { onError?: (error: unknown, where: ErrorReport) => void } = {}) {
  let release: (value: string) => void = () => {};
  let markStarted: () => void = () => {};
  const gate: Gate = {
    started: new Promise<void>((resolve) => {
      markStarted = resolve;
    }),
    release: (value) => release(value),
    signals: [],
  };
  const finished = new Promise<string>((resolve) => {
    release = resolve;
  });
  const server: Server = createServer({
    name: "session-test",
    version: "1.2.3",
    instructions: "Use echo to echo.",
    ...options,
  });
  server.tool({ name: "echo", description: "Echo text", input: { text: z.string() }, handler: ({ text }) => text });
  server.tool({
    name: "who",
    description: "Who is calling",
    handler: (_args, ctx) => ({ clientInfo: ctx.clientInfo ?? null, version: ctx.protocolVersion }),
  });
  server.tool({
    name: "slow",
    description: "Waits until released or cancelled",
    handler: (_args, ctx) => {
      gate.signals.push(ctx.signal);
      markStarted();
      const aborted = new Promise<string>((resolve) => {
        ctx.signal.addEventListener("abort", () => resolve("aborted"));
      });
      return Promise.race([finished, aborted]);
    },
  });
  server.resource({ uri: "docs://ok", handler: () => "fine" });
  server.resource({
    uri: "docs://broken",
    handler: () => {
      throw new Error("cannot open /srv/secret/db.sqlite");
    },
  });
  server.prompt({ name: "greet", args: { person: z.string() }, handler: ({ person }) => `Hello ${person}` });
  return { server, gate };
}

async function send(session: Connection, message: unknown): Promise<unknown> {
  const line = typeof message === "string" ? message : JSON.stringify(message);
  const reply = await replyTo(session, line);
  return reply === undefined ? undefined : JSON.parse(reply);
}

function request(id: unknown, method: string, params?: Json): Json {
  return params === undefined ? { jsonrpc: "2.0", id, method } : { jsonrpc: "2.0", id, method, params };
}

function notification(method: string, params?: Json): Json {
  return params === undefined ? { jsonrpc: "2.0", method } : { jsonrpc: "2.0", method, params };
}

function initializeParams(protocolVersion: string): Json {
  return { protocolVersion, capabilities: {}, clientInfo: CLIENT };
}

function errorReply(id: unknown, code: number) {
  return { jsonrpc: "2.0", id, error: expect.objectContaining({ code, message: expect.any(String) }) };
}

function stateless(params: Json = {}): Json {
  return { ...params, _meta: META };
}

async function handshake(server: Server, protocolVersion = "2025-11-25"): Promise<Connection> {
  const session = connectLines(server);
  const reply = (await send(session, request("init", "initialize", initializeParams(protocolVersion)))) as Json;
  expect(reply.result).toMatchObject({ protocolVersion });
  expect(await send(session, notification("notifications/initialized"))).toBeUndefined();
  return session;
}

describe("JSON-RPC framing", () => {
  for (const line of ["{", "not json", '{"jsonrpc":"2.0","id":1,"method":"ping"', ""]) {
    it(`malformed JSON ${JSON.stringify(line)} → -32700 with id null`, async () => {
      const session = connectLines(fixture().server);
      expect(await send(session, line)).toEqual(errorReply(null, -32700));
    });
  }

  it("malformed JSON inside an initialized session → -32700, and the session lives on", async () => {
    const session = await handshake(fixture().server);
    expect(await send(session, "{oops")).toEqual(errorReply(null, -32700));
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("an empty batch → -32600 with id null", async () => {
    expect(await send(connectLines(fixture().server), "[]")).toEqual(errorReply(null, -32600));
    expect(await send(await handshake(fixture().server, "2025-03-26"), "[]")).toEqual(errorReply(null, -32600));
  });

  it("a batch before initialize → -32600", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, [request(1, "ping")])).toEqual(errorReply(null, -32600));
    expect(await send(session, [request(1, "initialize", initializeParams("2025-03-26"))])).toEqual(
      errorReply(null, -32600),
    );
  });

  for (const protocolVersion of ["2025-06-18", "2025-11-25"]) {
    it(`a batch in a ${protocolVersion} session → -32600`, async () => {
      const session = await handshake(fixture().server, protocolVersion);
      expect(await send(session, [request(1, "ping"), request(2, "tools/list")])).toEqual(errorReply(null, -32600));
    });
  }

  it("a batch in the stateless era → -32600", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list", stateless()))).toMatchObject({ id: 1, result: {} });
    expect(await send(session, [request(2, "tools/list", stateless())])).toEqual(errorReply(null, -32600));
  });

  it("a batch in a 2025-03-26 session → an array of replies, notifications omitted", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    const replies = (await send(session, [
      request(1, "ping"),
      notification("notifications/whatever"),
      request("two", "tools/call", { name: "echo", arguments: { text: "hi" } }),
      request(3, "nope/nope"),
    ])) as Json[];
    expect(replies).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "two", result: { content: [{ type: "text", text: "hi" }], isError: false } },
      errorReply(3, -32601),
    ]);
  });

  it("a 2025-03-26 batch of notifications only → no reply at all", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    expect(await send(session, [notification("notifications/a"), notification("notifications/b")])).toBeUndefined();
  });

  it("a 2025-03-26 batch with invalid entries → one error per entry", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    expect(await send(session, [1, { foo: "bar" }, request(4, "ping")])).toEqual([
      errorReply(null, -32600),
      errorReply(null, -32600),
      { jsonrpc: "2.0", id: 4, result: {} },
    ]);
  });

  it("initialize inside a 2025-03-26 batch → an error for that entry", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    const replies = (await send(session, [
      request(9, "initialize", initializeParams("2025-03-26")),
      request(10, "ping"),
    ])) as Json[];
    expect(replies).toHaveLength(2);
    expect(replies[0]).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32600 } });
    expect(replies[1]).toEqual({ jsonrpc: "2.0", id: 10, result: {} });
  });

  for (const [label, line] of [
    ["a number", "1"],
    ["a string", '"ping"'],
    ["null", "null"],
    ["true", "true"],
  ]) {
    it(`a message that is ${label}, not an object → -32600 with id null`, async () => {
      expect(await send(connectLines(fixture().server), line as string)).toEqual(errorReply(null, -32600));
    });
  }

  for (const id of [5, "five"]) {
    it(`invalid envelopes echo the id ${JSON.stringify(id)}`, async () => {
      const session = connectLines(fixture().server);
      const cases: Json[] = [
        { jsonrpc: "2.0", id },
        { jsonrpc: "1.0", id, method: "ping" },
        { jsonrpc: 2, id, method: "ping" },
        { id, method: "ping" },
        { jsonrpc: "2.0", id, method: 42 },
        { jsonrpc: "2.0", id, method: "ping", params: [] },
        { jsonrpc: "2.0", id, method: "ping", params: ["a"] },
        { jsonrpc: "2.0", id, method: "ping", params: "text" },
        { jsonrpc: "2.0", id, method: "ping", params: 3 },
      ];
      for (const message of cases) {
        expect(await send(session, message), JSON.stringify(message)).toEqual(errorReply(id, -32600));
      }
    });
  }

  for (const id of [null, {}, { a: 1 }, true, false, [1]]) {
    it(`id ${JSON.stringify(id)} → -32600 with id null`, async () => {
      expect(await send(connectLines(fixture().server), { jsonrpc: "2.0", id, method: "ping" })).toEqual(
        errorReply(null, -32600),
      );
    });
  }

  it("a message with result or error but no method → no reply", async () => {
    const fresh = connectLines(fixture().server);
    const initialized = await handshake(fixture().server);
    for (const session of [fresh, initialized]) {
      expect(await send(session, { jsonrpc: "2.0", id: 1, result: {} })).toBeUndefined();
      expect(await send(session, { jsonrpc: "2.0", id: 1, error: { code: -1, message: "x" } })).toBeUndefined();
      expect(await send(session, { jsonrpc: "2.0", id: null, error: { code: -1, message: "x" } })).toBeUndefined();
    }
  });

  for (const id of [0, "", "abc", -1, 1.5, 2 ** 40, "0"]) {
    it(`the id ${JSON.stringify(id)} is echoed exactly, in both eras`, async () => {
      const { server } = fixture();
      const session = await handshake(server);
      const handshakeReply = await replyTo(session, JSON.stringify(request(id, "ping")));
      expect(handshakeReply).toBe(JSON.stringify({ jsonrpc: "2.0", id, result: {} }));
      expect(await send(session, request(id, "nope/nope"))).toEqual(errorReply(id, -32601));
      const modern = connectLines(server);
      expect(await send(modern, request(id, "tools/list", stateless()))).toMatchObject({ jsonrpc: "2.0", id });
      expect(await send(modern, request(id, "nope/nope", stateless()))).toEqual(errorReply(id, -32601));
    });
  }

  it("notifications are never answered, known or not, in any state", async () => {
    const { server } = fixture();
    const notes = [
      notification("notifications/unknown"),
      notification("tools/list"),
      notification("initialize", initializeParams("2025-11-25")),
      notification("notifications/cancelled", { requestId: 12345 }),
      notification("notifications/cancelled", { nonsense: true }),
      notification("notifications/initialized"),
      notification("notifications/roots/list_changed", stateless()),
    ];
    const fresh = connectLines(server);
    const initialized = await handshake(server);
    const modern = connectLines(server);
    await send(modern, request(1, "tools/list", stateless()));
    for (const session of [fresh, initialized, modern]) {
      for (const note of notes) expect(await send(session, note), JSON.stringify(note)).toBeUndefined();
    }
    // The notification named initialize did not initialize the fresh session.
    expect(fresh.negotiatedVersion).toBeUndefined();
  });

  it("an unknown method → -32601 in both eras", async () => {
    const { server } = fixture();
    const session = await handshake(server);
    expect(await send(session, request(1, "tools/destroy"))).toEqual(errorReply(1, -32601));
    expect(await send(session, request(2, "__proto__"))).toEqual(errorReply(2, -32601));
    expect(await send(session, request(3, "constructor"))).toEqual(errorReply(3, -32601));
    const modern = connectLines(server);
    expect(await send(modern, request(4, "tools/destroy", stateless()))).toEqual(errorReply(4, -32601));
    expect(await send(modern, request(5, "toString", stateless()))).toEqual(errorReply(5, -32601));
  });

  it("bad params → -32602 in both eras", async () => {
    const { server } = fixture();
    const session = await handshake(server);
    const modern = connectLines(server);
    const bad: [string, Json][] = [
      ["tools/call", {}],
      ["tools/call", { name: 5 }],
      ["tools/call", { name: "echo", arguments: [] }],
      ["resources/read", { uri: 5 }],
      ["resources/read", {}],
      ["prompts/get", {}],
      ["prompts/get", { name: "greet", arguments: { person: 1 } }],
      ["tools/list", { cursor: 7 }],
    ];
    for (const [method, params] of bad) {
      expect(await send(session, request(1, method, params)), method).toEqual(errorReply(1, -32602));
      expect(await send(modern, request(2, method, stateless(params))), method).toEqual(errorReply(2, -32602));
    }
  });

  for (const era of ["handshake", "stateless"]) {
    it(`${era}: a resource handler throwing a plain Error → -32603 "Internal error", no details, onError told`, async () => {
      const reports: { error: unknown; where: ErrorReport }[] = [];
      const { server } = fixture({ onError: (error, where) => reports.push({ error, where }) });
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const params = era === "handshake" ? { uri: "docs://broken" } : stateless({ uri: "docs://broken" });
      const line = await replyTo(session, JSON.stringify(request(77, "resources/read", params)));
      expect(JSON.parse(line ?? "null")).toEqual({
        jsonrpc: "2.0",
        id: 77,
        error: { code: -32603, message: "Internal error" },
      });
      expect(line).not.toContain("secret");
      expect(line).not.toContain("stack");
      expect(line).not.toMatch(/\bat \S+/);
      expect(reports).toHaveLength(1);
      expect((reports[0]?.error as Error | undefined)?.message).toBe("cannot open /srv/secret/db.sqlite");
      expect(reports[0]?.where).toMatchObject({ method: "resources/read", requestId: 77 });
    });
  }

  it("a failing onError hook does not take the reply down", async () => {
    const { server } = fixture({
      onError: () => {
        throw new Error("hook failed");
      },
    });
    const session = await handshake(server);
    expect(await send(session, request(1, "resources/read", { uri: "docs://broken" }))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      error: { code: -32603, message: "Internal error" },
    });
  });
});

describe("handshake era", () => {
  it("a request before initialize without _meta → -32602, and the connection lives on", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list"))).toEqual(errorReply(1, -32602));
    expect(await send(session, request(2, "tools/call", { name: "echo", arguments: { text: "x" } }))).toEqual(
      errorReply(2, -32602),
    );
    const init = (await send(session, request(3, "initialize", initializeParams("2025-06-18")))) as Json;
    expect(init.result).toMatchObject({ protocolVersion: "2025-06-18" });
    await send(session, notification("notifications/initialized"));
    expect(await send(session, request(4, "tools/list"))).toMatchObject({
      id: 4,
      result: { tools: expect.any(Array) },
    });
  });

  it("ping before initialize → {}", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(session.phase).toBe("handshake");
  });

  for (const version of HANDSHAKE) {
    it(`initialize with ${version} echoes it`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(session, request(1, "initialize", initializeParams(version)))) as Json;
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, result: { protocolVersion: version } });
      expect(session.negotiatedVersion).toBe(version);
    });
  }

  for (const version of ["2024-01-01", "2026-07-28", "not-a-version"]) {
    it(`initialize with ${version} is answered with 2025-11-25`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(session, request(1, "initialize", initializeParams(version)))) as Json;
      expect(reply).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
    });
  }

  it("the initialize result: version, registered capabilities, serverInfo, instructions", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "initialize", initializeParams("2025-11-25")))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        protocolVersion: "2025-11-25",
        capabilities: FIXTURE_CAPABILITIES,
        serverInfo: { name: "session-test", version: "1.2.3" },
        instructions: "Use echo to echo.",
      },
    });
  });

  it("capabilities in initialize follow what is registered", async () => {
    const toolsOnly = createServer({ name: "t", version: "1" });
    toolsOnly.tool({ name: "x", description: "d", handler: () => 1 });
    const reply = (await send(
      connectLines(toolsOnly),
      request(1, "initialize", initializeParams("2025-11-25")),
    )) as Json;
    expect((reply.result as Json).capabilities).toEqual({ logging: {}, tools: { listChanged: true } });
    const empty = createServer({ name: "e", version: "1" });
    const emptyReply = (await send(
      connectLines(empty),
      request(1, "initialize", initializeParams("2025-11-25")),
    )) as Json;
    // Logging is always there: any handler may log through ctx.log.
    expect((emptyReply.result as Json).capabilities).toEqual({ logging: {} });
    expect(emptyReply.result).not.toHaveProperty("instructions");
  });

  it("a second initialize → -32600, before and after notifications/initialized", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "initialize", initializeParams("2025-11-25")));
    expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toEqual(
      errorReply(2, -32600),
    );
    await send(session, notification("notifications/initialized"));
    expect(await send(session, request(3, "initialize", initializeParams("2025-06-18")))).toEqual(
      errorReply(3, -32600),
    );
    expect(session.negotiatedVersion).toBe("2025-11-25");
  });

  for (const [label, params] of [
    ["clientInfo missing", { protocolVersion: "2025-11-25", capabilities: {} }],
    ["clientInfo without version", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c" } }],
    ["protocolVersion missing", { capabilities: {}, clientInfo: CLIENT }],
    ["capabilities missing", { protocolVersion: "2025-11-25", clientInfo: CLIENT }],
  ] as [string, Json][]) {
    it(`initialize with ${label} → -32602, and a correct initialize still works`, async () => {
      const session = connectLines(fixture().server);
      expect(await send(session, request(1, "initialize", params))).toEqual(errorReply(1, -32602));
      expect(await send(session, request(1, "initialize"))).toEqual(errorReply(1, -32602));
      expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toMatchObject({
        id: 2,
        result: { protocolVersion: "2025-11-25" },
      });
    });
  }

  it('phase is "handshake" until notifications/initialized, then "operation"', async () => {
    const session = connectLines(fixture().server);
    expect(session.phase).toBe("handshake");
    await send(session, notification("notifications/initialized"));
    expect(session.phase).toBe("handshake");
    await send(session, request(1, "initialize", initializeParams("2025-11-25")));
    expect(session.phase).toBe("handshake");
    await send(session, notification("notifications/initialized"));
    expect(session.phase).toBe("operation");
  });

  it("server/discover in a handshake session → -32601", async () => {
    const session = await handshake(fixture().server);
    expect(await send(session, request(1, "server/discover"))).toEqual(errorReply(1, -32601));
    expect(await send(session, request(2, "server/discover", stateless()))).toEqual(errorReply(2, -32601));
  });

  it("the handler sees the negotiated version and the client's identity", async () => {
    const session = await handshake(fixture().server, "2025-06-18");
    const reply = (await send(session, request(1, "tools/call", { name: "who" }))) as Json;
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: CLIENT, version: "2025-06-18" });
  });
});

describe("stateless era", () => {
  it("a request without _meta → -32602, before and after a stateless request", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list"))).toEqual(errorReply(1, -32602));
    expect(await send(session, request(2, "tools/list", stateless()))).toMatchObject({ id: 2, result: {} });
    expect(await send(session, request(3, "tools/list"))).toEqual(errorReply(3, -32602));
    expect(await send(session, request(4, "tools/list", { _meta: {} }))).toEqual(errorReply(4, -32602));
  });

  it("a handshake revision in _meta → -32022 that says to use initialize", async () => {
    const session = connectLines(fixture().server);
    const reply = (await send(
      session,
      request(1, "tools/list", { _meta: { ...META, [MetaKey.protocolVersion]: "2025-11-25" } }),
    )) as { error: { code: number; message: string; data: unknown } };
    expect(reply.error.code).toBe(-32022);
    expect(reply.error.message).toContain("initialize");
    expect(reply.error.data).toMatchObject({
      requested: "2025-11-25",
      supported: expect.arrayContaining(["2026-07-28"]),
    });
    const init = (await send(session, request(2, "initialize", initializeParams("2025-11-25")))) as Json;
    expect(init.result).toMatchObject({ protocolVersion: "2025-11-25" });
  });

  it("_meta without clientCapabilities → -32602", async () => {
    const session = connectLines(fixture().server);
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientInfo]: CLIENT };
    expect(await send(session, request(1, "tools/list", { _meta: meta }))).toEqual(errorReply(1, -32602));
    const listMeta = { ...meta, [MetaKey.clientCapabilities]: [] };
    expect(await send(session, request(2, "tools/list", { _meta: listMeta }))).toEqual(errorReply(2, -32602));
  });

  it("_meta with a bad clientInfo or logLevel → -32602", async () => {
    const session = connectLines(fixture().server);
    const badInfo = { ...META, [MetaKey.clientInfo]: { name: 5 } };
    expect(await send(session, request(1, "tools/list", { _meta: badInfo }))).toEqual(errorReply(1, -32602));
    const badLevel = { ...META, [MetaKey.logLevel]: "loud" };
    expect(await send(session, request(2, "tools/list", { _meta: badLevel }))).toEqual(errorReply(2, -32602));
  });

  for (const requested of ["2099-01-01", "2025-11-25"]) {
    it(`an unsupported version (${requested}) → -32022 with data.supported and data.requested`, async () => {
      const session = connectLines(fixture().server);
      const reply = (await send(
        session,
        request(1, "tools/list", { _meta: { ...META, [MetaKey.protocolVersion]: requested } }),
      )) as Json;
      expect(reply).toMatchObject({ jsonrpc: "2.0", id: 1, error: { code: -32022 } });
      const data = (reply.error as Json).data as Json;
      expect(data.requested).toBe(requested);
      expect(data.supported).toContain("2026-07-28");
    });
  }

  it("a request without clientInfo is still served", async () => {
    const session = connectLines(fixture().server);
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    const reply = (await send(session, request(1, "tools/call", { name: "who", _meta: meta }))) as Json;
    expect(reply).toMatchObject({ id: 1, result: { resultType: "complete" } });
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: null, version: "2026-07-28" });
  });

  it("each request is judged by its own _meta, not by earlier ones", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "tools/list", stateless()));
    const meta = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
    const reply = (await send(session, request(2, "tools/call", { name: "who", _meta: meta }))) as Json;
    expect((reply.result as Json).structuredContent).toEqual({ clientInfo: null, version: "2026-07-28" });
  });

  it("server/discover returns the documented shape", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "server/discover", stateless()))).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: {
        supportedVersions: expect.arrayContaining(["2026-07-28"]),
        capabilities: FIXTURE_CAPABILITIES,
        instructions: "Use echo to echo.",
        ttlMs: expect.any(Number),
        cacheScope: expect.stringMatching(/^(public|private)$/),
        resultType: "complete",
        _meta: { [MetaKey.serverInfo]: { name: "session-test", version: "1.2.3" } },
      },
    });
    expect(session.phase).toBe("operation");
    expect(session.negotiatedVersion).toBeUndefined();
  });

  it("server/discover lists the handshake versions the server also speaks", async () => {
    const reply = (await send(connectLines(fixture().server), request(1, "server/discover", stateless()))) as Json;
    expect((reply.result as Json).supportedVersions).toEqual(
      expect.arrayContaining(["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]),
    );
  });

  for (const method of ["ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]) {
    it(`${method} → -32601 in the stateless era`, async () => {
      const session = connectLines(fixture().server);
      await send(session, request(0, "tools/list", stateless()));
      expect(await send(session, request(1, method, stateless()))).toEqual(errorReply(1, -32601));
    });
  }

  it("initialize after stateless requests selects the handshake era (a client falling back), once", async () => {
    const session = connectLines(fixture().server);
    await send(session, request(1, "tools/list", stateless()));
    expect(await send(session, request(2, "initialize", initializeParams("2025-06-18")))).toMatchObject({
      id: 2,
      result: { protocolVersion: "2025-06-18" },
    });
    expect(session.negotiatedVersion).toBe("2025-06-18");
    expect(await send(session, request(3, "ping"))).toEqual({ jsonrpc: "2.0", id: 3, result: {} });
    expect(await send(session, request(4, "initialize", initializeParams("2025-11-25")))).toEqual(
      errorReply(4, -32600),
    );
  });

  it("a stateless request that fails its _meta check does not lock the connection into the stateless era", async () => {
    const session = connectLines(fixture().server);
    const bad = { [MetaKey.protocolVersion]: "2026-07-28" };
    expect(await send(session, request(1, "tools/list", { _meta: bad }))).toEqual(errorReply(1, -32602));
    expect(await send(session, request(2, "initialize", initializeParams("2025-11-25")))).toMatchObject({
      id: 2,
      result: { protocolVersion: "2025-11-25" },
    });
  });
});

describe("cancellation", () => {
  for (const era of ["handshake", "stateless"]) {
    it(`${era}: notifications/cancelled aborts the handler's signal and suppresses the reply`, async () => {
      const { server, gate } = fixture();
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const params = era === "handshake" ? { name: "slow" } : stateless({ name: "slow" });
      const pending = replyTo(session, JSON.stringify(request(10, "tools/call", params)));
      await gate.started;
      expect(session.pending).toBe(1);
      const cancel = notification("notifications/cancelled", { requestId: 10, reason: "user gave up" });
      expect(await send(session, cancel)).toBeUndefined();
      expect(await pending).toBeUndefined();
      expect(gate.signals[0]?.aborted).toBe(true);
      expect(session.pending).toBe(0);
      // The id is free again.
      expect(
        await send(session, request(10, "tools/list", era === "handshake" ? undefined : stateless())),
      ).toMatchObject({ id: 10, result: {} });
    });
  }

  it("cancelling an unknown id is ignored; the request in flight still gets its reply", async () => {
    const { server, gate } = fixture();
    const session = await handshake(server);
    const pending = replyTo(session, JSON.stringify(request(11, "tools/call", { name: "slow" })));
    await gate.started;
    expect(await send(session, notification("notifications/cancelled", { requestId: 999 }))).toBeUndefined();
    expect(await send(session, notification("notifications/cancelled", { requestId: "11" }))).toBeUndefined();
    expect(gate.signals[0]?.aborted).toBe(false);
    gate.release("done");
    expect(JSON.parse((await pending) ?? "null")).toEqual({
      jsonrpc: "2.0",
      id: 11,
      result: { content: [{ type: "text", text: "done" }], isError: false },
    });
  });

  it("cancelling a request that already finished is ignored", async () => {
    const session = await handshake(fixture().server);
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await send(session, notification("notifications/cancelled", { requestId: 1 }))).toBeUndefined();
    expect(await send(session, request(2, "ping"))).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });
});

describe("duplicate ids", () => {
  for (const era of ["handshake", "stateless"]) {
    it(`${era}: a duplicate id while the first is in flight → -32600; the first completes`, async () => {
      const { server, gate } = fixture();
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const wrap = (params: Json) => (era === "handshake" ? params : stateless(params));
      const first = replyTo(session, JSON.stringify(request(7, "tools/call", wrap({ name: "slow" }))));
      await gate.started;
      expect(await send(session, request(7, "tools/list", wrap({})))).toEqual(errorReply(7, -32600));
      expect(await send(session, request(7, "tools/call", wrap({ name: "echo", arguments: { text: "x" } })))).toEqual(
        errorReply(7, -32600),
      );
      expect(gate.signals[0]?.aborted).toBe(false);
      gate.release("first");
      expect(JSON.parse((await first) ?? "null")).toMatchObject({
        id: 7,
        result: { content: [{ type: "text", text: "first" }] },
      });
    });
  }
});

describe("hostile keys", () => {
  const HOSTILE_ARGS =
    '{"__proto__":{"polluted":"args"},"constructor":{"prototype":{"polluted":"args-ctor"}},"text":"hi"}';
  const HOSTILE_META_EXTRA = '"__proto__":{"polluted":"meta"},"constructor":{"prototype":{"polluted":"meta-ctor"}}';

  function clean(): void {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(Object.prototype)).toEqual([]);
  }

  it("handshake: __proto__ and constructor in arguments, params and _meta pollute nothing", async () => {
    const session = await handshake(fixture().server);
    const line = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":${HOSTILE_ARGS},"__proto__":{"polluted":"params"},"constructor":{"prototype":{"polluted":"params-ctor"}},"_meta":{${HOSTILE_META_EXTRA}}}}`;
    expect(await send(session, line)).toEqual({
      jsonrpc: "2.0",
      id: 1,
      result: { content: [{ type: "text", text: "hi" }], isError: false },
    });
    clean();
  });

  it("stateless: __proto__ and constructor in arguments, params, _meta and clientCapabilities pollute nothing", async () => {
    const session = connectLines(fixture().server);
    const meta = `{${HOSTILE_META_EXTRA},"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"__proto__":{"polluted":"caps"}},"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1","__proto__":{"polluted":"info"}}}`;
    const line = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":${HOSTILE_ARGS},"__proto__":{"polluted":"params"},"_meta":${meta}}}`;
    const reply = (await send(session, line)) as Json;
    expect(reply).toMatchObject({
      jsonrpc: "2.0",
      id: 2,
      result: { content: [{ type: "text", text: "hi" }], isError: false, resultType: "complete" },
    });
    clean();
  });

  it("a hostile envelope and initialize params pollute nothing", async () => {
    const session = connectLines(fixture().server);
    const line = `{"__proto__":{"polluted":"envelope"},"constructor":{"prototype":{"polluted":"env-ctor"}},"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"__proto__":{"polluted":"caps"}},"clientInfo":{"name":"c","version":"1","__proto__":{"polluted":"info"}}}}`;
    expect(await send(session, line)).toMatchObject({ id: 3, result: { protocolVersion: "2025-11-25" } });
    clean();
  });

  it("hostile prompt arguments and cancel params pollute nothing and are answered", async () => {
    const session = await handshake(fixture().server);
    const line = `{"jsonrpc":"2.0","id":4,"method":"prompts/get","params":{"name":"greet","arguments":{"person":"Ann","__proto__":"x","constructor":"y"}}}`;
    expect(await send(session, line)).toEqual({
      jsonrpc: "2.0",
      id: 4,
      result: { messages: [{ role: "user", content: { type: "text", text: "Hello Ann" } }] },
    });
    const cancel = `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"__proto__":{"polluted":"cancel"}}}`;
    expect(await send(session, cancel)).toBeUndefined();
    clean();
  });

  it("a tool whose argument is named constructor gets that argument", async () => {
    const server = createServer({ name: "c", version: "1" });
    server.tool({
      name: "ctor",
      description: "d",
      input: { constructor: z.string() },
      handler: (args) => args.constructor,
    });
    const session = await handshake(server);
    expect(
      await send(session, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"ctor","arguments":{}}}`),
    ).toMatchObject({ id: 5, result: { isError: true } });
    expect(
      await send(
        session,
        `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"ctor","arguments":{"constructor":"built"}}}`,
      ),
    ).toEqual({ jsonrpc: "2.0", id: 6, result: { content: [{ type: "text", text: "built" }], isError: false } });
    clean();
  });
});
