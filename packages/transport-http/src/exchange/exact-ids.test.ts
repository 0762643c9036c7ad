import { createServer, ErrorCode } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "../doors/http-handler.js";

// Every refusal the HTTP transport writes echoes the request's id exactly as the body carries it: past 2^53,
// negative, with an exponent, a string; with duplicate "id" keys, the last (the one JSON.parse, and so the server,
// reads).

const URL_ = "http://127.0.0.1:3000/mcp";
const META = `{"${MetaKey.protocolVersion}":"2026-07-28","${MetaKey.clientCapabilities}":{}}`;
const IDS = [
  "9007199254740993",
  "-9007199254740993",
  "123456789012345678901234567890",
  "-1e308",
  "1.5E+300",
  "0.1000000000000000055511151231257827",
  '"a\\"b\\\\c"',
];

function handler(options: HttpOptions = {}) {
  const s = createServer({ name: "ids", version: "1" });
  s.tool({ name: "t", description: "t", handler: () => "ok" });
  return createHttpHandler(s, options);
}

const HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const headers2026 = (method: string, extra: Record<string, string> = {}) => ({
  ...HEADERS,
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...extra,
});

function post(body: string, headers: Record<string, string>): Request {
  return new Request(URL_, { method: "POST", headers, body });
}

// The reply's id as raw JSON text (JSON.parse would round it), and the error code.
async function reply(response: Response): Promise<{ status: number; id: string; code: number }> {
  const text = await response.text();
  const id = /^\{"jsonrpc":"2\.0","id":(.*),"(?:error|result)":/.exec(text)?.[1];
  const code = (JSON.parse(text) as { error?: { code: number } }).error?.code ?? 0;
  return { status: response.status, id: id ?? `(no id in ${text})`, code };
}

const INIT = `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}`;

async function open(handle: ReturnType<typeof handler>): Promise<string> {
  const response = await handle(post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":${INIT}}`, HEADERS));
  return response.headers.get("mcp-session-id") as string;
}

describe("2026-07-28: the transport's own refusals echo the exact id", () => {
  const refusals: [string, (id: string) => Request, number, number][] = [
    [
      "Mcp-Method mismatch (-32020)",
      (id) =>
        post(
          `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"t","_meta":${META}}}`,
          headers2026("tools/list", { "mcp-name": "t" }),
        ),
      ErrorCode.HeaderMismatch,
      400,
    ],
    [
      "no MCP-Protocol-Version header (-32020)",
      (id) =>
        post(`{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${META}}}`, {
          ...HEADERS,
          "mcp-method": "tools/list",
        }),
      ErrorCode.HeaderMismatch,
      400,
    ],
    [
      "header and _meta versions differ (-32020)",
      (id) =>
        post(
          `{"jsonrpc":"2.0","id":${id},"method":"tools/list","params":{"_meta":${META}}}`,
          headers2026("tools/list", { "mcp-protocol-version": "2026-07-29" }),
        ),
      ErrorCode.HeaderMismatch,
      400,
    ],
    [
      "initialize in 2026-07-28 (-32601)",
      (id) =>
        post(
          `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"_meta":${META}}}`,
          headers2026("initialize"),
        ),
      ErrorCode.MethodNotFound,
      404,
    ],
    [
      "neither a session nor a version (-32000)",
      (id) => post(`{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`, HEADERS),
      -32000,
      400,
    ],
  ];

  it.each(refusals)("%s", async (_what, request, code, status) => {
    const handle = handler();
    for (const id of IDS) {
      expect(await reply(await handle(request(id))), id).toMatchObject({ status, id, code });
    }
  });

  it("duplicate id keys: the last one, as JSON.parse reads it", async () => {
    const handle = handler();
    const cases: [string, string][] = [
      ["8", "-1e308"],
      ["8", "9007199254740993"],
      ["9007199254740993", '"last"'],
      ["8", "null"],
      ["8", "{}"],
    ];
    for (const [first, last] of cases) {
      const body = `{"jsonrpc":"2.0","id":${first},"method":"tools/list","id":${last},"params":{"_meta":${META}}}`;
      const answered = await reply(await handle(post(body, headers2026("tools/call"))));
      expect(answered.id, `${first} then ${last}`).toBe(last === "{}" ? "null" : last);
    }
  });

  it("a served request and a refused listen stream echo it too", async () => {
    const handle = handler({ maxStreams: 0 });
    const id = "-9007199254740993";
    const served = await handle(
      post(
        `{"jsonrpc":"2.0","id":8,"id":${id},"method":"tools/list","params":{"_meta":${META}}}`,
        headers2026("tools/list"),
      ),
    );
    expect(await reply(served)).toMatchObject({ status: 200, id });
    const listen = await handle(
      post(
        `{"jsonrpc":"2.0","id":${id},"method":"subscriptions/listen","params":{"_meta":${META},"notifications":{}}}`,
        headers2026("subscriptions/listen"),
      ),
    );
    expect(await reply(listen)).toMatchObject({ status: 503, id });
  });

  it("a body over the limit is a 413 with a JSON-RPC error and a null id", async () => {
    const response = await handler({ maxBodyBytes: 100 })(
      post(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/list","pad":"${"x".repeat(200)}"}`, HEADERS),
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: ErrorCode.InvalidRequest, message: "Request body over 100 bytes" },
    });
  });
});

describe("handshake era: session refusals echo the exact id", () => {
  it("an unknown session (404), a session's wrong version (400), a full server (503)", async () => {
    const handle = handler({ maxSessions: 1 });
    const session = await open(handle);
    for (const id of IDS) {
      const line = `{"jsonrpc":"2.0","id":${id},"method":"tools/list"}`;
      const unknown = await handle(post(line, { ...HEADERS, "mcp-session-id": "nope" }));
      expect(await reply(unknown), id).toMatchObject({ status: 404, id, code: -32001 });
      const version = await handle(
        post(line, { ...HEADERS, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" }),
      );
      expect(await reply(version), id).toMatchObject({ status: 400, id, code: ErrorCode.InvalidRequest });
      const full = await handle(post(`{"jsonrpc":"2.0","id":${id},"method":"initialize","params":${INIT}}`, HEADERS));
      expect(await reply(full), id).toMatchObject({ status: 503, id, code: -32000 });
      const served = await handle(post(line, { ...HEADERS, "mcp-session-id": session }));
      expect(await reply(served), id).toMatchObject({ status: 200, id });
    }
  });

  it("duplicate id keys in a session: the last one", async () => {
    const handle = handler();
    const session = await open(handle);
    const headers = { ...HEADERS, "mcp-session-id": session };
    const served = await handle(post(`{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"tools/list"}`, headers));
    expect(await reply(served)).toMatchObject({ status: 200, id: "-1e308" });
    const unknown = await handle(post(`{"jsonrpc":"2.0","id":8,"id":-1e308,"method":"nope"}`, headers));
    expect(await reply(unknown)).toMatchObject({ id: "-1e308", code: ErrorCode.MethodNotFound });
    const gone = await handle(
      post(`{"jsonrpc":"2.0","id":"a","id":9007199254740993,"method":"tools/list"}`, {
        ...headers,
        "mcp-session-id": "nope",
      }),
    );
    expect(await reply(gone)).toMatchObject({ status: 404, id: "9007199254740993" });
  });
});
