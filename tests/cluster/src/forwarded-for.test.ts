import { once } from "node:events";
import { type IncomingMessage, request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { until } from "../../../scripts/wait.js";
import { type Cluster, example, startCluster } from "./cluster.js";

// The issue tracker as the root README runs it (on Redis behind the round-robin proxy, anonymous, three reports
// running per caller on a process: one process here, so every request meets the same count): with TOOLSMITH_TRUST_PROXY=1 each client is keyed by the address the proxy appends to
// X-Forwarded-For, never by what the client wrote there itself; without it, by the proxy's own address.

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": { extensions: { "io.modelcontextprotocol/tasks": {} } },
};
const PER_CALLER = 3;

let cluster: Cluster | undefined;
afterEach(async () => {
  await cluster?.stop();
  cluster = undefined;
});

interface Reply {
  result?: { resultType: string; status: string };
  error?: { code: number; message: string };
}

/** build_report as a task through the proxy, from the loopback address `from`, with the X-Forwarded-For it sends. */
async function report(url: string, from: string, spoofed: string): Promise<Reply> {
  const req = request(url, {
    method: "POST",
    localAddress: from,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/call",
      "mcp-name": "build_report",
      "x-forwarded-for": spoofed,
    },
  });
  req.end(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "build_report", arguments: { seconds: 600 }, _meta: META },
    }),
  );
  const [response] = (await once(req, "response")) as [IncomingMessage];
  let text = "";
  for await (const chunk of response) text += chunk;
  return JSON.parse(text) as Reply;
}

const working = { resultType: "task", status: "working" };
const refused = (reply: Reply) => reply.error?.message.startsWith("Too many tasks running for one caller");

describe("per-caller task limits behind the round-robin proxy", () => {
  it("with TOOLSMITH_TRUST_PROXY=1, give each client its own share, whatever X-Forwarded-For it sends", async () => {
    cluster = await startCluster({
      script: example("issue-tracker"),
      processes: 1,
      env: { TOOLSMITH_TRUST_PROXY: "1" },
    });
    // A new spoofed address each time: were it believed, each would be a new caller.
    for (let i = 0; i < PER_CALLER; i++) {
      expect((await report(cluster.url, "127.0.0.2", `10.0.0.${i}`)).result).toMatchObject(working);
    }
    expect(refused(await report(cluster.url, "127.0.0.2", "10.0.0.99"))).toBe(true);
    // Nor can another client pass for the one at its limit, or spend its share.
    expect((await report(cluster.url, "127.0.0.3", "127.0.0.2")).result).toMatchObject(working);
    // The process said whom it trusts.
    const [backend] = cluster.backends;
    await until(() => /X-Forwarded-For, 1 proxy in front trusted/.test(backend?.stderr() ?? ""), "the trust said");
  });

  it("without it, key every client by the proxy's address: one at its limit holds back the others", async () => {
    cluster = await startCluster({ script: example("issue-tracker"), processes: 1 });
    for (let i = 0; i < PER_CALLER; i++) {
      expect((await report(cluster.url, "127.0.0.2", `10.0.0.${i}`)).result).toMatchObject(working);
    }
    expect(refused(await report(cluster.url, "127.0.0.3", "10.0.0.99"))).toBe(true);
  });
});
