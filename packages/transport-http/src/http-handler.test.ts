import { createServer, ErrorCode, MetaKey } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { HttpOptions } from "./engine.js";
import { createHttpHandler } from "./http-handler.js";
import { AuthError } from "./protection.js";

// The handler called directly with web-standard Requests: status codes, headers, sessions, streams, protection.

const URL_ = "http://127.0.0.1:3000/mcp";
const META = {
  [MetaKey.protocolVersion]: "2026-07-28",
  [MetaKey.clientCapabilities]: { elicitation: {} },
};

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
    name: "whoami",
    description: "The caller",
    handler: (_args, ctx) => ctx.auth?.subject ?? "anonymous",
  });
  s.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  s.resource({ uri: "docs://readme", handler: () => "read me" });
  return s;
}

const headers2026 = (method: string, name?: string, extra: Record<string, string> = {}) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": method,
  ...(name === undefined ? {} : { "mcp-name": name }),
  ...extra,
});

function post(body: unknown, headers: Record<string, string>): Request {
  return new Request(URL_, { method: "POST", headers, body: typeof body === "string" ? body : JSON.stringify(body) });
}

function call(id: number, name: string, args: Record<string, unknown> = {}, extra: Record<string, string> = {}) {
  return post(
    { jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args, _meta: META } },
    headers2026("tools/call", name, extra),
  );
}

async function events(response: Response): Promise<Record<string, unknown>[]> {
  const text = await response.text();
  return text
    .split("\n\n")
    .map((event) =>
      event
        .split("\n")
        .find((line) => line.startsWith("data: "))
        ?.slice(6),
    )
    .filter((data): data is string => data !== undefined && data !== "")
    .map((data) => JSON.parse(data) as Record<string, unknown>);
}

const handler = (options: HttpOptions = {}) => createHttpHandler(server(), options);

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

  it("GET and DELETE are 405; unknown methods are 404 + -32601; removed ones too", async () => {
    const handle = handler();
    expect((await handle(new Request(URL_, { method: "GET", headers: { accept: "text/event-stream" } }))).status).toBe(
      405,
    );
    expect((await handle(new Request(URL_, { method: "DELETE" }))).status).toBe(405);
    for (const method of ["nope/nothing", "ping", "initialize", "logging/setLevel"]) {
      const response = await handle(
        post({ jsonrpc: "2.0", id: 4, method, params: { _meta: META } }, headers2026(method)),
      );
      expect(response.status, method).toBe(404);
      expect(await response.json()).toMatchObject({ id: 4, error: { code: ErrorCode.MethodNotFound } });
    }
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

  it("the version header must be there and equal _meta's: else 400 + -32020", async () => {
    const handle = handler();
    const body = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: META } };
    const { "mcp-protocol-version": _omit, ...noVersion } = headers2026("tools/list");
    for (const headers of [noVersion, { ...headers2026("tools/list"), "mcp-protocol-version": "2025-11-25" }]) {
      const response = await handle(post(body, headers));
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ id: 7, error: { code: ErrorCode.HeaderMismatch } });
    }
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
      new Request(URL_, {
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

const INIT = (version = "2025-11-25", id = 1) => ({
  jsonrpc: "2.0",
  id,
  method: "initialize",
  params: { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: "c", version: "1" } },
});
const H = { "content-type": "application/json", accept: "application/json, text/event-stream" };

async function open(handle: ReturnType<typeof handler>, version = "2025-11-25") {
  const response = await handle(post(INIT(version), H));
  const session = response.headers.get("mcp-session-id") as string;
  await handle(post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...H, "mcp-session-id": session }));
  return session;
}

