import { describe, expect, it } from "vitest";
import { z } from "zod";
import * as z3 from "zod/v3";
import { createServer } from "../index.js";
import { jsonSchema } from "../schema/json-schema.js";
import { MetaKey } from "../transport.js";
import type { Connection } from "./connection.js";
import { connectLines, receiveLine, replyTo, sentOn } from "./connection.test-util.js";
import "../schema/zod-v3.js";

// A client's value nested thousands deep (JSON.parse takes it) never overflows the stack: whatever the server walks
// is bounded, and the request gets its one JSON-RPC answer (-32600, -32602, or the tool's isError), never -32603.

const DEPTHS = [5_000, 50_000, 100_000];
const META = JSON.stringify({
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: { elicitation: {} },
});
const LEAF = '"x"';

/** JSON text of arrays nested `depth` deep (built as text: JSON.stringify itself overflows past a few thousand). */
const arrays = (depth: number) => `${"[".repeat(depth)}${LEAF}${"]".repeat(depth)}`;
/** JSON text of objects nested `depth` deep. */
const objects = (depth: number) => `${'{"a":'.repeat(depth)}${LEAF}${"}".repeat(depth)}`;

function request(id: string, method: string, params: string, modern: boolean): string {
  const body = modern ? (params === "" ? `"_meta":${META}` : `${params},"_meta":${META}`) : params;
  return `{"jsonrpc":"2.0","id":"${id}","method":"${method}","params":{${body}}}`;
}

const Node: z.ZodType<{ a?: unknown }> = z.object({
  get a() {
    return z.union([Node, z.string()]).optional();
  },
});
const Node3: z3.ZodType<unknown> = z3.lazy(() => z3.object({ a: z3.union([Node3, z3.string()]).optional() }));

function server() {
  const s = createServer({ name: "nesting", version: "1" });
  s.tool({ name: "plain", description: "A string", input: { text: z.string() }, handler: ({ text }) => text });
  s.tool({ name: "anything", description: "Takes anything", input: { data: z.unknown() }, handler: () => "taken" });
  s.tool({ name: "tree", description: "Recursive (zod v4)", input: { tree: Node }, handler: () => "tree" });
  s.tool({ name: "tree3", description: "Recursive (zod v3)", input: z3.object({ tree: Node3 }), handler: () => "3" });
  // The same, as raw JSON Schemas: a recursive one, one that admits anything, one with a default (copied to fill in).
  const rawNode = { anyOf: [{ type: "object", properties: { a: { $ref: "#/$defs/node" } } }, { type: "string" }] };
  s.tool({
    name: "rawTree",
    description: "Recursive (raw JSON Schema)",
    input: jsonSchema({ type: "object", properties: { tree: { $ref: "#/$defs/node" } }, $defs: { node: rawNode } }),
    handler: () => "tree",
  });
  s.tool({
    name: "rawAnything",
    description: "Takes anything (raw JSON Schema)",
    input: jsonSchema({ type: "object", properties: { data: {} } }),
    handler: () => "taken",
  });
  s.tool({
    name: "rawUnique",
    description: "Unique objects (raw JSON Schema)",
    input: jsonSchema({
      type: "object",
      properties: { list: { type: "array", items: { type: "object" }, uniqueItems: true } },
    }),
    handler: () => "unique",
  });
  s.tool({
    name: "rawDefault",
    description: "A default (raw JSON Schema)",
    input: jsonSchema({ type: "object", properties: { text: { type: "string", default: "kept" } } }),
    handler: ({ text }) => text,
  });
  s.tool({
    name: "asks",
    description: "Elicits",
    input: { flight: z.string() },
    handler: async ({ flight }, ctx) => {
      const answer = await ctx.elicit({ message: `Seat on ${flight}?`, schema: { seat: z.string() } });
      return answer.action === "accept" ? answer.content.seat : answer.action;
    },
  });
  s.prompt({
    name: "greet",
    description: "Greets",
    args: { name: z.string() },
    complete: { name: () => ["Ada"] },
    handler: ({ name }) => `Hi ${name}`,
  });
  s.resource({ uri: "docs://readme", handler: () => "read me" });
  return s;
}

