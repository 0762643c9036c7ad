import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import {
  createMcpHandler,
  hostHeaderValidationResponse,
  isInitializeRequest,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { z } from "zod";

// @modelcontextprotocol/server 2.4.0 over Streamable HTTP, as its docs intend: `createMcpHandler(factory)`, a
// fresh McpServer per request, Host/Origin checks in front (the entry does none itself), mounted on node:http.
// `--legacy stateless`: the entry's default stateless fallback for 2025-era traffic (no sessions: GET and DELETE
// are 405). `--legacy session` (the default): the documented way to keep sessions, a `legacy: "reject"` entry
// behind `isLegacyRequest`, and 2025-era traffic on a sessionful WebStandardStreamableHTTPServerTransport per
// session (JSON replies, its fastest). Port from `--port N` or PORT (0 picks a free one); the URL is said on stdout.
const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? process.argv[at + 1] : fallback;
};
const MODE = arg("--legacy", "session");
if (MODE !== "session" && MODE !== "stateless") throw new Error(`--legacy session|stateless, not ${MODE}`);

// `--remote URL [--era legacy|2026-07-28]`: a gateway written by hand on the SDK, the peer of bench/remote.mjs's
// Toolsmith gateway. Its `add` forwards each call to the remote through one official client (2.4.0), connected once,
// with the caller's cancellation; the remote's result is answered as it came.
const REMOTE = arg("--remote", undefined);
const remote = REMOTE
  ? await (async () => {
      const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
      const mode = arg("--era", "legacy") === "2026-07-28" ? { pin: "2026-07-28" } : "legacy";
      const client = new Client({ name: "bench-sdk-gateway", version: "1.0.0" }, { versionNegotiation: { mode } });
      await client.connect(new StreamableHTTPClientTransport(new URL(REMOTE)));
      return client;
    })()
  : undefined;

const factory = () => {
  const server = new McpServer({ name: "bench-official", version: "1.0.0" }, { capabilities: { tools: {} } });
  server.registerTool(
    "add",
    { description: "Add two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
    remote
      ? (args, extra) => remote.callTool({ name: "add", arguments: args }, { signal: extra.mcpReq.signal })
      : async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
  );
  return server;
};

const handler = createMcpHandler(factory, { legacy: MODE === "session" ? "reject" : "stateless" });

const sessions = new Map();
const jsonError = (status, message) =>
  Response.json({ jsonrpc: "2.0", id: null, error: { code: -32000, message } }, { status });

async function legacySession(request, parsedBody) {
  const id = request.headers.get("mcp-session-id");
  if (id !== null) {
    const transport = sessions.get(id);
    return transport ? transport.handleRequest(request, { parsedBody }) : jsonError(404, "Session not found");
  }
  if (request.method !== "POST" || !isInitializeRequest(parsedBody)) {
    return jsonError(400, "Bad Request: No valid session ID provided");
  }
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (sessionId) => {
      sessions.set(sessionId, transport);
    },
    onsessionclosed: (sessionId) => {
      sessions.delete(sessionId);
    },
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await factory().connect(transport);
  return transport.handleRequest(request, { parsedBody });
}

async function serve(request, parsedBody) {
  const rejected =
    hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
    originValidationResponse(request, localhostAllowedOrigins());
  if (rejected) return rejected;
  if (MODE === "session" && (await isLegacyRequest(request, parsedBody))) return legacySession(request, parsedBody);
  return handler.fetch(request, parsedBody === undefined ? {} : { parsedBody });
}

// node:http → Request → Response → node:http, lean: the body read whole and handed over parsed (the
// `parsedBody` escape hatch, as behind express.json()), a JSON reply written in one piece, SSE streamed.
const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    const text = Buffer.concat(chunks).toString("utf8");
    let parsedBody;
    if (text !== "") {
      try {
        parsedBody = JSON.parse(text);
      } catch {}
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    const hasBody = parsedBody === undefined && text !== "" && req.method !== "GET" && req.method !== "HEAD";
    const request = new Request(`http://${req.headers.host ?? "localhost"}${req.url}`, {
      method: req.method,
      headers,
      signal: aborted.signal,
      ...(hasBody ? { body: text } : {}),
    });
    serve(request, parsedBody).then(
      (response) => write(res, response),
      () => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      },
    );
  });
});

async function write(res, response) {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  if (!response.headers.get("content-type")?.startsWith("text/event-stream")) {
    res.end(Buffer.from(await response.arrayBuffer()));
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => reader.cancel().catch(() => {}));
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      res.write(value);
    }
  } catch {}
  res.end();
}

server.listen(Number(arg("--port", process.env.PORT ?? 0)), "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
