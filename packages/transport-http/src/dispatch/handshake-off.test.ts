import { createServer, ErrorCode, LATEST_HANDSHAKE_VERSION, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { HANDSHAKE_VERSIONS, STATELESS_VERSIONS } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { createHttpHandler } from "../doors/http-handler.js";
import { get, H, headers2026, initialize, META, openSession, post, URL_ } from "../exchange/requests.test-util.js";

// `handshake: false`, a server that keeps no sessions (a Worker): 2026-07-28 served, the handshake era told what is.

function handler(handshake?: boolean) {
  const server = createServer({ name: "stateless-only", version: "1" });
  server.tool({ name: "t", description: "t", handler: () => "ok" });
  return createHttpHandler(server, handshake === undefined ? {} : { handshake });
}

const LIST = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: META } };

describe("handshake: false", () => {
  it("answers initialize 400 with -32022, the request's id, the versions served and the one asked for", async () => {
    const handle = handler(false);
    const response = await handle(post(initialize(5), H));
    expect(response.status).toBe(400);
    const reply = (await response.json()) as { id: unknown; error: { code: number; message: string; data: unknown } };
    expect(reply.id).toBe(5);
    expect(reply.error.code).toBe(ErrorCode.UnsupportedProtocolVersion);
    expect(reply.error.message).toContain(LATEST_STATELESS_VERSION);
    expect(reply.error.data).toEqual({ supported: [...STATELESS_VERSIONS], requested: LATEST_HANDSHAKE_VERSION });
    expect(handle.sessions).toBe(0);
  });

  it("still serves 2026-07-28, and ignores an MCP-Session-Id on it", async () => {
    const handle = handler(false);
    const plain = await handle(post(LIST, headers2026("tools/list")));
    expect(plain.status).toBe(200);
    const withId = await handle(post(LIST, headers2026("tools/list", undefined, { "mcp-session-id": "abc" })));
    expect(withId.status).toBe(200);
    expect(await withId.json()).toMatchObject({ id: 7, result: { tools: [{ name: "t" }] } });
  });

  it("answers a session's request the same 400, naming the version its header asked for", async () => {
    const handle = handler(false);
    const headers = { ...H, "mcp-session-id": "abc", "mcp-protocol-version": LATEST_HANDSHAKE_VERSION };
    const response = await handle(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers));
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      id: 2,
      error: { code: ErrorCode.UnsupportedProtocolVersion, data: { requested: LATEST_HANDSHAKE_VERSION } },
    });
  });

  it("answers GET and DELETE 405, allowing POST", async () => {
    const handle = handler(false);
    for (const request of [get(H), new Request(URL_, { method: "DELETE", headers: H })]) {
      const response = await handle(request);
      expect(response.status).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
    }
  });

  it("server/discover names the stateless versions alone (both eras' by default)", async () => {
    const discover = { jsonrpc: "2.0", id: 3, method: "server/discover", params: { _meta: META } };
    const versions = async (handle: ReturnType<typeof handler>) => {
      const reply = (await (await handle(post(discover, headers2026("server/discover")))).json()) as {
        result: { supportedVersions: string[] };
      };
      return reply.result.supportedVersions;
    };
    expect(await versions(handler(false))).toEqual([...STATELESS_VERSIONS]);
    expect(await versions(handler())).toEqual([...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS]);
  });

  it("a request naming a version not served gets -32022 listing the stateless versions alone", async () => {
    const meta = { ...META, "io.modelcontextprotocol/protocolVersion": LATEST_HANDSHAKE_VERSION };
    const headers = { ...headers2026("tools/list"), "mcp-protocol-version": LATEST_HANDSHAKE_VERSION };
    const list = { jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: meta } };
    const refused = await (await handler(false)(post(list, headers))).json();
    expect(refused).toMatchObject({ id: 4, error: { code: ErrorCode.UnsupportedProtocolVersion } });
    expect((refused as { error: { data: unknown } }).error.data).toEqual({
      supported: [...STATELESS_VERSIONS],
      requested: LATEST_HANDSHAKE_VERSION,
    });
    const asBefore = (await (await handler()(post(list, headers))).json()) as {
      error: { data: { supported: unknown } };
    };
    expect(asBefore.error.data.supported).toEqual([...STATELESS_VERSIONS, ...HANDSHAKE_VERSIONS]);
  });

  it("is off by default: initialize opens a session", async () => {
    const handle = handler();
    await openSession(handle);
    expect(handle.sessions).toBe(1);
    handle.close();
  });
});
