import { createServer, ErrorCode } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { type HttpServer, listen } from "../doors/node-server.js";

// What a client gets wrong, over a real node:http listener: a JSON-RPC answer with the status the transport gives
// its code, never a bare 500.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: { elicitation: {} } };
const FORM = { count: z.number().int() };

let http: HttpServer;

beforeAll(async () => {
  const server = createServer({ name: "bad-input", version: "1" });
  server.prompt({
    name: "weigh",
    description: "Asks how much",
    handler: async (_args, ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? `Weigh ${answer.content.count}` : "Nothing";
    },
  });
  server.resource({
    uri: "scale://reading",
    handler: async (ctx) => {
      const answer = await ctx.elicit({ message: "How much?", schema: FORM });
      return answer.action === "accept" ? String(answer.content.count) : "none";
    },
  });
  server.tool({ name: "echo", description: "A string", input: { text: z.string() }, handler: ({ text }) => text });
  server.tool({ name: "anything", description: "Anything", input: { data: z.unknown() }, handler: () => "taken" });
  server.tool({
    name: "route",
    description: "A header-mirrored argument",
    input: { region: z.string().meta({ "x-mcp-header": "Region" }) },
    handler: ({ region }) => region,
  });
  server.tool({
    name: "asks",
    description: "Asks for a seat",
    input: { flight: z.string() },
    handler: async (_args, ctx) => (await ctx.elicit({ message: "Seat?", schema: { seat: z.string() } })).action,
  });
  server.prompt({
    name: "greet",
    description: "Greets",
    args: { name: z.string() },
    complete: { name: () => ["Ada"] },
    handler: ({ name }) => `Hi ${name}`,
  });
  http = await listen(server, { port: 0, log: null });
});

afterAll(() => http.close());

interface Answer {
  status: number;
  body: { id?: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
}

const JSON_TYPES = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function postText(body: string, headers: Record<string, string>): Promise<Answer & { session: string | null }> {
  const response = await fetch(http.url, { method: "POST", headers: { ...JSON_TYPES, ...headers }, body });
  const text = await response.text();
  // A reply is JSON, or an SSE stream whose last data line is the response.
  const data = text.startsWith("{")
    ? text
    : text
        .split("\n")
        .filter((line) => line.startsWith("data: {"))
        .at(-1)
        ?.slice(6);
  return {
    status: response.status,
    body: data === undefined || data === "" ? {} : JSON.parse(data),
    session: response.headers.get("mcp-session-id"),
  };
}

function headers2026(method: string, extra: Record<string, string> = {}): Record<string, string> {
  return { "mcp-protocol-version": "2026-07-28", "mcp-method": method, ...extra };
}

async function post2026(method: string, params: Record<string, unknown>, name?: string): Promise<Answer> {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params: { ...params, _meta: META } });
  return postText(body, headers2026(method, name === undefined ? {} : { "mcp-name": name }));
}

describe("2026-07-28: an elicitation answer that does not fit its form", () => {
  for (const [method, key, target] of [
    ["prompts/get", "name", "weigh"],
    ["resources/read", "uri", "scale://reading"],
  ] as const) {
    it(`${method} is 400 + -32602 naming the field, not 500`, async () => {
      const first = await post2026(method, { [key]: target }, target);
      expect(first.status).toBe(200);
      expect(first.body.result?.resultType).toBe("input_required");
      const retry = await post2026(
        method,
        {
          [key]: target,
          requestState: first.body.result?.requestState,
          inputResponses: { "elicit-1": { action: "accept", content: { count: "many" } } },
        },
        target,
      );
      expect(retry.status).toBe(400);
      expect(retry.body.error?.code).toBe(ErrorCode.InvalidParams);
      expect(retry.body.error?.message).toContain("- count:");
    });
  }
});

// Built as text: JSON.stringify itself overflows on values nested a few thousand deep.
const DEPTHS = [5_000, 50_000, 100_000];
const arrays = (depth: number) => `${"[".repeat(depth)}"x"${"]".repeat(depth)}`;
const objects = (depth: number) => `${'{"a":'.repeat(depth)}"x"${"}".repeat(depth)}`;
const META_TEXT = JSON.stringify(META);
const DEEP = /nests deeper than 64 levels/;

function line(method: string, params: string): string {
  return `{"jsonrpc":"2.0","id":"n","method":"${method}","params":{${params},"_meta":${META_TEXT}}}`;
}

function expectAnswer(answer: Answer, status: number, code: number | "isError", message: RegExp): void {
  expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(status);
  if (code === "isError") {
    expect(answer.body.result?.isError).toBe(true);
    expect(JSON.stringify(answer.body.result?.content)).toMatch(message);
  } else {
    expect(answer.body.error?.code).toBe(code);
    expect(answer.body.error?.message).toMatch(message);
  }
}

// Each shape: the body at a depth, its routing headers, and the status and code it gets.
type Shape = [string, (depth: number) => string, Record<string, string>, number, number | "isError", RegExp];

