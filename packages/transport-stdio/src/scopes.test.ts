import { createServer } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { expect, it } from "vitest";
import { serveLines } from "./in-process.test-util.js";

// Over stdio there is no token: the peer is the local user who started the process, so it holds every scope
// (docs/decisions/0008-scopes.md), and the same server class serves a local host and a remote one.

const META = { [MetaKey.protocolVersion]: "2026-07-28", [MetaKey.clientCapabilities]: {} };
const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
};

// Serve `lines` to the end and return every reply written to stdout.
async function serve(lines: readonly unknown[]): Promise<Record<string, unknown>[]> {
  const s = createServer({ name: "files", version: "1", scopes: ["mcp"] });
  s.tool({ name: "write", description: "Write", scopes: ["files:write"], handler: () => "written" });
  s.prompt({ name: "review", scopes: ["review"], handler: () => "review" });
  const written = await serveLines(
    s,
    lines.map((line) => JSON.stringify(line)),
  );
  return written.map((line) => JSON.parse(line) as Record<string, unknown>);
}

it("2026-07-28: a tool and a prompt with scopes, on a server with its own, are served to the local user", async () => {
  const replies = await serve([
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write", arguments: {}, _meta: META } },
    { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: "review", _meta: META } },
  ]);
  expect(replies).toEqual([
    expect.objectContaining({
      id: 1,
      result: expect.objectContaining({ content: [{ type: "text", text: "written" }] }),
    }),
    expect.objectContaining({ id: 2, result: expect.objectContaining({ messages: [expect.anything()] }) }),
  ]);
});

it("handshake era: initialize and a scoped tool are served to the local user", async () => {
  const replies = await serve([
    INITIALIZE,
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "write", arguments: {} } },
  ]);
  expect(replies.map((reply) => "result" in reply)).toEqual([true, true]);
  expect(replies[1]).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "written" }] } });
});
