// bench/startup.mjs's child: what one start-up spends, step by step, in a fresh process; one JSON line on stdout.
// Usage: node startup-parts.mjs toolsmith|official|zod [--era 2025-11-25]
import { writeSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";

// Node's own start-up, until this module runs (performance's clock starts with the process).
const boot = performance.now();
const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { era: { type: "string", default: "2025-11-25" } },
});
const [kind] = positionals;
const ERA = values.era;
const steps = { boot };
async function step(name, work) {
  const t = performance.now();
  const result = await work();
  steps[name] = performance.now() - t;
  return result;
}

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1.0.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
// What bench/run.mjs writes first: the opening messages, then tools/list.
const OPENING =
  ERA === "2026-07-28"
    ? [{ jsonrpc: "2.0", id: 0, method: "server/discover", params: { _meta: META } }]
    : [
        {
          jsonrpc: "2.0",
          id: 0,
          method: "initialize",
          params: { protocolVersion: ERA, capabilities: {}, clientInfo: { name: "bench", version: "1.0.0" } },
        },
        { jsonrpc: "2.0", method: "notifications/initialized" },
      ];
const LIST = { jsonrpc: "2.0", id: 1, method: "tools/list", params: ERA === "2026-07-28" ? { _meta: META } : {} };

const { z } = await step("import zod", () => import("zod"));
if (kind === "toolsmith") {
  const { createServer } = await step("import framework", () => import("@toolsmith/core"));
  await step("import transport", () => import("@toolsmith/transport-stdio"));
  const server = await step("create + register", () => {
    const server = createServer({ name: "bench-toolsmith", version: "1.0.0" });
    server.tool({
      name: "add",
      description: "Add two numbers",
      input: { a: z.number(), b: z.number() },
      handler: ({ a, b }) => a + b,
    });
    return server;
  });
  await step("opening + first tools/list", async () => {
    let listed;
    const done = new Promise((resolve) => {
      listed = resolve;
    });
    const connection = server.connect({ send: (line) => line.includes('"id":1') && listed() });
    for (const message of [...OPENING, LIST]) await connection.receive(JSON.stringify(message));
    await done;
  });
} else if (kind === "official") {
  const { McpServer, InMemoryTransport } = await step("import framework", () => import("@modelcontextprotocol/server"));
  await step("import transport", () => import("@modelcontextprotocol/server/stdio"));
  const server = await step("create + register", () => {
    const server = new McpServer({ name: "bench-official", version: "1.0.0" }, { capabilities: { tools: {} } });
    server.registerTool(
      "add",
      { description: "Add two numbers", inputSchema: z.object({ a: z.number(), b: z.number() }) },
      async ({ a, b }) => ({ content: [{ type: "text", text: String(a + b) }] }),
    );
    return server;
  });
  await step("opening + first tools/list", async () => {
    const [client, end] = InMemoryTransport.createLinkedPair();
    const done = new Promise((resolve) => {
      client.onmessage = (message) => message.id === 1 && resolve(JSON.stringify(message));
    });
    await server.connect(end);
    await client.start();
    for (const message of [...OPENING, LIST]) await client.send(message);
    await done;
  });
} else if (kind !== "zod") throw new Error(`unknown kind ${kind}`);
// Straight to fd 1: importing @toolsmith/transport-stdio guards process.stdout (stray writes go to stderr).
writeSync(1, `${JSON.stringify(steps)}\n`);
