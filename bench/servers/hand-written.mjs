import { createInterface } from "node:readline";

// The floor: parse, switch, answer. No validation, no eras, nothing a framework adds.
const tool = {
  name: "add",
  description: "Add two numbers",
  inputSchema: { type: "object", properties: { a: { type: "number" }, b: { type: "number" } }, required: ["a", "b"] },
};
const lines = createInterface({ input: process.stdin, crlfDelay: Number.POSITIVE_INFINITY });
lines.on("line", (line) => {
  const message = JSON.parse(line);
  if (message.id === undefined) return;
  let result;
  switch (message.method) {
    case "initialize":
      result = {
        protocolVersion: message.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "bench-hand-written", version: "1.0.0" },
      };
      break;
    case "server/discover":
      result = {
        resultType: "complete",
        supportedVersions: ["2026-07-28"],
        capabilities: { tools: {} },
        ttlMs: 0,
        cacheScope: "public",
      };
      break;
    case "tools/list":
      result = { tools: [tool], resultType: "complete", ttlMs: 0, cacheScope: "public" };
      break;
    case "tools/call": {
      const { a, b } = message.params.arguments;
      result = { content: [{ type: "text", text: String(a + b) }], resultType: "complete" };
      break;
    }
    default:
      process.stdout.write(
        `${JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } })}\n`,
      );
      return;
  }
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result })}\n`);
});
