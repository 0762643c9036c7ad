import { createServer, ErrorCode, LATEST_HANDSHAKE_VERSION } from "@toolsmith/core";
import { afterEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { errorMessage, get, H, initialize, openSession, post, URL_ } from "../exchange/requests.test-util.js";

// The handshake era over HTTP: initialize opens a session; POSTs, a GET stream and DELETE use it.

function server() {
  const s = createServer({ name: "http", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  s.tool({
    name: "ask",
    description: "Asks the user",
    handler: async (_args, ctx) => (await ctx.elicit({ message: "ok?", schema: { ok: z.boolean() } })).action,
  });
  return s;
}

const handler = (options: HttpOptions = {}) => createHttpHandler(server(), options);
const LIST = { jsonrpc: "2.0", id: 2, method: "tools/list" };

afterEach(() => {
  vi.useRealTimers();
});

describe("the handshake era over HTTP: sessions", () => {
  it("initialize opens a session (visible ASCII id); requests without it are 400, with an unknown one 404", async () => {
    const handle = handler();
    const response = await handle(post(initialize(), H));
    expect(response.status).toBe(200);
    const session = response.headers.get("mcp-session-id");
    expect(session).toMatch(/^[\x21-\x7e]+$/);
    expect(await response.json()).toMatchObject({ id: 1, result: { protocolVersion: LATEST_HANDSHAKE_VERSION } });
    expect((await handle(post(LIST, H))).status).toBe(400);
    const unknown = await handle(post(LIST, { ...H, "mcp-session-id": "nope" }));
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      id: 2,
      error: {
        code: ErrorCode.SessionNotFound,
        message: "Session not found: it ended or expired; send initialize to start a new one",
      },
    });
    expect(
      (
        await handle(
          post(LIST, { ...H, "mcp-session-id": session as string, "mcp-protocol-version": LATEST_HANDSHAKE_VERSION }),
        )
      ).status,
    ).toBe(200);
    expect(handle.sessions).toBe(1);
  });

  it("a failed initialize opens nothing; DELETE ends a session", async () => {
    const handle = handler();
    const failed = await handle(post({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} }, H));
    expect(handle.sessions).toBe(0);
    expect((await failed.json()) as object).toMatchObject({ error: { code: ErrorCode.InvalidParams } });
    const session = await openSession(handle);
    expect((await handle(new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": session } }))).status).toBe(
      204,
    );
    expect(handle.sessions).toBe(0);
    expect((await handle(post(LIST, { ...H, "mcp-session-id": session }))).status).toBe(404);
  });

  it("GET and DELETE without a session are 405 allowing POST; a GET naming a handshake revision is 400", async () => {
    const handle = handler();
    const stream = await handle(get({ accept: "text/event-stream" }));
    expect(stream.status).toBe(405);
    expect(stream.headers.get("allow")).toBe("POST");
    expect((await handle(new Request(URL_, { method: "DELETE" }))).status).toBe(405);
    const early = await handle(get({ accept: "text/event-stream", "mcp-protocol-version": "2025-11-25" }));
    expect(early.status).toBe(400);
    expect(await errorMessage(early)).toBe("Bad Request: no MCP-Session-Id; send initialize first");
  });

  it("idle sessions expire", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    const handle = handler({ sessionIdleMs: 60_000 });
    const session = await openSession(handle);
    vi.setSystemTime(Date.now() + 61_000);
    expect((await handle(post(LIST, { ...H, "mcp-session-id": session }))).status).toBe(404);
  });

  it("a session belongs to its principal: another caller's use of its id is 404", async () => {
    const handle = handler({
      authenticate: (request) => {
        const who = request.headers.get("authorization")?.slice(7);
        return who ? { subject: who, scopes: [] } : undefined;
      },
    });
    const opened = await handle(post(initialize(), { ...H, authorization: "Bearer alice" }));
    const session = opened.headers.get("mcp-session-id") as string;
    expect((await handle(post(LIST, { ...H, authorization: "Bearer alice", "mcp-session-id": session }))).status).toBe(
      200,
    );
    expect(
      (await handle(post(LIST, { ...H, authorization: "Bearer mallory", "mcp-session-id": session }))).status,
    ).toBe(404);
  });

  it("sessions are bounded: initialize past maxSessions is 503", async () => {
    const handle = handler({ maxSessions: 1 });
    await openSession(handle);
    const refused = await handle(post(initialize(), H));
    expect(refused.status).toBe(503);
    expect(await errorMessage(refused)).toBe("Too many open sessions; try again later");
  });

  it("the server's question goes on the call's SSE stream; the answer POSTed back is 202; the call completes there", async () => {
    const handle = handler();
    const session = await openSession(handle);
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

  it("eventBufferSize bounds the events kept per session when the server has no engine of its own", async () => {
    const handle = handler({ eventBufferSize: 2 });
    const session = await openSession(handle);
    const headers = { ...H, "mcp-session-id": session };
    const response = await handle(
      post({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "ask" } }, headers),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("elicitation/create")) text += new TextDecoder().decode((await reader.read()).value);
    const primed = /^id: (\S+)/.exec(text)?.[1] as string;
    const request = JSON.parse(text.slice(text.indexOf("data: {") + 6).split("\n")[0] as string) as { id: number };
    await handle(
      post({ jsonrpc: "2.0", id: request.id, result: { action: "accept", content: { ok: true } } }, headers),
    );
    while (!text.includes('"id":7')) text += new TextDecoder().decode((await reader.read()).value);
    // Three events (priming, question, answer) and two kept: the priming event's id is no longer one to resume from.
    const resumed = await handle(
      get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed }),
    );
    expect(resumed.status).toBe(400);
  });

  it("a lost stream is resumed with Last-Event-ID on GET: later events replayed, then the rest live", async () => {
    const handle = handler();
    const session = await openSession(handle);
    const headers = { ...H, "mcp-session-id": session };
    const response = await handle(
      post({ jsonrpc: "2.0", id: 6, method: "tools/call", params: { name: "ask" } }, headers),
    );
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const primed = /^id: (\d+)/.exec(first)?.[1] as string;
    await reader.cancel(); // the client lost the stream before the question
    const resumed = await handle(
      get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": primed }),
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
    const unknown = await handle(get({ accept: "text/event-stream", "mcp-session-id": session, "last-event-id": "x" }));
    expect(unknown.status).toBe(400);
    expect(await errorMessage(unknown)).toBe("Unknown Last-Event-ID: x");
  });

  it("the GET stream carries what belongs to no request (list changes); one GET per session", async () => {
    const s = server();
    const handle = createHttpHandler(s);
    const session = await openSession(handle);
    const stream = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(stream.status).toBe(200);
    const second = await handle(get({ accept: "text/event-stream", "mcp-session-id": session }));
    expect(second.status).toBe(409);
    expect(await errorMessage(second)).toBe("This session already has a GET stream open");
    s.registered("tool", "add")?.disable();
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let text = "";
    while (!text.includes("list_changed")) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toContain("notifications/tools/list_changed");
    await reader.cancel();
  });
});
