import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createServer, McpError, type Server } from "../index.js";
import { MetaKey } from "../transport.js";
import type { MaybePromise } from "../wire/maybe.js";
import { connectLines, receiveLine, replyTo } from "./connection.test-util.js";
import {
  CLIENT,
  errorReply,
  fixture,
  handshake,
  initializeParams,
  type Json,
  notification,
  request,
  send,
  stateless,
} from "./fixture.test-util.js";

const NOT_JSON = "Parse error: the message is not valid JSON";
const NO_BATCH = "Invalid request: JSON-RPC batches are accepted only in a 2025-03-26 session, after initialize";

describe("JSON-RPC framing", () => {
  for (const line of ["{", "not json", '{"jsonrpc":"2.0","id":1,"method":"ping"', ""]) {
    it(`malformed JSON ${JSON.stringify(line)} → -32700 with id null`, async () => {
      const session = connectLines(fixture().server);
      expect(await send(session, line)).toEqual(errorReply(null, -32700, NOT_JSON));
    });
  }

  it("malformed JSON inside an initialized session → -32700, and the session lives on", async () => {
    const session = await handshake(fixture().server);
    expect(await send(session, "{oops")).toEqual(errorReply(null, -32700, NOT_JSON));
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
  });

  it("an empty batch → -32600 with id null", async () => {
    const empty = errorReply(null, -32600, "Invalid request: an empty batch");
    expect(await send(connectLines(fixture().server), "[]")).toEqual(empty);
    expect(await send(await handshake(fixture().server, "2025-03-26"), "[]")).toEqual(empty);
  });

  it("a batch before initialize → -32600", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, [request(1, "ping")])).toEqual(errorReply(null, -32600, NO_BATCH));
    expect(await send(session, [request(1, "initialize", initializeParams("2025-03-26"))])).toEqual(
      errorReply(null, -32600, NO_BATCH),
    );
  });

  for (const protocolVersion of ["2025-06-18", "2025-11-25"]) {
    it(`a batch in a ${protocolVersion} session → -32600`, async () => {
      const session = await handshake(fixture().server, protocolVersion);
      const batch = [request(1, "ping"), request(2, "tools/list")];
      expect(await send(session, batch)).toEqual(errorReply(null, -32600, NO_BATCH));
    });
  }

  it("a batch in the stateless era → -32600", async () => {
    const session = connectLines(fixture().server);
    expect(await send(session, request(1, "tools/list", stateless()))).toMatchObject({ id: 1, result: {} });
    expect(await send(session, [request(2, "tools/list", stateless())])).toEqual(errorReply(null, -32600, NO_BATCH));
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
      errorReply(3, -32601, "Method not found: nope/nope"),
    ]);
  });

  it("a 2025-03-26 batch of notifications only → no reply at all", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    expect(await send(session, [notification("notifications/a"), notification("notifications/b")])).toBeUndefined();
  });

  it("a 2025-03-26 batch with invalid entries → one error per entry", async () => {
    const session = await handshake(fixture().server, "2025-03-26");
    expect(await send(session, [1, { foo: "bar" }, request(4, "ping")])).toEqual([
      errorReply(null, -32600, /^Invalid request: /),
      errorReply(null, -32600, /^Invalid request: /),
      { jsonrpc: "2.0", id: 4, result: {} },
    ]);
  });

  for (const [label, line] of [
    ["a number", "1"],
    ["a string", '"ping"'],
    ["null", "null"],
    ["true", "true"],
  ]) {
    it(`a message that is ${label}, not an object → -32600 with id null`, async () => {
      expect(await send(connectLines(fixture().server), line as string)).toEqual(
        errorReply(null, -32600, /^Invalid request: /),
      );
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
        expect(await send(session, message), JSON.stringify(message)).toEqual(
          errorReply(id, -32600, /^Invalid request: /),
        );
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
});

// The same server twice: handlers answer synchronously in one and through a promise in the other.
type Mode = "sync" | "async";

function later<T>(mode: Mode, value: T): MaybePromise<T> {
  return mode === "sync" ? value : Promise.resolve(value);
}

function failing(mode: Mode, error: Error): MaybePromise<never> {
  if (mode === "sync") throw error;
  return Promise.reject(error);
}

function build(mode: Mode): { server: Server; reports: unknown[] } {
  const reports: unknown[] = [];
  const server = createServer({
    name: "maybe-test",
    version: "1.0.0",
    onError: (error) => reports.push((error as Error).message),
  });
  server.tool({
    name: "echo",
    description: "Echo",
    input: { text: z.string() },
    handler: ({ text }) => later(mode, `echo: ${text}`),
  });
  server.tool({
    name: "sum",
    description: "Sum",
    input: { a: z.number(), b: z.number() },
    output: z.object({ sum: z.number() }),
    handler: ({ a, b }) => later(mode, { sum: a + b }),
  });
  server.tool({ name: "boom", description: "Fails", handler: () => failing(mode, new Error("kaput")) });
  server.tool({
    name: "denied",
    description: "Refuses with a JSON-RPC error",
    handler: () => failing(mode, new McpError(-32602, "no such thing", { why: "test" })),
  });
  server.resource({ uri: "docs://a", mimeType: "text/plain", handler: () => later(mode, "A") });
  server.resource({ uri: "docs://gone", handler: () => later(mode, undefined) });
  server.resource({
    uriTemplate: "n://{id}",
    input: { id: z.coerce.number() },
    handler: (variables) => later(mode, `note ${variables.id}`),
    list: () => later(mode, [{ uri: "n://1", name: "one" }]),
  });
  server.prompt({ name: "greet", args: { person: z.string() }, handler: ({ person }) => later(mode, `Hi ${person}`) });
  return { server, reports };
}

interface Step {
  line: string;
  /** True when the line reaches a handler, so the async server must answer with a promise. */
  handler: boolean;
}

function line(message: unknown): string {
  return JSON.stringify(message);
}

function operations(meta: Record<string, unknown> | undefined): Step[] {
  const params = (fields: Record<string, unknown>) => (meta ? { ...fields, _meta: meta } : fields);
  let id = 100;
  const call = (method: string, fields: Record<string, unknown>, handler: boolean): Step => ({
    line: line({ jsonrpc: "2.0", id: id++, method, params: params(fields) }),
    handler,
  });
  return [
    call("tools/call", { name: "echo", arguments: { text: "hi" } }, true),
    call("tools/call", { name: "sum", arguments: { a: 2, b: 3 } }, true),
    call("tools/call", { name: "boom" }, true),
    call("tools/call", { name: "denied" }, true),
    call("tools/call", { name: "echo", arguments: { text: 1 } }, false),
    call("tools/call", { name: "missing" }, false),
    call("resources/read", { uri: "docs://a" }, true),
    call("resources/read", { uri: "docs://gone" }, true),
    call("resources/read", { uri: "n://7" }, true),
    call("resources/read", { uri: "n://seven" }, false),
    call("resources/list", {}, true),
    call("prompts/get", { name: "greet", arguments: { person: "Ada" } }, true),
    call("tools/list", {}, false),
  ];
}

const HANDSHAKE_STEPS: Step[] = [
  {
    line: line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: CLIENT },
    }),
    handler: false,
  },
  { line: line({ jsonrpc: "2.0", method: "notifications/initialized" }), handler: false },
  { line: line({ jsonrpc: "2.0", id: 2, method: "ping" }), handler: false },
  ...operations(undefined),
  { line: "{not json", handler: false },
];
const STATELESS_META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: {},
  [MetaKey.clientInfo]: CLIENT,
};
const STATELESS_STEPS: Step[] = [
  {
    line: line({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: STATELESS_META } }),
    handler: false,
  },
  ...operations(STATELESS_META),
];

