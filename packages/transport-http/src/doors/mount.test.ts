import { createServer as createNodeServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer } from "@toolsmith/core";
import { Hono } from "hono";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { createHttpHandler, type HttpHandler, nodeListener } from "../index.js";

// One server, mounted two ways (node:http through nodeListener, Hono through the raw Request), driven by the
// official client in both eras: a tool that reports progress and asks the user.
function createFixture() {
  const server = createServer({ name: "mount-fixture", version: "1.0.0" });
  server.tool({
    name: "order",
    description: "Order an item once the user confirms.",
    input: { item: z.string() },
    handler: async ({ item }, ctx) => {
      ctx.progress(1, 2, "asking");
      const answer = await ctx.elicit({ message: `Order ${item}?`, schema: { quantity: z.number().int() } });
      ctx.progress(2, 2, "answered");
      return answer.action === "accept" ? `ordered ${answer.content.quantity} × ${item}` : "not ordered";
    },
  });
  return server;
}

function listening(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`));
  });
}

interface Mounted {
  url: string;
  handler: HttpHandler;
  close(): Promise<void>;
}

function closing(server: Server, handler: HttpHandler): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      handler.close();
      server.closeAllConnections();
      server.close(() => resolve());
    });
}

const MOUNTS: Record<string, () => Promise<Mounted>> = {
  "node:http (nodeListener)": async () => {
    const handler = createHttpHandler(createFixture());
    const server = createNodeServer(nodeListener(handler));
    return { url: await listening(server), handler, close: closing(server, handler) };
  },
  "Hono (c.req.raw)": async () => {
    const handler = createHttpHandler(createFixture());
    const app = new Hono();
    app.all("/mcp", (c) => handler(c.req.raw));
    const server = await new Promise<Server>((resolve) => {
      const served = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(served as Server));
    });
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    return { url, handler, close: closing(server, handler) };
  },
};

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function connect(mount: () => Promise<Mounted>, mode: "legacy" | { pin: "2026-07-28" }) {
  const mounted = await mount();
  cleanup.push(mounted.close);
  const client = new Client(
    { name: "mount-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { quantity: 3 } };
  });
  const transport = new StreamableHTTPClientTransport(new URL(mounted.url));
  // A tap: the client calls a transport's earlier onmessage before its own dispatch.
  const wire: JSONRPCMessage[] = [];
  transport.onmessage = (message) => {
    wire.push(message);
  };
  await client.connect(transport);
  cleanup.push(() => client.close());
  return { client, mounted, asked, wire };
}

function progressOn(wire: JSONRPCMessage[]): { progress: number; total?: number; message?: string }[] {
  return wire.flatMap((message) =>
    "method" in message && message.method === "notifications/progress"
      ? [{ ...(message.params as { progress: number; total?: number; message?: string }), progressToken: undefined }]
      : [],
  );
}

describe.each(Object.entries(MOUNTS))("mounted in %s", (_name, mount) => {
  describe.each([
    ["handshake era", "legacy" as const, "2025-11-25"],
    ["2026-07-28", { pin: "2026-07-28" as const }, "2026-07-28"],
  ])("with the official client (%s)", (_era, mode, version) => {
    it("calls a tool that reports progress and asks the user", async () => {
      const { client, mounted, asked, wire } = await connect(mount, mode);
      expect(client.getNegotiatedProtocolVersion()).toBe(version);
      // Only the handshake era keeps a session on the server.
      expect(mounted.handler.sessions).toBe(mode === "legacy" ? 1 : 0);
      const seen: { progress: number; total?: number; message?: string }[] = [];
      const result = await client.callTool(
        { name: "order", arguments: { item: "tea" } },
        { onprogress: (progress) => seen.push(progress) },
      );
      expect(result.content).toEqual([{ type: "text", text: "ordered 3 × tea" }]);
      expect(asked).toEqual(["Order tea?"]);
      const progress = progressOn(wire).map(({ progress, total, message }) => ({ progress, total, message }));
      // 2026-07-28 runs the handler twice (the question, then the retry with the answer), but the retry does not
      // send again the progress its first round sent: both eras send each step once.
      expect(progress).toEqual([
        { progress: 1, total: 2, message: "asking" },
        { progress: 2, total: 2, message: "answered" },
      ]);
      // The client adds its own note per input_required round, and drops its progress handler as soon as it reads
      // the reply (SDK 2.4.0): what reached it from the server is a prefix of what the server sent.
      const fromServer = seen.filter(({ message }) => !message?.startsWith("Fulfilling input required"));
      expect(seen.length - fromServer.length).toBe(mode === "legacy" ? 0 : 1);
      expect(progress.slice(0, fromServer.length)).toEqual(
        fromServer.map(({ progress, total, message }) => ({ progress, total, message })),
      );
    });
  });
});
