import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import type { SpawnedHttp } from "../../../scripts/spawn-http.js";
import { WAIT_MS } from "../../../scripts/wait.js";
import { bundle, STATE_KEY, serveOnWorkerd } from "./workerd.test-util.js";

// The Worker (src/worker.ts) bundled for workerd and served by the real runtime; the official client, pinned to
// 2026-07-28, drives it over Streamable HTTP. Two runtimes sharing its secret stand for two isolates.

const V = "2026-07-28";
let script = "";
const served: SpawnedHttp[] = [];
const clients: Client[] = [];

async function serve(bindings: Record<string, string>): Promise<string> {
  const worker = await serveOnWorkerd(script, bindings);
  served.push(worker);
  return worker.url;
}

beforeAll(async () => {
  script = await bundle(fileURLToPath(new URL("./worker.ts", import.meta.url)));
});

afterAll(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
  await Promise.all(served.splice(0).map((worker) => end(worker.child)));
});

// The answers a user gives, by the question asked; and every question, in order.
const ANSWERS: Record<string, Record<string, string>> = {
  "Where to?": { city: "Lisbon" },
  "When do you leave for Lisbon?": { date: "2026-08-01" },
};

async function connect(url: string): Promise<{ client: Client; asked: string[] }> {
  const client = new Client(
    { name: "worker-test", version: "1.0.0" },
    { capabilities: { elicitation: {} }, versionNegotiation: { mode: { pin: V } } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: ANSWERS[request.params.message] ?? {} } as never;
  });
  clients.push(client);
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return { client, asked };
}

// A raw 2026-07-28 POST, for what the client hides: the round's sealed requestState, the HTTP status.
async function post(url: string, id: number, method: string, params: Record<string, unknown>, name?: string) {
  const meta = {
    "io.modelcontextprotocol/protocolVersion": V,
    "io.modelcontextprotocol/clientCapabilities": { elicitation: {} },
  };
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": V,
      "mcp-method": method,
      ...(name ? { "mcp-name": name } : {}),
    },
    body: JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }),
  });
  return { status: response.status, body: (await response.json()) as Reply };
}

interface Reply {
  result?: {
    resultType?: string;
    requestState?: string;
    inputRequests?: Record<string, unknown>;
    supportedVersions?: string[];
  };
  error?: { code: number };
}