const SHAPES: Shape[] = [
  [
    "_meta's protocolVersion (the header says 2026-07-28)",
    (d) =>
      `{"jsonrpc":"2.0","id":"n","method":"tools/list","params":{"_meta":{"${MetaKey.protocolVersion}":${arrays(d)},"${MetaKey.clientCapabilities}":{}}}}`,
    headers2026("tools/list"),
    400,
    ErrorCode.HeaderMismatch,
    /does not match _meta \(not a string: an array\)/,
  ],
  [
    "a header-mirrored argument",
    (d) => line("tools/call", `"name":"route","arguments":{"region":${arrays(d)}}`),
    headers2026("tools/call", { "mcp-name": "route", "mcp-param-region": "eu" }),
    400,
    ErrorCode.HeaderMismatch,
    /Mcp-Param-region header does not match/,
  ],
  [
    "an id",
    (d) => `{"jsonrpc":"2.0","id":${arrays(d)},"method":"tools/list","params":{"_meta":${META_TEXT}}}`,
    headers2026("tools/list"),
    400,
    ErrorCode.InvalidRequest,
    /id/,
  ],
  [
    "arguments on a plain tool",
    (d) => line("tools/call", `"name":"echo","arguments":{"text":${objects(d)}}`),
    headers2026("tools/call", { "mcp-name": "echo" }),
    200,
    "isError",
    /text/,
  ],
  [
    "arguments taken as anything",
    (d) => line("tools/call", `"name":"anything","arguments":{"data":${arrays(d)}}`),
    headers2026("tools/call", { "mcp-name": "anything" }),
    200,
    "isError",
    DEEP,
  ],
  [
    "arguments on a tool that elicits (the requestState digest)",
    (d) => line("tools/call", `"name":"asks","arguments":{"flight":"LH1","extra":${objects(d)}}`),
    headers2026("tools/call", { "mcp-name": "asks" }),
    400,
    ErrorCode.InvalidParams,
    /params\.arguments nests deeper/,
  ],
  [
    "inputResponses",
    (d) => line("tools/call", `"name":"asks","arguments":{"flight":"LH1"},"inputResponses":{"elicit-1":${arrays(d)}}`),
    headers2026("tools/call", { "mcp-name": "asks" }),
    400,
    ErrorCode.InvalidParams,
    /params\.inputResponses nests deeper/,
  ],
  [
    "a cursor",
    (d) => line("tools/list", `"cursor":${arrays(d)}`),
    headers2026("tools/list"),
    400,
    ErrorCode.InvalidParams,
    /cursor/,
  ],
  [
    "a completion argument",
    (d) =>
      line(
        "completion/complete",
        `"ref":{"type":"ref/prompt","name":"greet"},"argument":{"name":"name","value":${arrays(d)}}`,
      ),
    headers2026("completion/complete"),
    400,
    ErrorCode.InvalidParams,
    /argument\.value/,
  ],
  [
    "a resource uri (Mcp-Name cannot match it)",
    (d) => line("resources/read", `"uri":${arrays(d)}`),
    headers2026("resources/read", { "mcp-name": "docs://readme" }),
    400,
    ErrorCode.HeaderMismatch,
    /Mcp-Name/,
  ],
];

describe("2026-07-28: values nested thousands deep get a JSON-RPC answer, never a bare 500", () => {
  for (const [what, body, headers, status, code, message] of SHAPES) {
    it.each(DEPTHS)(`${what}, %i deep: ${status} + ${code}`, async (depth) => {
      expectAnswer(await postText(body(depth), headers), status, code, message);
      const next = await post2026("tools/call", { name: "echo", arguments: { text: "ok" } }, "echo");
      expect(next.body.result?.content).toEqual([{ type: "text", text: "ok" }]);
    });
  }
});

describe("handshake era: values nested thousands deep, in a session", () => {
  let session: Record<string, string>;
  beforeAll(async () => {
    const init = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } };
    const opened = await postText(JSON.stringify({ jsonrpc: "2.0", id: 0, method: "initialize", params: init }), {});
    session = { "mcp-session-id": opened.session as string, "mcp-protocol-version": "2025-11-25" };
    await postText('{"jsonrpc":"2.0","method":"notifications/initialized"}', session);
  });

  for (const [what, body, code, message] of [
    [
      "logging/setLevel's level",
      (d: number) => `{"jsonrpc":"2.0","id":"n","method":"logging/setLevel","params":{"level":${objects(d)}}}`,
      ErrorCode.InvalidParams,
      /Invalid log level: an object/,
    ],
    [
      "arguments taken as anything",
      (d: number) =>
        `{"jsonrpc":"2.0","id":"n","method":"tools/call","params":{"name":"anything","arguments":{"data":${objects(d)}}}}`,
      "isError",
      DEEP,
    ],
    [
      "an id",
      (d: number) => `{"jsonrpc":"2.0","id":${arrays(d)},"method":"tools/list"}`,
      ErrorCode.InvalidRequest,
      /id/,
    ],
  ] as const) {
    it.each(DEPTHS)(`${what}, %i deep: ${code}`, async (depth) => {
      const answer = await postText(body(depth), session);
      expectAnswer(answer, code === ErrorCode.InvalidRequest ? 400 : 200, code, message);
      const next = await postText(
        '{"jsonrpc":"2.0","id":"next","method":"tools/call","params":{"name":"echo","arguments":{"text":"ok"}}}',
        session,
      );
      expect(next.body.result?.content).toEqual([{ type: "text", text: "ok" }]);
    });
  }
});
