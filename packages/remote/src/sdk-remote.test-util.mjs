import { randomUUID } from "node:crypto";
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";
import {
  createMcpHandler,
  isLegacyRequest,
  McpServer,
  ResourceTemplate,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { serveStdio } from "@modelcontextprotocol/server/stdio";
import { z } from "zod";

// The remote in remote.test.ts: a server of the official SDK v2 as its docs write one, on its stdio, or with
// `--http` over Streamable HTTP (`createMcpHandler`, both eras, the 2025 era stateless, or with sessions given
// `--stateful`) on a free port it prints.
const subscribed = new Set();
const JOURNAL = process.argv.includes("--journal") ? process.argv[process.argv.indexOf("--journal") + 1] : undefined;

function factory() {
  const server = new McpServer(
    { name: "sdk-remote", version: "1.0.0" },
    {
      capabilities: {
        tools: {},
        prompts: {},
        // With --subscribe (updates.test.ts): resource subscriptions, kept by the handlers below.
        resources: process.argv.includes("--subscribe") ? { subscribe: true } : {},
        completions: {},
        ...(process.argv.includes("--steps") ? { logging: {} } : {}),
      },
    },
  );
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  server.registerTool(
    "point",
    {
      description: "A point",
      inputSchema: z.object({ x: z.number() }),
      outputSchema: z.object({ x: z.number(), y: z.number() }),
    },
    async ({ x }) => ({ content: [{ type: "text", text: `${x},0` }], structuredContent: { x, y: 0 } }),
  );
  server.registerTool("fail", { description: "Always fails", inputSchema: z.object({}) }, async () => ({
    content: [{ type: "text", text: "it broke" }],
    isError: true,
  }));
  server.registerTool(
    "big",
    { description: "A long text", inputSchema: z.object({ bytes: z.number() }) },
    async ({ bytes }) => ({ content: [{ type: "text", text: "x".repeat(bytes) }] }),
  );
  // With --steps (notes.test.ts): a tool that reports progress and logs.
  if (process.argv.includes("--steps"))
    server.registerTool(
      "steps",
      { description: "Reports progress and logs", inputSchema: z.object({ word: z.string() }) },
      async ({ word }, ctx) => {
        const progressToken = ctx.mcpReq._meta?.progressToken;
        for (const progress of [1, 2]) {
          await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 2 } });
          await ctx.mcpReq.log("info", `${word} ${progress}`);
        }
        return { content: [{ type: "text", text: word }] };
      },
    );
  if (process.argv.includes("--subscribe")) {
    server.server.setRequestHandler("resources/subscribe", async (request) => {
      subscribed.add(request.params.uri);
      // With --journal FILE: each subscribe written there with this process's id, for a test to watch from outside.
      if (JOURNAL) appendFileSync(JOURNAL, `${process.pid} subscribe ${request.params.uri}\n`);
      return {};
    });
    server.server.setRequestHandler("resources/unsubscribe", async (request) => {
      subscribed.delete(request.params.uri);
      return {};
    });
    server.registerTool("subscribed", { description: "The URIs subscribed", inputSchema: z.object({}) }, async () => ({
      content: [{ type: "text", text: [...subscribed].join(" ") }],
    }));
    server.registerTool(
      "touch",
      { description: "Tells of an update", inputSchema: z.object({ uri: z.string() }) },
      async ({ uri }) => {
        await server.server.sendResourceUpdated({ uri });
        return { content: [{ type: "text", text: "touched" }] };
      },
    );
  }
  // With --resumable (lane.test.ts): a tool that closes its call's event stream before it answers (SSE polling): the
  // client comes back with Last-Event-ID and reads the answer from the event store.
  if (RESUMABLE)
    server.registerTool(
      "poll",
      { description: "Answers after closing its stream", inputSchema: z.object({}) },
      async (_, ctx) => {
        ctx.http?.closeSSE?.();
        await new Promise((resolve) => setImmediate(resolve));
        return { content: [{ type: "text", text: "polled" }] };
      },
    );
  server.registerPrompt(
    "greet",
    { description: "Greets someone", argsSchema: z.object({ name: z.string() }) },
    async ({ name }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${name}` } }] }),
  );
  server.registerResource("about", "info://about", { mimeType: "text/plain" }, async (uri) => ({
    contents: [{ uri: uri.href, text: "about the remote" }],
  }));
  server.registerResource(
    "item",
    new ResourceTemplate("item://{id}", {
      list: undefined,
      complete: { id: (value) => ["alpha", "beta"].filter((id) => id.startsWith(value)) },
    }),
    { mimeType: "text/plain" },
    async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `item ${id}` }] }),
  );
  return server;
}

// With --stateful, the handshake era is served the way the SDK's docs route it next to the modern handler: a
// sessionful WebStandardStreamableHTTPServerTransport per session (its GET stream, its DELETE), found by the
// Mcp-Session-Id header; an unknown session is 404.
const STATEFUL = process.argv.includes("--stateful");
const RESUMABLE = process.argv.includes("--resumable");
const sessions = new Map();

// Every event kept, for a client that comes back with Last-Event-ID (--resumable).
function eventStore() {
  const events = [];
  return {
    storeEvent: async (streamId, message) => {
      events.push({ streamId, message });
      return `${streamId}_${events.length - 1}`;
    },
    getStreamIdForEventId: async (eventId) => events[Number(eventId.split("_").pop())]?.streamId,
    replayEventsAfter: async (eventId, { send }) => {
      const after = Number(eventId.split("_").pop());
      const streamId = events[after]?.streamId;
      for (let i = after + 1; i < events.length; i++) {
        const event = events[i];
        if (event.streamId === streamId && Object.keys(event.message).length > 0)
          await send(`${streamId}_${i}`, event.message);
      }
      return streamId;
    },
  };
}

async function legacyStateful(request) {
  const id = request.headers.get("mcp-session-id");
  if (id) {
    const transport = sessions.get(id);
    if (transport) return transport.handleRequest(request);
    const error = { jsonrpc: "2.0", error: { code: -32001, message: "Session not found" }, id: null };
    return new Response(JSON.stringify(error), { status: 404, headers: { "content-type": "application/json" } });
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    onsessioninitialized: (session) => void sessions.set(session, transport),
    ...(RESUMABLE ? { eventStore: eventStore(), retryInterval: 1 } : {}),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await factory().connect(transport);
  return transport.handleRequest(request);
}

// node:http → Request → the handler → node:http, the body read whole; SSE replies streamed as they come.
function serveHttp() {
  const modern = createMcpHandler(factory, { legacy: STATEFUL ? "reject" : "stateless" });
  const handler = {
    fetch: async (request) =>
      STATEFUL && (await isLegacyRequest(request.clone())) ? legacyStateful(request) : modern.fetch(request),
  };
  const http = createServer((req, res) => {
    const chunks = [];
    req.on("data", (chunk) => chunks.push(chunk));
    req.on("end", async () => {
      const body = Buffer.concat(chunks);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method: req.method,
        headers,
        ...(body.length > 0 ? { body } : {}),
      });
      const response = await handler.fetch(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return res.end();
      for await (const chunk of response.body) res.write(chunk);
      res.end();
    });
  });
  http.listen(0, "127.0.0.1", () => {
    process.stdout.write(`http://127.0.0.1:${http.address().port}/mcp\n`);
  });
}

if (process.argv.includes("--http")) serveHttp();
else serveStdio(factory);
