// A process of a server on Redis that the test stalls (SIGSTOP) past its lease while it runs something
// (fencing-across-processes.test.ts): a task (`task`) or a handshake-era call with an SSE reply (`request`). Its handler
// finishes once the test writes "go" on stdin; what the server logs, and what its own reply stream says, go to stdout.
import { createInterface } from "node:readline";
import { Readable } from "node:stream";
import { createServer, LATEST_STATELESS_VERSION } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { createRedisEngine } from "@toolsmith/redis";
import { createHttpHandler } from "@toolsmith/transport-http";

const [url, namespace, leaseMs, mode] = process.argv.slice(2);
const say = (line) => process.stdout.write(`${line}\n`);
let go;
const released = new Promise((resolve) => {
  go = resolve;
});
createInterface({ input: process.stdin }).on("line", (line) => {
  if (line === "go") go();
});

const engine = createRedisEngine({ url, namespace, leaseMs: Number(leaseMs) });
const server = createServer({
  name: "stalled",
  version: "1",
  engine,
  logger: (entry) => say(`log ${entry.level} ${entry.message}`),
});
server.tool({
  name: "stall",
  description: "Finishes when told",
  task: "optional",
  handler: async (_args, ctx) => {
    ctx.progress(1);
    await released;
    say("acted");
    return "done by the stalled process";
  },
});
const handle = createHttpHandler(server);
const H = { "content-type": "application/json", accept: "application/json, text/event-stream" };
const post = (body, headers) =>
  handle(new Request("http://127.0.0.1/mcp", { method: "POST", headers, body: JSON.stringify(body) }));

if (mode === "task") {
  const meta = {
    [MetaKey.protocolVersion]: LATEST_STATELESS_VERSION,
    [MetaKey.clientCapabilities]: { extensions: { "io.modelcontextprotocol/tasks": {} } },
  };
  const headers = {
    ...H,
    "mcp-protocol-version": LATEST_STATELESS_VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "stall",
  };
  const response = await post(
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "stall", _meta: meta } },
    headers,
  );
  say(`task ${JSON.parse(await response.text()).result.taskId}`);
} else {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stalled", version: "1" } },
  };
  const opened = await post(init, H);
  const session = opened.headers.get("mcp-session-id");
  const headers = { ...H, "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" };
  await post({ jsonrpc: "2.0", method: "notifications/initialized" }, headers);
  say(`session ${session}`);
  const call = { name: "stall", arguments: {}, _meta: { progressToken: "p" } };
  const response = await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: call }, headers);
  const lines = createInterface({ input: Readable.fromWeb(response.body) });
  for await (const line of lines) if (line !== "") say(`live ${line}`);
  say("ended");
}
// Kept alive until ended by the test.
setInterval(() => {}, 60_000);