describe("connection.receive: synchronous handlers answer without a promise", () => {
  for (const [era, steps] of [
    ["handshake", HANDSHAKE_STEPS],
    ["stateless", STATELESS_STEPS],
  ] as const) {
    it(`${era}: the synchronous server never makes a promise; each reply is sent before receive returns`, () => {
      const connection = connectLines(build("sync").server);
      for (const step of steps) {
        const { returned, replies } = receiveLine(connection, step.line);
        expect(returned, step.line).toBeUndefined();
        if (step.line.includes('"id"') || step.line === "{not json") {
          expect(replies, step.line).toHaveLength(1);
          expect(typeof replies[0], step.line).toBe("string");
        } else expect(replies, step.line).toEqual([]);
      }
    });

    it(`${era}: a line that reaches an async handler makes a promise, settled once its reply is sent`, async () => {
      const connection = connectLines(build("async").server);
      for (const step of steps) {
        const { returned, replies, reply } = receiveLine(connection, step.line);
        if (step.handler) {
          expect(returned, step.line).toBeInstanceOf(Promise);
          expect(replies, step.line).toEqual([]);
        }
        const settled = await reply;
        if (step.handler) expect(typeof settled, step.line).toBe("string");
      }
    });

    it(`${era}: the replies are identical either way`, async () => {
      const sync = build("sync");
      const async = build("async");
      const syncConnection = connectLines(sync.server);
      const asyncConnection = connectLines(async.server);
      const syncReplies: (string | undefined)[] = [];
      const asyncReplies: (string | undefined)[] = [];
      for (const step of steps) {
        const { returned, replies } = receiveLine(syncConnection, step.line);
        expect(returned, step.line).toBeUndefined();
        syncReplies.push(replies[0]);
        asyncReplies.push(await replyTo(asyncConnection, step.line));
      }
      expect(asyncReplies).toEqual(syncReplies);
      expect(async.reports).toEqual(sync.reports);
      expect(sync.reports).toEqual(["kaput"]);
      // The sequence really exercised results, tool errors and JSON-RPC errors.
      const parsed = syncReplies.filter((reply) => reply !== undefined).map((reply) => JSON.parse(reply as string));
      expect(parsed.some((reply) => reply.result?.isError === true)).toBe(true);
      expect(parsed.some((reply) => reply.error?.code === -32602 && reply.error?.data?.why === "test")).toBe(true);
      expect(parsed.some((reply) => reply.result?.structuredContent?.sum === 5)).toBe(true);
      expect(parsed.some((reply) => reply.result?.contents?.[0]?.text === "note 7")).toBe(true);
    });
  }

  it("a 2025-03-26 batch: synchronous when every handler is, a promise otherwise, the same reply", async () => {
    const open = line({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-03-26", capabilities: {}, clientInfo: CLIENT },
    });
    const batch = line([
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "echo", arguments: { text: "a" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "n://3" } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "boom" } },
    ]);
    const replies: Record<Mode, unknown> = { sync: undefined, async: undefined };
    for (const mode of ["sync", "async"] as const) {
      const connection = connectLines(build(mode).server);
      await replyTo(connection, open);
      const { returned, replies: sent, reply } = receiveLine(connection, batch);
      expect(returned instanceof Promise, mode).toBe(mode === "async");
      // Synchronous: the batch's one reply line was sent before receive returned.
      expect(sent.length, mode).toBe(mode === "sync" ? 1 : 0);
      replies[mode] = await reply;
    }
    expect(typeof replies.sync).toBe("string");
    expect(replies.async).toBe(replies.sync);
    expect((JSON.parse(replies.sync as string) as { id: number }[]).map((reply) => reply.id)).toEqual([2, 3, 4]);
  });

  it("an async refinement on a synchronous handler's input makes the reply a promise", async () => {
    const server = createServer({ name: "refine", version: "1.0.0" });
    server.tool({
      name: "check",
      description: "Check",
      input: { word: z.string().refine(async (word) => word.length > 2, "too short") },
      handler: ({ word }) => word,
    });
    const connection = connectLines(server);
    const request = (id: number, word: string) =>
      line({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "check", arguments: { word }, _meta: STATELESS_META },
      });
    const { returned, reply } = receiveLine(connection, request(1, "long"));
    expect(returned).toBeInstanceOf(Promise);
    expect(JSON.parse((await reply) as string).result.content).toEqual([{ type: "text", text: "long" }]);
    expect(JSON.parse((await replyTo(connection, request(2, "no"))) as string).result.isError).toBe(true);
  });
});