describe("the handshake era over HTTP: sessions", () => {
  it("initialize opens a session (visible ASCII id); requests without it are 400, with an unknown one 404", async () => {
    const handle = handler();
    const response = await handle(post(INIT(), H));
    expect(response.status).toBe(200);
    const session = response.headers.get("mcp-session-id");
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    expect((await handle(post(list, H))).status).toBe(400);
    expect((await handle(post(list, { ...H, "mcp-session-id": "nope" }))).status).toBe(404);
    expect(
      (await handle(post(list, { ...H, "mcp-session-id": session as string, "mcp-protocol-version": "2025-11-25" })))
        .status,
    ).toBe(200);
    expect(handle.sessions).toBe(1);
  });

  it("a failed initialize opens nothing; DELETE ends a session; a wrong version header is 400", async () => {
    const handle = handler();
    const failed = await handle(post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, H));
    expect(handle.sessions).toBe(0);
    expect((await failed.json()) as object).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    const session = await open(handle);
    const wrong = await handle(
      post(
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { ...H, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
      ),
    );
    expect(wrong.status).toBe(400);
    expect((await handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": session } }))).status).toBe(
      204,
    );
    expect(
      (await handle(post({ jsonrpc: "2.0", id: 4, method: "tools/list" }, { ...H, "mcp-session-id": session }))).status,
    ).toBe(404);
  });

  it("idle sessions expire", async () => {
    const handle = handler({ sessionIdleMs: 5 });
    const session = await open(handle);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(
      (await handle(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { ...H, "mcp-session-id": session }))).status,
    ).toBe(404);
  });

  it("the server's question goes on the call's SSE stream; the answer POSTed back is 202; the call completes there", async () => {
    const handle = handler();
    const session = await open(handle);
    const headers = { ...H, "mcp-session-id": session };
    const response = await handle(
      post({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "ask" } }, headers),
    );
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = "";
    while (!text.includes("elicitation/create")) text += decoder.decode((await reader.read()).value);
    // 2025-11-25: the stream opens with a priming event (an id, empty data).
    expect(text.startsWith("id: ")).toBe(true);
    const request = JSON.parse(text.slice(text.indexOf("data: {") + 6).split("\n")[0] as string) as { id: number };
    const answered = await handle(
      post({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { ok: true } } }, headers),
    );
    expect(answered.status).toBe(202);
    while (!text.includes('"id":5')) text += decoder.decode((await reader.read()).value);
    expect(text).toContain('"text":"accept"');
  });

  it("a lost stream is resumed with Last-Event-ID on GET: later events replayed, then the rest live", async () => {
    const handle = handler();
    const session = await open(handle);
    const headers = { ...H, "mcp-session-id": session };
    const response = await handle(
      post({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "ask" } }, headers),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const primed = /^id: (\d+)/.exec(first)?.[1] as string;
    await reader.cancel(); // the client lost the stream before the question
    const resumed = await handle(
      new Request(URL_, {
        method: "GET",
        headers: { accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed },
      }),
    );
    expect(resumed.status).toBe(200);
    const again = (resumed.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("elicitation/create")) text += new TextDecoder().decode((await again.read()).value);
    const request = JSON.parse(text.slice(text.indexOf("data: {") + 6).split("\n")[0] as string) as { id: number };
    await handle(
      post({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { ok: true } } }, headers),
    );
    while (!text.includes('"id":6')) {
      const { value, done } = await again.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text).toContain('"text":"accept"');
  });

  it("the GET stream carries what belongs to no request (list changes); one GET per session", async () => {
    const s = server();
    const handle = createHttpHandler(s);
    const session = await open(handle);
    const get = () =>
      handle(new Request(URL_, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": session } }));
    const stream = await get();
    expect(stream.status).toBe(200);
    expect((await get()).status).toBe(409);
    s.registered("tool", "add")?.disable();
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("list_changed")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("notifications/tools/list_changed");
    await reader.cancel();
  });

  it("2025-03-26 sessions take batches; a batch of notifications is 202", async () => {
    const handle = handler();
    const session = await open(handle, "2025-03-26");
    const headers = { ...H, "mcp-session-id": session };
    const response = await handle(
      post(
        [
          { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } },
          { jsonrpc: "2.0", id: 2, method: "tools/list" },
        ],
        headers,
      ),
    );
    const replies = (await response.json()) as { id: number }[];
    expect(replies.map((reply) => reply.id)).toEqual([1, 2]);
    expect(
      (await handle(post([{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }], headers)))
        .status,
    ).toBe(202);
    const other = await open(handle, "2025-11-25");
    expect(
      (await handle(post([{ jsonrpc: "2.0", id: 1, method: "tools/list" }], { ...H, "mcp-session-id": other }))).status,
    ).toBe(400);
  });
});

