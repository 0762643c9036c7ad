import { randomUUID } from "node:crypto";
import { createServer } from "node:http";

// The floor over HTTP: read the body, parse it, switch, answer. No validation, no eras, no session checks,
// nothing a framework adds. Port from `--port N` or PORT (0 picks a free one); the URL is said on stdout.
const tool = {
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};

function answer(message) {
  switch (message.method) {
    case "initialize":
      return {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "bench-http-bare", version: "1.0.0" },
      };
    case "server/discover":
      return {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "public",
      };
    case "tools/list":
      return { tools: [tool], resultType: "complete", ttlMs: 0, cacheScope: "public" };
    case "tools/call": {
      const { a, b } = message.params.arguments;
      return { content: [{ type: "text", text: String(a + b) }], resultType: "complete" };
    }
    default:
      return undefined;
  }
}

function send(res, status, body, headers = {}) {
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers });
  res.end(body);
}

const server = createServer((req, res) => {
  if (req.method !== "POST") {
    res.writeHead(405, { allow: "POST" }).end();
    return;
  }
  const chunks = [];
  req.on("data", (chunk) => chunks.push(chunk));
  req.on("end", () => {
    let message;
    try {
      message = JSON.parse(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    } catch {
      send(res, 400, '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}');
      return;
    }
    if (message.id === undefined) {
      res.writeHead(202).end();
      return;
    }
    const result = answer(message);
    // The handshake era: initialize hands out a session id (never checked afterwards).
    const headers = message.method === "initialize" ? { "mcp-session-id": randomUUID() } : {};
    if (result === undefined) {
      send(
        res,
        404,
        JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }),
      );
      return;
    }
    send(res, 200, JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), headers);
  });
});

const at = process.argv.indexOf("--port");
const port = Number(at > 0 ? process.argv[at + 1] : (process.env.PORT ?? 0));
server.listen(port, "127.0.0.1", () => {
  process.stdout.write(`listening on http://127.0.0.1:${server.address().port}/mcp\n`);
});
