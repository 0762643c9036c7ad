// A process of a tasks server on Redis (tasks-across-processes.test.ts): it starts a task that never ends, says its id,
// and is then killed (SIGKILL) by the test that spawned it: its lease lapses with the task still working.
import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { createHttpHandler } from "@toolsmith/transport-http";

const [url, namespace, leaseMs] = process.argv.slice(2);
const engine = createRedisEngine({ url, namespace, leaseMs: Number(leaseMs) });
const server = createServer({ name: "tasks-across", version: "1", engine });
server.tool({ name: "forever", description: "Never ends", task: "optional", handler: () => new Promise(() => {}) });
// The same caller as the test's: the task is ada's.
const handle = createHttpHandler(server, { authenticate: () => ({ subject: "ada", scopes: [], token: "Bearer ada" }) });
const meta = {
  [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
  [MetaKey.clientCapabilities]: { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
const response = await handle(
  new Request("http://127.0.0.1/mcp", {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": LATEST_STATELESS_VERSION,
      "mcp-method": "tools/call",
      "mcp-name": "forever",
      authorization: "Bearer ada",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "forever", _meta: meta } }),
  }),
);
const reply = JSON.parse(await response.text());
process.stdout.write(`task ${reply.result.taskId}\n`);
// Kept alive until killed.
setInterval(() => {}, 60_000);
