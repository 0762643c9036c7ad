import { createServer, ErrorCode, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler } from "../doors/http-handler.js";
import { errorMessage, events, headers2026, META, post } from "../exchange/requests.test-util.js";

// 2026-07-28 over HTTP: every POST stands alone, answered as JSON or as a stream of its own.

function server() {
  const s = createServer({ name: "http", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  s.tool({
    name: "steps",
    description: "Reports progress",
    handler: (_args, ctx) => {
      ctx.progress(1, 2);
      ctx.progress(2, 2);
      return "done";
    },
  });
  s.tool({
    name: "route",
    description: "A header-mirrored argument",
    input: { region: z.string().meta({ "x-mcp-header": "Region" }), note: z.string().optional() },
    handler: ({ region }) => region,
  });
  s.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  return s;
}

function call(id: number, name: string, args: Record<string, unknown> = {}, extra: Record<string, string> = {}) {
  return post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } },
    headers2026("tools/call", name, extra),
  );
}

const handler = () => createHttpHandler(server());

describe("2026-07-28 over HTTP", () => {
  it("a request is answered with plain JSON; a notification with 202 and no body", async () => {
    const handle = handler();
    const response = await handle(call(1, "add", { a: 2, b: 3 }));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(await response.json()).toMatchObject({
      id: 1,
      result: { content: [{ text: "5" }], resultType: "complete" },
    });
    const notified = await handle(
      post(
        { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 9, _meta: META } },
        headers2026("notifications/cancelled"),
      ),
    );
    expect(notified.status).toBe(202);
    expect(await notified.text()).toBe("");
  });

  it("progress turns the reply into a request-scoped SSE stream that ends with the response", async () => {
    const response = await handler()(
      post(
        {
          jsonrpc: "2.0",
          id: 2,
          method: "tools/call",
          params: { name: "steps", _meta: { ...META, progressToken: "p" } },
        },
        headers2026("tools/call", "steps"),
      ),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("x-accel-buffering")).toBe("no");
    const sent = await events(response);
    expect(sent.map((message) => message.method ?? `reply ${String(message.id)}`)).toEqual([
      "notifications/progress",
      "notifications/progress",
      "reply 2",
    ]);
  });

  it("input_required, never a request to the client, on the stream", async () => {
    const response = await handler()(call(3, "ask"));
    const body = (await response.json()) as { result: Record<string, unknown> };
    expect(body.result.resultType).toBe("input_required");
  });

  it("unknown methods are 404 + -32601; removed ones too, initialize by the transport itself", async () => {
    const handle = handler();
    for (const method of ["nope/nothing", "ping", "initialize", "logging/setLevel"]) {
      const response = await handle(
        post({ jsonrpc: "2.0", id: 4, method, params: { _meta: META } }, headers2026(method)),
      );
      expect(response.status, method).toBe(404);
      expect(await response.json()).toMatchObject({ id: 4, error: { code: ErrorCode.MethodNotFound } });
    }
    const initialize = await handle(
      post({ jsonrpc: "2.0", id: 5, method: "initialize", params: { _meta: META } }, headers2026("initialize")),
    );
    expect(await errorMessage(initialize)).toBe(
      `Method not found: initialize (removed in protocol revision ${LATEST_STATELESS_VERSION})`,
    );
    expect(handle.sessions).toBe(0);
  });

  it("the era its MCP-Protocol-Version header chose is the one it is served in, _meta or not", async () => {
    const handle = handler();
    // Served as the 2026-07-28 request it says it is: a method it does not have (ping, which it removed, or an unknown
    // one) is not found before _meta is looked at, and any other requires _meta.
    for (const method of ["ping", "nope/nothing", "logging/setLevel"]) {
      const missing = await handle(post({ jsonrpc: "2.0", id: 1, method }, headers2026(method)));
      expect(missing.status, method).toBe(404);
      expect(await missing.json()).toMatchObject({ id: 1, error: { code: ErrorCode.MethodNotFound } });
    }
    const list = await handle(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers2026("tools/list")));
    expect(list.status).toBe(400);
    expect(await errorMessage(list)).toBe(
      `Missing params._meta["${MetaKey.protocolVersion}"]: every ${LATEST_STATELESS_VERSION} request must carry it`,
    );
  });

  it("a batch, or anything but one request or notification, is 400 + -32600", async () => {
    const response = await handler()(
      post([{ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }], headers2026("tools/list")),
    );
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: {
        code: ErrorCode.InvalidRequest,
        message: "Invalid request: one JSON-RPC request or notification per POST",
      },
    });
  });

  it("_meta errors are 400 + -32602; an unsupported version 400 + -32022", async () => {
    const handle = handler();
    const missing = await handle(
      post(
        { jsonrpc: "2.0", id: 5, method: "tools/list", params: { _meta: { [MetaKey.protocolVersion]: "2026-07-28" } } },
        headers2026("tools/list"),
      ),
    );
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ id: 5, error: { code: ErrorCode.InvalidParams } });
    const future = { [MetaKey.protocolVersion]: "v999", [MetaKey.clientCapabilities]: {} };
    const unsupported = await handle(
      post(
        { jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: future } },
        { ...headers2026("tools/list"), "mcp-protocol-version": "v999" },
      ),
    );
    expect(unsupported.status).toBe(400);
    expect(await unsupported.json()).toMatchObject({ id: 6, error: { code: ErrorCode.UnsupportedProtocolVersion } });
  });

  it("Mcp-Method, Mcp-Name and Mcp-Param-* must agree with the body: else 400 + -32020", async () => {
    const handle = handler();
    const refused = async (request: Request, why: RegExp) => {
      const response = await handle(request);
      expect(response.status).toBe(400);
      const body = (await response.json()) as { error: { code: number; message: string } };
      expect(body.error.code).toBe(ErrorCode.HeaderMismatch);
      expect(body.error.message).toMatch(why);
    };
    await refused(call(8, "add", { a: 1, b: 1 }, { "mcp-method": "tools/list" }), /Mcp-Method/);
    await refused(call(8, "add", { a: 1, b: 1 }, { "mcp-name": "other" }), /Mcp-Name/);
    await refused(call(8, "route", { region: "eu" }), /Mcp-Param-region header is missing/);
    await refused(call(8, "route", { region: "eu" }, { "mcp-param-region": "us" }), /does not match/);
    const ok = await handle(call(8, "route", { region: "eu" }, { "mcp-param-region": "eu" }));
    expect(await ok.json()).toMatchObject({ result: { content: [{ text: "eu" }] } });
    // Non-ASCII values travel base64-encoded.
    const encoded = `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode("zürich")))}?=`;
    const wide = await handle(call(8, "route", { region: "zürich" }, { "mcp-param-region": encoded }));
    expect(await wide.json()).toMatchObject({ result: { content: [{ text: "zürich" }] } });
  });

  it("subscriptions/listen is a long-lived SSE stream, acknowledged first, ended by the client", async () => {
    const s = server();
    const handle = createHttpHandler(s);
    const aborted = new AbortController();
    const response = await handle(
      new Request("http://127.0.0.1:3000/mcp", {
        method: "POST",
        headers: headers2026("subscriptions/listen"),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 10,
          method: "subscriptions/listen",
          params: { _meta: META, notifications: { toolsListChanged: true } },
        }),
        signal: aborted.signal,
      }),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const next = async () => {
      const { value } = await reader.read();
      return JSON.parse(decoder.decode(value).split("data: ")[1] as string) as Record<string, unknown>;
    };
    expect((await next()).method).toBe("notifications/subscriptions/acknowledged");
    s.registered("tool", "add")?.disable();
    expect(await next()).toMatchObject({
      method: "notifications/tools/list_changed",
      params: { _meta: { [MetaKey.subscriptionId]: 10 } },
    });
    await reader.cancel();
  });
});
