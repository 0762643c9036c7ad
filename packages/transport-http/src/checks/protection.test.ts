import { createServer, type LogEntry } from "@toolsmith/core";
import { describe, expect, it } from "vitest";
import type { HttpOptions } from "../dispatch/options.js";
import { createHttpHandler } from "../doors/http-handler.js";
import { call2026, errorMessage, headers2026, META, post, URL_ } from "../exchange/requests.test-util.js";
import { AuthError, AuthUnavailable } from "./protection.js";

// What every request passes first: Host and Origin (DNS rebinding protection), then the authenticate hook.

function handler(options: HttpOptions = {}) {
  const s = createServer({ name: "http", version: "1" });
  s.tool({ name: "whoami", description: "The caller", handler: (_args, ctx) => ctx.auth?.subject ?? "anonymous" });
  return createHttpHandler(s, options);
}

const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } };

describe("protection", () => {
  it("Origin: own and loopback origins pass, others are 403 naming allowedOrigins; an allow-list replaces that", async () => {
    const handle = handler();
    const list = (origin: string) => handle(post(LIST, { ...headers2026("tools/list"), origin }));
    expect((await list("http://127.0.0.1:3000")).status).toBe(200);
    expect((await list("http://localhost:5173")).status).toBe(200);
    const evil = await list("http://evil.example.com");
    expect(evil.status).toBe(403);
    expect(await errorMessage(evil)).toBe(
      "Origin not allowed: http://evil.example.com; set the allowedOrigins option to the origins a browser may call from",
    );
    const strict = handler({ allowedOrigins: ["https://app.example.com"] });
    const request = (origin: string) => strict(post(LIST, { ...headers2026("tools/list"), origin }));
    expect((await request("https://app.example.com")).status).toBe(200);
    expect((await request("http://localhost:5173")).status).toBe(403);
  });

  it('Host: loopback names on any port by default (DNS rebinding protection); an allow-list or "any" replaces that', async () => {
    const request = (handle: ReturnType<typeof handler>, host: string) =>
      handle(post(LIST, { ...headers2026("tools/list"), host }));
    const loopback = handler();
    for (const host of ["127.0.0.1:3000", "localhost:8080", "localhost", "127.5.6.7", "[::1]:1"]) {
      expect((await request(loopback, host)).status, host).toBe(200);
    }
    for (const host of ["evil.example", "evil.example:3000", "localhost.evil.example", "127.0.0.256", "[::2]"]) {
      const refused = await request(loopback, host);
      expect(refused.status, host).toBe(403);
      expect(await errorMessage(refused)).toContain(`Host not allowed: ${host}. Set the allowedHosts option`);
    }
    const listed = handler({ allowedHosts: ["mcp.example.com"] });
    expect((await request(listed, "mcp.example.com")).status).toBe(200);
    expect((await request(listed, "127.0.0.1:3000")).status).toBe(403);
    expect((await request(handler({ allowedHosts: "any" }), "evil.example")).status).toBe(200);
  });

  it("a hook that checks the Authorization header alone (fromAuthorization) is given it, and no Request is made", async () => {
    const heard: (string | null)[] = [];
    const hook = Object.assign(
      (): never => {
        throw new Error("the whole Request was asked for");
      },
      {
        fromAuthorization: (authorization: string | null) => {
          heard.push(authorization);
          return authorization === "Bearer alice" ? { subject: "alice", scopes: [] } : undefined;
        },
      },
    );
    const handle = handler({ authenticate: hook });
    const asAlice = await handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }));
    expect(await asAlice.json()).toMatchObject({ result: { content: [{ text: "alice" }] } });
    expect((await handle(call2026(2, "whoami", {}))).status).toBe(401);
    expect(heard).toEqual(["Bearer alice", null]);
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
    const asAlice = await handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }));
    expect(await asAlice.json()).toMatchObject({ result: { content: [{ text: "alice" }] } });
    const anonymous = await handle(call2026(1, "whoami", {}));
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe(
      // No credentials: no error code (RFC 6750 §3.1), only where to get some.
      'Bearer resource_metadata="http://127.0.0.1:3000/.well-known/oauth-protected-resource/mcp"',
    );
    const readOnly = await handle(call2026(1, "whoami", {}, { authorization: "Bearer read-only" }));
    expect(readOnly.status).toBe(403);
    expect(readOnly.headers.get("www-authenticate")).toContain('error="insufficient_scope"');
    expect(await errorMessage(readOnly)).toBe("this token cannot call tools");
    const metadata = await handle(new Request(`${new URL(URL_).origin}/.well-known/oauth-protected-resource/mcp`));
    expect(await metadata.json()).toEqual({
      resource: "http://127.0.0.1:3000/mcp",
      authorization_servers: ["https://auth.example.com"],
      bearer_methods_supported: ["header"],
      scopes_supported: ["tools"],
    });
  });

  it("an authenticate hook that throws fails the request and is heard by a server with only onError", async () => {
    const heard: unknown[] = [];
    const s = createServer({ name: "http", version: "1", onError: (error) => heard.push(error) });
    const thrown = new Error("the token service is down");
    const handle = createHttpHandler(s, {
      authenticate: () => {
        throw thrown;
      },
    });
    await expect(handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }))).rejects.toBe(thrown);
    expect(heard).toEqual([thrown]);
  });

  it("AuthUnavailable: 503 with Retry-After and a JSON-RPC error, never 401; told to the log once per outage", async () => {
    const logged: LogEntry[] = [];
    const s = createServer({ name: "http", version: "1", logger: (entry) => logged.push(entry) });
    s.tool({ name: "whoami", description: "The caller", handler: (_args, ctx) => ctx.auth?.subject ?? "anonymous" });
    let down = true;
    const handle = createHttpHandler(s, {
      // A hook that asks its provider: its answers come later (one at once is from memory, see below).
      authenticate: async () => {
        if (down) throw new AuthUnavailable("Service unavailable: the identity provider is down", 2.2);
        return { subject: "alice", scopes: [] };
      },
    });
    for (let i = 0; i < 3; i++) {
      const refused = await handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }));
      expect(refused.status).toBe(503);
      expect(refused.headers.get("retry-after")).toBe("3");
      expect(refused.headers.get("www-authenticate")).toBeNull();
      expect(await refused.json()).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: { code: -32000, message: "Service unavailable: the identity provider is down" },
      });
    }
    expect(logged).toMatchObject([{ level: "warning", message: expect.stringMatching(/identity provider is down/) }]);
    down = false;
    const served = await handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }));
    expect(await served.json()).toMatchObject({ result: { content: [{ text: "alice" }] } });
    down = true;
    expect((await handle(call2026(1, "whoami", {}, { authorization: "Bearer alice" }))).status).toBe(503);
    expect(logged).toHaveLength(2);
    expect(new AuthUnavailable("x", 0).retryAfterSeconds).toBe(1);
  });

  it("a remembered token answered at once during an outage does not end it: one warning, however the requests mix", async () => {
    const logged: LogEntry[] = [];
    const s = createServer({ name: "http", version: "1", logger: (entry) => logged.push(entry) });
    s.tool({ name: "whoami", description: "The caller", handler: (_args, ctx) => ctx.auth?.subject ?? "anonymous" });
    const remembered = { subject: "alice", scopes: [] };
    const handle = createHttpHandler(s, {
      authenticate: Object.assign(async () => undefined, {
        fromAuthorization: (authorization: string | null) => {
          if (authorization === "Bearer known") return remembered;
          throw new AuthUnavailable("Service unavailable: the identity provider is down", 5);
        },
      }),
    });
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) {
      const token = i % 2 === 0 ? "Bearer new" : "Bearer known";
      statuses.push((await handle(call2026(i, "whoami", {}, { authorization: token }))).status);
    }
    expect(statuses).toEqual([503, 200, 503, 200, 503, 200, 503, 200, 503, 200]);
    expect(logged.filter((entry) => /identity provider is down/.test(entry.message))).toHaveLength(1);
  });
});
