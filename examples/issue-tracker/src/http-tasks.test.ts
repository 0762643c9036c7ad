import { once } from "node:events";
import { type IncomingMessage, request } from "node:http";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { SHARED_TASKS } from "./issue-tracker.js";

// The tracker as shipped over HTTP (dist/main.js --http, anonymous): one address that starts as many reports as it
// may is refused more, and another address still starts one.

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {
    elicitation: { form: {} },
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

let server: SpawnedHttp | undefined;
afterAll(() => {
  server?.child.kill();
});

interface Reply {
  result?: { resultType: string; status: string };
  error?: { code: number; message: string };
}

/** build_report as a task, from the loopback address `from` (Linux routes all of 127.0.0.0/8 to lo). */
async function report(url: URL, from: string): Promise<Reply> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "build_report", arguments: { seconds: 600 }, _meta: META },
  });
  const req = request(url, {
    method: "POST",
    localAddress: from,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "build_report",
    },
  });
  req.end(body);
  const [response] = (await once(req, "response")) as [IncomingMessage];
  let text = "";
  for await (const chunk of response) text += chunk;
  return JSON.parse(text) as Reply;
}

describe("the issue tracker over HTTP, as shipped", () => {
  it("limits the reports each anonymous address runs; one address at its limit does not stop another", async () => {
    server = await spawnHttp([main, "--http"]);
    const url = new URL(server.url);
    for (let i = 0; i < SHARED_TASKS.maxPerCaller; i++) {
      expect((await report(url, "127.0.0.2")).result).toMatchObject({ resultType: "task", status: "working" });
    }
    const refused = await report(url, "127.0.0.2");
    expect(refused.error?.code).toBe(-32000);
    expect(refused.error?.message).toMatch(/^Too many tasks running for one caller \(at most 3\)/);
    expect((await report(url, "127.0.0.3")).result).toMatchObject({ resultType: "task", status: "working" });
  });
});