interface Reply {
  id: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

async function answer(connection: Connection, line: string): Promise<Reply> {
  const text = await replyTo(connection, line);
  expect(text, "a reply").toBeTypeOf("string");
  return JSON.parse(text as string) as Reply;
}

async function livesOn(connection: Connection, modern: boolean): Promise<void> {
  const reply = await answer(
    connection,
    request("next", "tools/call", '"name":"plain","arguments":{"text":"ok"}', modern),
  );
  expect(reply.result?.content).toEqual([{ type: "text", text: "ok" }]);
}

function expectError(reply: Reply, code: number, message?: RegExp): void {
  expect(reply.error?.code, JSON.stringify(reply).slice(0, 300)).toBe(code);
  if (message) expect(reply.error?.message).toMatch(message);
}

function expectToolError(reply: Reply, message: RegExp): void {
  expect(reply.result?.isError, JSON.stringify(reply).slice(0, 300)).toBe(true);
  expect((reply.result?.content as { text: string }[] | undefined)?.[0]?.text).toMatch(message);
}

const DEEP = /nests deeper than 64 levels of arrays and objects/;

// Each shape: the line at a depth, and what its answer must be. The connection then answers the next request.
type Shape = [string, (depth: number) => string, (reply: Reply) => void];

const modern: Shape[] = [
  [
    "_meta protocolVersion",
    (d) =>
      `{"jsonrpc":"2.0","id":"s","method":"tools/list","params":{"_meta":{"${MetaKey.protocolVersion}":${arrays(d)},"${MetaKey.clientCapabilities}":{}}}}`,
    (reply) => expectError(reply, -32602, /protocolVersion/),
  ],
  [
    "an id",
    (d) => `{"jsonrpc":"2.0","id":${arrays(d)},"method":"tools/list","params":{"_meta":${META}}}`,
    (reply) => {
      expect(reply.id).toBeNull();
      expectError(reply, -32600);
    },
  ],
  [
    "params",
    (d) => `{"jsonrpc":"2.0","id":"s","method":"tools/list","params":${arrays(d)}}`,
    (r) => expectError(r, -32600),
  ],
  [
    "a tool's string argument",
    (d) => request("s", "tools/call", `"name":"plain","arguments":{"text":${objects(d)}}`, true),
    (r) => expectToolError(r, /text/),
  ],
  [
    "an argument the tool does not list (dropped unread)",
    (d) => request("s", "tools/call", `"name":"plain","arguments":{"text":"kept","extra":${arrays(d)}}`, true),
    (r) => expect(r.result?.content).toEqual([{ type: "text", text: "kept" }]),
  ],
  [
    "an argument a tool takes as anything",
    (d) => request("s", "tools/call", `"name":"anything","arguments":{"data":${arrays(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "a recursive zod v4 argument",
    (d) => request("s", "tools/call", `"name":"tree","arguments":{"tree":${objects(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "a recursive zod v3 argument",
    (d) => request("s", "tools/call", `"name":"tree3","arguments":{"tree":${objects(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "a recursive raw JSON Schema argument",
    (d) => request("s", "tools/call", `"name":"rawTree","arguments":{"tree":${objects(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "an argument a raw JSON Schema takes as anything",
    (d) => request("s", "tools/call", `"name":"rawAnything","arguments":{"data":${arrays(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "items a raw JSON Schema's uniqueItems compares",
    (d) => request("s", "tools/call", `"name":"rawUnique","arguments":{"list":[${objects(d)},${objects(d)}]}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "an argument a raw JSON Schema with a default does not list (handed on unlisted, so bounded first)",
    (d) => request("s", "tools/call", `"name":"rawDefault","arguments":{"extra":${objects(d)}}`, true),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "an eliciting tool's arguments (the requestState digest)",
    (d) => request("s", "tools/call", `"name":"asks","arguments":{"flight":"LH1","extra":${objects(d)}}`, true),
    (r) => expectError(r, -32602, /params\.arguments nests deeper than 64/),
  ],
  [
    "inputResponses",
    (d) =>
      request(
        "s",
        "tools/call",
        `"name":"asks","arguments":{"flight":"LH1"},"inputResponses":{"elicit-1":{"action":"accept","content":{"seat":${arrays(d)}}}}`,
        true,
      ),
    (r) => expectError(r, -32602, /params\.inputResponses nests deeper than 64/),
  ],
  [
    "a tool's name on a retry",
    (d) => request("s", "tools/call", `"name":${arrays(d)},"inputResponses":{}`, true),
    (r) => expectError(r, -32602, /name/),
  ],
  [
    "a resource uri",
    (d) => request("s", "resources/read", `"uri":${arrays(d)}`, true),
    (r) => expectError(r, -32602, /uri/),
  ],
  [
    "a resource uri on a retry",
    (d) => request("s", "resources/read", `"uri":${arrays(d)},"inputResponses":{}`, true),
    (r) => expectError(r, -32602, /uri/),
  ],
  [
    "a prompt argument",
    (d) => request("s", "prompts/get", `"name":"greet","arguments":{"name":${arrays(d)}}`, true),
    (r) => expectError(r, -32602, /name/),
  ],
  [
    "a cursor",
    (d) => request("s", "tools/list", `"cursor":${arrays(d)}`, true),
    (r) => expectError(r, -32602, /cursor/),
  ],
  [
    "a completion argument",
    (d) =>
      request(
        "s",
        "completion/complete",
        `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":${arrays(d)}}`,
        true,
      ),
    (r) => expectError(r, -32602, /argument\.value/),
  ],
];

describe("2026-07-28: values nested thousands deep", () => {
  for (const [what, make, check] of modern) {
    it.each(DEPTHS)(`${what}, %i deep: a JSON-RPC answer, and the connection lives on`, async (depth) => {
      const connection = connectLines(server());
      check(await answer(connection, make(depth)));
      await livesOn(connection, true);
    });
  }

  it.each(DEPTHS)("arguments nested %i deep on a retry of an eliciting tool: -32602", async (depth) => {
    const connection = connectLines(server());
    const first = await answer(
      connection,
      request("s", "tools/call", '"name":"asks","arguments":{"flight":"LH1"}', true),
    );
    const state = JSON.stringify(first.result?.requestState);
    const retry = `"name":"asks","arguments":{"flight":"LH1","extra":${arrays(depth)}},"requestState":${state},"inputResponses":{}`;
    expectError(await answer(connection, request("t", "tools/call", retry, true)), -32602, /params\.arguments nests/);
    await livesOn(connection, true);
  });
});

async function handshake(version = "2025-11-25"): Promise<Connection> {
  const connection = connectLines(server());
  const init = `{"protocolVersion":"${version}","capabilities":{"elicitation":{}},"clientInfo":{"name":"c","version":"1"}}`;
  await answer(connection, `{"jsonrpc":"2.0","id":0,"method":"initialize","params":${init}}`);
  await replyTo(connection, '{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return connection;
}

const legacy: Shape[] = [
  [
    "logging/setLevel's level",
    (d) => request("s", "logging/setLevel", `"level":${objects(d)}`, false),
    (r) => expectError(r, -32602, /Invalid log level: an object/),
  ],
  ["an id", (d) => `{"jsonrpc":"2.0","id":${objects(d)},"method":"tools/list"}`, (r) => expectError(r, -32600)],
  [
    "a tool's string argument",
    (d) => request("s", "tools/call", `"name":"plain","arguments":{"text":${arrays(d)}}`, false),
    (r) => expectToolError(r, /text/),
  ],
  [
    "an argument a tool takes as anything",
    (d) => request("s", "tools/call", `"name":"anything","arguments":{"data":${objects(d)}}`, false),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "a recursive argument",
    (d) => request("s", "tools/call", `"name":"tree","arguments":{"tree":${objects(d)}}`, false),
    (r) => expectToolError(r, DEEP),
  ],
  [
    "a resource uri to subscribe to",
    (d) => request("s", "resources/subscribe", `"uri":${arrays(d)}`, false),
    (r) => expectError(r, -32602, /uri/),
  ],
  [
    "a completion's context",
    (d) =>
      request(
        "s",
        "completion/complete",
        `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":""},"context":{"arguments":{"name":${arrays(d)}}}`,
        false,
      ),
    (r) => expectError(r, -32602, /context\.arguments/),
  ],
];

describe("handshake era: values nested thousands deep", () => {
  for (const [what, make, check] of legacy) {
    it.each(DEPTHS)(`${what}, %i deep: a JSON-RPC answer, and the connection lives on`, async (depth) => {
      const connection = await handshake();
      check(await answer(connection, make(depth)));
      await livesOn(connection, false);
    });
  }

  it.each(DEPTHS)("2025-06-18: an argument a tool takes as anything, %i deep, is -32602", async (depth) => {
    const connection = await handshake("2025-06-18");
    const line = request("s", "tools/call", `"name":"anything","arguments":{"data":${arrays(depth)}}`, false);
    expectError(await answer(connection, line), -32602, DEEP);
    await livesOn(connection, false);
  });

  // The server's question goes out; the client's answer comes back nested.
  for (const [what, result] of [
    ["an elicitation answer's content", (d: number) => `"result":{"action":"accept","content":{"seat":${arrays(d)}}}`],
    ["an elicitation answer's action", (d: number) => `"result":{"action":${objects(d)}}`],
  ] as const) {
    it.each(DEPTHS)(`${what}, %i deep: -32602 for the call`, async (depth) => {
      const connection = await handshake();
      const call = receiveLine(
        connection,
        request("s", "tools/call", `"name":"asks","arguments":{"flight":"LH1","x":${arrays(depth)}}`, false),
      );
      const asked = JSON.parse(sentOn(connection).at(-1)?.line as string) as { id: number; method: string };
      expect(asked.method).toBe("elicitation/create");
      await replyTo(connection, `{"jsonrpc":"2.0","id":${asked.id},${result(depth)}}`);
      expectError(
        JSON.parse((await call.reply) as string),
        -32602,
        /answer to elicitation\/create nests deeper than 64/,
      );
      await livesOn(connection, false);
    });
  }

  it.each(DEPTHS)("an error answer whose message nests %i deep: the tool's isError", async (depth) => {
    const connection = await handshake();
    const call = receiveLine(
      connection,
      request("s", "tools/call", '"name":"asks","arguments":{"flight":"LH1"}', false),
    );
    const asked = JSON.parse(sentOn(connection).at(-1)?.line as string) as { id: number };
    await replyTo(connection, `{"jsonrpc":"2.0","id":${asked.id},"error":{"code":-1,"message":${arrays(depth)}}}`);
    expectToolError(JSON.parse((await call.reply) as string), /answered elicitation\/create with error -1: an array/);
    await livesOn(connection, false);
  });
});