describe("a Toolsmith server on Cloudflare Workers (workerd), 2026-07-28", () => {
  let url = "";
  beforeAll(async () => {
    url = await serve({ TOOLSMITH_STATE_KEY: STATE_KEY });
  });

  it("is discovered, lists its tools and calls one", async () => {
    const { client } = await connect(url);
    expect(client.getNegotiatedProtocolVersion()).toBe(V);
    expect(client.getServerVersion()).toMatchObject({ name: "toolsmith-worker", version: "0.1.0" });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(["add", "plan_trip", "toggle_forecast"]);
    expect(await client.callTool({ name: "add", arguments: { a: 2, b: 40 } })).toMatchObject({
      content: [{ type: "text", text: "42" }],
      isError: false,
    });
  });

  it("asks the user twice (two input_required rounds) and answers with what the first round kept", async () => {
    const { client, asked } = await connect(url);
    const result = await client.callTool({ name: "plan_trip", arguments: { traveller: "Ada" } });
    expect(asked).toEqual(["Where to?", "When do you leave for Lisbon?"]);
    const [first] = result.content as { type: string; text: string }[];
    expect(first?.text).toMatch(/^trip-[0-9a-f-]{36}: Ada goes to Lisbon on 2026-08-01$/);
  });

  it("hears tools/list change on a subscriptions/listen stream, held open by workerd", async () => {
    const { client } = await connect(url);
    let heard: () => void = () => {};
    const changed = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error("no tools/list_changed on the listen stream")), WAIT_MS);
      heard = () => {
        clearTimeout(timer);
        resolve();
      };
    });
    client.setNotificationHandler("notifications/tools/list_changed", () => heard());
    const listen = await client.listen({ toolsListChanged: true });
    expect(listen.honoredFilter).toEqual({ toolsListChanged: true });
    await client.callTool({ name: "toggle_forecast" });
    await changed;
    const { tools } = await client.listTools(undefined, { cacheMode: "bypass" });
    expect(tools.map((tool) => tool.name)).toContain("forecast");
    await listen.close();
    await client.callTool({ name: "toggle_forecast" });
  });

  it("a round begun on one runtime ends on another sharing the secret; one with another key refuses it", async () => {
    const [other, stranger] = await Promise.all([
      serve({ TOOLSMITH_STATE_KEY: STATE_KEY }),
      serve({ TOOLSMITH_STATE_KEY: "another worker's key, 16 bytes or more" }),
    ]);
    const args = { name: "plan_trip", arguments: { traveller: "Grace" } };
    const first = await post(url, 1, "tools/call", args, "plan_trip");
    expect(first.body.result).toMatchObject({ resultType: "input_required" });
    const { requestState, inputRequests } = first.body.result ?? {};
    const [key] = Object.keys(inputRequests ?? {});
    const answer = {
      ...args,
      requestState,
      inputResponses: { [key as string]: { action: "accept", content: { city: "Oslo" } } },
    };
    const second = await post(other, 2, "tools/call", answer, "plan_trip");
    expect(second.body.result).toMatchObject({ resultType: "input_required" });
    expect(JSON.stringify(second.body.result?.inputRequests)).toContain("When do you leave for Oslo?");
    const refused = await post(stranger, 3, "tools/call", answer, "plan_trip");
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: -32602 });
  });

  it("answers a handshake-era client 400 with -32022, naming the version it serves", async () => {
    const client = new Client({ name: "legacy", version: "1.0.0" }, { versionNegotiation: { mode: "legacy" } });
    clients.push(client);
    const refused = client.connect(new StreamableHTTPClientTransport(new URL(url)));
    await expect(refused).rejects.toThrow(/2026-07-28/);
    const initialize = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "c", version: "1" } },
      }),
    });
    expect(initialize.status).toBe(400);
    expect(await initialize.json()).toMatchObject({
      id: 1,
      error: { code: -32022, data: { supported: [V], requested: "2025-11-25" } },
    });
    expect((await fetch(url, { headers: { accept: "text/event-stream" } })).status).toBe(405);
    expect((await post(url, 2, "server/discover", {})).body.result?.supportedVersions).toEqual([V]);
  });

  it("refuses malformed JSON, and a body past maxBodyBytes", async () => {
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const bad = await fetch(url, { method: "POST", headers, body: "{not json" });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ id: null, error: { code: -32700 } });
    // Refused before it is read: workerd may close the connection while the client still sends, where Node's door
    // reads on to deliver the 413 (a difference the platform forces; docs/workers.md).
    const huge = await fetch(url, { method: "POST", headers, body: " ".repeat(4 * 1024 * 1024 + 1) }).then(
      (response) => response.status,
      (error: Error) => (error.cause as { code?: string } | undefined)?.code,
    );
    expect([413, "ECONNRESET", "EPIPE"]).toContain(huge);
  });

  it("without its secret, answers 500 naming the secret to set", async () => {
    const unset = await serve({});
    const response = await fetch(unset, { method: "POST", body: "{}" });
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("npx wrangler secret put TOOLSMITH_STATE_KEY");
  });

  // Not an exception thrown on every request (createServer refuses a key under 16 bytes), and never the key itself.
  it("with a secret too short to seal with, answers the same 500, without the secret", async () => {
    const short = await serve({ TOOLSMITH_STATE_KEY: "short-secret" });
    const response = await fetch(short, { method: "POST", body: "{}" });
    expect(response.status).toBe(500);
    const text = await response.text();
    expect(text).toContain("npx wrangler secret put TOOLSMITH_STATE_KEY");
    expect(text).not.toContain("short-secret");
  });
});
