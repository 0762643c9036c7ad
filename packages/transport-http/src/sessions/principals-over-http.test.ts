import { type AuthInfo, createServer, LATEST_HANDSHAKE_VERSION, type LogEntry } from "@toolsmith/core";
import type { SessionRecord } from "@toolsmith/core/engine";
import { describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { createHttpHandler } from "../doors/http-handler.js";
import { call2026, H, initialize, post, replyOf, URL_ } from "../exchange/requests.test-util.js";
import { ownedBy } from "./http-session.js";

// Binding never succeeds on an absent identity: a principal without a subject gets nothing (401), and a
// requestState is usable only by the caller it was issued to.

const KEY = "a test key of more than sixteen bytes";
const yes = { ok: { action: "accept", content: { ok: true } } };

function app(logged: LogEntry[] = []) {
  const server = createServer({ name: "bound", version: "1", stateKey: KEY, logger: (entry) => logged.push(entry) });
  const runs: string[] = [];
  server.tool({
    name: "transfer",
    description: "Asks first",
    handler: async (_args, ctx) => {
      runs.push(ctx.auth?.subject ?? "anonymous");
      return (await ctx.elicit({ key: "ok", message: "Sure?", schema: { ok: z.boolean() } })).action;
    },
  });
  return { server, runs };
}

const SUBJECTLESS = [
  ["{}", {}],
  ['{ subject: "" }', { subject: "" }],
  ['{ subject: "  " } (white space only)', { subject: "  " }],
  ["{ subject: undefined, scopes }", { subject: undefined, scopes: ["admin"] }],
] as unknown as [string, AuthInfo][];

describe.each(SUBJECTLESS)("authenticate returns a principal without a subject: %s", (_name, principal) => {
  it("every request is 401 naming the authenticate hook, told to the server's logger once", async () => {
    const logged: LogEntry[] = [];
    const { server, runs } = app(logged);
    const handle = createHttpHandler(server, { authenticate: () => principal });
    const requests = [
      post(initialize(), H),
      post(initialize(), { ...H, authorization: "Bearer other" }),
      call2026(1, "transfer", {}),
      new Request(URL_, { method: "GET", headers: { accept: "text/event-stream", "mcp-session-id": "x" } }),
      new Request(URL_, { method: "DELETE", headers: { "mcp-session-id": "x" } }),
    ];
    for (const request of requests) {
      const response = await handle(request);
      expect(response.status).toBe(401);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(/authenticate/);
      expect(response.headers.get("www-authenticate")).toMatch(/authenticate hook/);
    }
    expect(handle.sessions).toBe(0);
    expect(runs).toEqual([]);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: "error", message: expect.stringMatching(/authenticate hook/) });
  });
});

describe("sessions and requestState over HTTP are bound to the subject", () => {
  it("two callers without a subject cannot share a session: neither gets one", async () => {
    const { server } = app();
    const handle = createHttpHandler(server, { authenticate: () => ({ scopes: [] }) as unknown as AuthInfo });
    const opened = await handle(post(initialize(), H));
    expect(opened.status).toBe(401);
    expect(opened.headers.get("mcp-session-id")).toBeNull();
    expect(handle.sessions).toBe(0);
  });

  it("a session opened without authentication is owned by no principal, and one without a subject owns nothing", () => {
    const record = (principal: SessionRecord["principal"]): SessionRecord => ({
      id: "a",
      principal,
      caller: undefined,
      version: LATEST_HANDSHAKE_VERSION,
      clientInfo: { name: "c", version: "1" },
      clientCapabilities: {},
      initialized: true,
      logLevel: undefined,
    });
    const anonymous = record(undefined);
    expect(ownedBy(anonymous, undefined)).toBe(true);
    expect(ownedBy(anonymous, { subject: "alice", scopes: [] })).toBe(false);
    expect(ownedBy(anonymous, { scopes: [] } as unknown as AuthInfo)).toBe(false);
    const alice = record({ subject: "alice", scopes: [] });
    expect(ownedBy(alice, { subject: "alice", scopes: [] })).toBe(true);
    expect(ownedBy(alice, { subject: "bob", scopes: [] })).toBe(false);
    expect(ownedBy(alice, undefined)).toBe(false);
  });

  it("a requestState minted for alice is refused for bob and for an anonymous caller; one minted anonymously for alice", async () => {
    const { server, runs } = app();
    const authenticated = createHttpHandler(server, {
      authenticate: (request) => {
        const who = request.headers.get("authorization")?.slice(7);
        return who ? { subject: who, scopes: [] } : undefined;
      },
    });
    const open = createHttpHandler(server);
    const as = (who: string) => ({ authorization: `Bearer ${who}` });
    const stateOf = async (response: Response) =>
      ((await replyOf(response)).result as { requestState: string }).requestState;
    const forAlice = await stateOf(await authenticated(call2026(1, "transfer", {}, as("alice"))));
    const anonymous = await stateOf(await open(call2026(2, "transfer", {})));
    const refusals = [
      await authenticated(call2026(3, "transfer", { inputResponses: yes, requestState: forAlice }, as("bob"))),
      await open(call2026(4, "transfer", { inputResponses: yes, requestState: forAlice })),
      await authenticated(call2026(5, "transfer", { inputResponses: yes, requestState: anonymous }, as("alice"))),
    ];
    for (const response of refusals) {
      expect(response.status).toBe(400);
      expect(await replyOf(response)).toMatchObject({ error: { message: expect.stringMatching(/another caller/) } });
    }
    expect(runs).toEqual(["alice", "anonymous"]);
    const done = await authenticated(
      call2026(6, "transfer", { inputResponses: yes, requestState: forAlice }, as("alice")),
    );
    expect(await replyOf(done)).toMatchObject({ result: { content: [{ text: "accept" }] } });
  });

  it("a session's live connection holds no credentials: each request's context has its own caller's", async () => {
    const server = createServer({ name: "tokens", version: "1" });
    server.tool({ name: "token", description: "Its caller's token", handler: (_args, ctx) => String(ctx.auth?.token) });
    const made: unknown[] = [];
    const connect = server.connect.bind(server);
    vi.spyOn(server, "connect").mockImplementation((options) => {
      made.push(options.auth);
      return connect(options);
    });
    const handle = createHttpHandler(server, {
      authenticate: (request) => ({ subject: "alice", scopes: [], token: request.headers.get("authorization") }),
    });
    const opened = await handle(post(initialize(), { ...H, authorization: "Bearer first" }));
    const headers = { ...H, "mcp-session-id": opened.headers.get("mcp-session-id") as string };
    await handle(
      post({ jsonrpc: "2.0", method: "notifications/initialized" }, { ...headers, authorization: "Bearer a" }),
    );
    const call = { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "token", arguments: {} } };
    const called = await handle(post(call, { ...headers, authorization: "Bearer second" }));
    expect(await replyOf(called)).toMatchObject({ result: { content: [{ text: "Bearer second" }] } });
    expect(made).toEqual([undefined]);
  });
});