describe("protection", () => {
  it("Origin: own and loopback origins pass, others are 403; an allow-list replaces that", async () => {
    const handle = handler();
    const list = (origin: string) =>
      handle(
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } },
          { ...headers2026("tools/list"), origin },
        ),
      );
    expect((await list("http://127.0.0.1:3000")).status).toBe(200);
    expect((await list("http://localhost:5173")).status).toBe(200);
    expect((await list("http://evil.example.com")).status).toBe(403);
    const strict = handler({ allowedOrigins: ["https://app.example.com"] });
    const request = (origin: string) =>
      strict(
        post(
          { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } },
          { ...headers2026("tools/list"), origin },
        ),
      );
    expect((await request("https://app.example.com")).status).toBe(200);
    expect((await request("http://localhost:5173")).status).toBe(403);
  });

  it('Host: loopback names on any port by default (DNS rebinding protection); an allow-list or "any" replaces that', async () => {
    const request = (handle: ReturnType<typeof handler>, host: string | undefined, url = URL_) =>
      handle(
        new Request(url, {
          method: "POST",
          headers: { ...headers2026("tools/list"), ...(host === undefined ? {} : { host }) },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } }),
        }),
      );
    const loopback = handler();
    for (const host of ["127.0.0.1:3000", "localhost:8080", "localhost", "127.5.6.7", "[::1]:1", undefined]) {
      expect((await request(loopback, host)).status, host).toBe(200);
    }
    for (const host of ["evil.example", "evil.example:3000", "localhost.evil.example", "127.0.0.256", "[::2]"]) {
      const refused = await request(loopback, host);
      expect(refused.status, host).toBe(403);
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/allowedHosts/);
    }
    // No Host header: the URL's host is the one addressed.
    expect((await request(loopback, undefined, "http://evil.example/mcp")).status).toBe(403);
    const listed = handler({ allowedHosts: ["mcp.example.com"] });
    expect((await request(listed, "mcp.example.com")).status).toBe(200);
    expect((await request(listed, "127.0.0.1:3000")).status).toBe(403);
    expect((await request(handler({ allowedHosts: "any" }), "evil.example")).status).toBe(200);
  });

  it("content type 415, Accept 406, body size 413, other verbs 405, other paths 404", async () => {
    const handle = handler({ maxBodyBytes: 1000 });
    const body = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };
    expect((await handle(post(body, { ...headers2026("tools/list"), "content-type": "text/plain" }))).status).toBe(415);
    expect((await handle(post(body, { ...headers2026("tools/list"), accept: "application/json" }))).status).toBe(406);
    expect(
      (await handle(post({ ...body, params: { ...body.params, junk: "x".repeat(2000) } }, headers2026("tools/list"))))
        .status,
    ).toBe(413);
    expect((await handle(new Request(URL_, { method: "PUT", body: "{}" }))).status).toBe(405);
    expect(
      (
        await handle(
          new Request("http://127.0.0.1:3000/other", {
            method: "POST",
            headers: headers2026("tools/list"),
            body: "{}",
          }),
        )
      ).status,
    ).toBe(404);
    const broken = await handle(post("{not json", headers2026("tools/list")));
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ error: { code: ErrorCode.ParseError } });
  });

  it("authenticate: the principal reaches ctx.auth; none is 401 with WWW-Authenticate and the metadata URL; AuthError 403", async () => {
    const handle = handler({
      authenticate: (request) => {
        const token = request.headers.get("authorization");
        if (token === "Bearer read-only") throw new AuthError(403, "this token cannot call tools");
        return token === "Bearer alice" ? { subject: "alice", scopes: ["tools"] } : undefined;
      },
      resourceMetadata: { authorizationServers: ["https://auth.example.com"], scopesSupported: ["tools"] },
    });
    const asAlice = await handle(call(1, "whoami", {}, { authorization: "Bearer alice" }));
    expect(await asAlice.json()).toMatchObject({ result: { content: [{ text: "alice" }] } });
    const anonymous = await handle(call(1, "whoami"));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(
      'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="Unauthorized"',
    );
    const readOnly = await handle(call(1, "whoami", {}, { authorization: "Bearer read-only" }));
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    const metadata = await handle(new Request("http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"));
    expect(await metadata.json()).toEqual({
      resource: "http://127.0.0.1:3000/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["tools"],
    });
  });

  it("a session belongs to its principal: another caller's use of its id is 404", async () => {
    const handle = handler({
      authenticate: (request) => {
        const who = request.headers.get("authorization")?.slice(7);
        return who ? { subject: who, scopes: [] } : undefined;
      },
    });
    const opened = await handle(post(INIT(), { ...H, authorization: "Bearer alice" }));
    const session = opened.headers.get("mcp-session-id") as string;
    const list = { jsonrpc: "2.0", id: 2, method: "tools/list" };
    expect((await handle(post(list, { ...H, authorization: "Bearer alice", "mcp-session-id": session }))).status).toBe(
      200,
    );
    expect(
      (await handle(post(list, { ...H, authorization: "Bearer mallory", "mcp-session-id": session }))).status,
    ).toBe(404);
  });

  it("sessions and long-lived streams are bounded: 503 past the limit", async () => {
    const handle = handler({ maxSessions: 1, maxStreams: 1 });
    const session = await open(handle);
    expect((await handle(post(INIT(), H))).status).toBe(503);
    const get = () =>
      handle(new Request(URL_, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": session } }));
    const first = await get();
    expect(first.status).toBe(200);
    const listen = await handle(
      post(
        { jsonrpc: "2.0", id: 3, method: "subscriptions/listen", params: { _meta: META, notifications: {} } },
        headers2026("subscriptions/listen"),
      ),
    );
    expect(listen.status).toBe(503);
    await first.body?.cancel();
  });
});
