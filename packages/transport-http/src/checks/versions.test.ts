import { createServer, ErrorCode, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { featuresOf, HANDSHAKE_VERSIONS } from "@toolsmith/core/transport";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler } from "../doors/http-handler.js";
import { errorMessage, H, headers2026, META, openSession, post } from "../exchange/requests.test-util.js";

// Which era a POST chose, and whether its MCP-Protocol-Version agrees with its body or its session.

function handler() {
  const s = createServer({ name: "versions", version: "1" });
  s.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
  return createHttpHandler(s);
}

describe("the MCP-Protocol-Version header", () => {
  it("2026-07-28: it must be there and equal _meta's, else 400 + -32020 saying which", async () => {
    const handle = handler();
    const body = { jsonrpc: "2.0", id: 7, method: "tools/list", params: { _meta: META } };
    const { "mcp-protocol-version": _omit, ...noVersion } = headers2026("tools/list");
    const missing = await handle(post(body, noVersion));
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      id: 7,
      error: {
        code: ErrorCode.HeaderMismatch,
        message: "The MCP-Protocol-Version header is missing; it must equal _meta's",
      },
    });
    const other = await handle(post(body, { ...headers2026("tools/list"), "mcp-protocol-version": "2025-11-25" }));
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({
      id: 7,
      error: {
        code: ErrorCode.HeaderMismatch,
        message: `MCP-Protocol-Version (2025-11-25) does not match _meta (${LATEST_STATELESS_VERSION})`,
      },
    });
  });

  it("in a session: another revision than the session's is 400", async () => {
    const handle = handler();
    const session = await openSession(handle, "2025-11-25");
    const wrong = await handle(
      post(
        { jsonrpc: "2.0", id: 3, method: "tools/list" },
        { ...H, "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" },
      ),
    );
    expect(wrong.status).toBe(400);
    expect(await errorMessage(wrong)).toBe("MCP-Protocol-Version 2025-06-18 is not this session's (2025-11-25)");
  });

  it("no session, no initialize, no version: 400 naming both ways in", async () => {
    const refused = await handler()(post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, H));
    expect(refused.status).toBe(400);
    expect(await errorMessage(refused)).toMatch(/no MCP-Session-Id; a handshake-era client sends initialize first/);
  });
});

describe("batches, per the session's revision", () => {
  const batching = HANDSHAKE_VERSIONS.filter((version) => featuresOf(version).batches);

  it.each(batching)("a %s session takes batches; a batch of notifications is 202", async (version) => {
    const handle = handler();
    const headers = { ...H, "mcp-session-id": await openSession(handle, version) };
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
    const notified = await handle(
      post([{ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } }], headers),
    );
    expect(notified.status).toBe(202);
  });

  it.each(HANDSHAKE_VERSIONS.filter((version) => !batching.includes(version)))(
    "a %s session refuses a batch: 400 naming the revisions that take them",
    async (version) => {
      const handle = handler();
      const session = await openSession(handle, version);
      const refused = await handle(
        post([{ jsonrpc: "2.0", id: 1, method: "tools/list" }], { ...H, "mcp-session-id": session }),
      );
      expect(refused.status).toBe(400);
      expect(await errorMessage(refused)).toBe(
        `Invalid request: JSON-RPC batches are accepted only in a ${batching.join(", ")} session`,
      );
    },
  );
});
