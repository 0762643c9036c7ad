import type { ChildProcess } from "node:child_process";
import { createServer, request as forward, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { Client, ProtocolError, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterEach, describe, expect, it } from "vitest";
import { spawnHttp } from "../../../../scripts/spawn-http.js";

// Build first (npx -y pnpm@12.4.2 run build): the fixture imports the package's dist.
// Two processes serve the same server behind a round-robin proxy; a 2026-07-28 call whose input_required round is
// answered by the other process completes when both hold the same stateKey, and is refused (-32602) when not.
const fixture = fileURLToPath(new URL("../../test/scale-out-server.mjs", import.meta.url));

interface Backend {
  child: ChildProcess;
  url: URL;
}

/** Start the fixture on a free port; resolves with the URL it prints on stderr (bounded). */
async function start(stateKey: string): Promise<Backend> {
  const { child, url } = await spawnHttp([fixture], { env: { ...process.env, STATE_KEY: stateKey } });
  return { child, url: new URL(url) };
}

interface Routed {
  method: string | undefined;
  backend: number;
}

/**
 * A round-robin reverse proxy on 127.0.0.1: each request goes to the next backend, bodies streamed both ways.
 * `sticky`: a request with an Mcp-Session-Id goes where that session began (what handshake-era clients need).
 */
async function roundRobin(
  backends: readonly Backend[],
  sticky = false,
): Promise<{ url: URL; routed: Routed[]; server: Server }> {
  const routed: Routed[] = [];
  const sessions = new Map<string, number>();
  let next = 0;
  const server = createServer((req, res) => {
    const session = req.headers["mcp-session-id"];
    const known = sticky && typeof session === "string" ? sessions.get(session) : undefined;
    const backend = known ?? next++ % backends.length;
    const target = (backends[backend] as Backend).url;
    const header = req.headers["mcp-method"];
    routed.push({ method: Array.isArray(header) ? header[0] : header, backend });
    const upstream = forward(
      {
        host: target.hostname,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host },
      },
      (answer) => {
        const opened = answer.headers["mcp-session-id"];
        if (sticky && typeof opened === "string") sessions.set(opened, backend);
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    res.on("close", () => upstream.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`), routed, server };
}

const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

type Mode = "legacy" | { pin: "2026-07-28" };

async function deployment(keys: readonly [string, string], mode: Mode = { pin: "2026-07-28" }, sticky = false) {
  const backends = await Promise.all(keys.map((key) => start(key)));
  for (const { child } of backends) cleanup.push(() => child.kill());
  const proxy = await roundRobin(backends, sticky);
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        proxy.server.closeAllConnections();
        proxy.server.close(() => resolve());
      }),
  );
  const client = new Client(
    { name: "scale-out-test", version: "1.0.0" },
    { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode } },
  );
  const asked: string[] = [];
  client.setRequestHandler("elicitation/create", async (request) => {
    asked.push(request.params.message);
    return { action: "accept", content: { sure: true } };
  });
  cleanup.push(() => client.close());
  const connected = { client, asked, routed: proxy.routed, pids: backends.map(({ child }) => child.pid) };
  return { ...connected, connect: () => client.connect(new StreamableHTTPClientTransport(proxy.url)) };
}

const KEY = "scale-out-test-key-0123456789";

describe("two processes behind a round-robin proxy (2026-07-28)", () => {
  it("with the same stateKey, the retry of an input_required round completes on the other process", async () => {
    const { client, asked, routed, pids, connect } = await deployment([KEY, KEY]);
    await connect();
    routed.length = 0;
    const result = await client.callTool({ name: "book", arguments: { seat: "12A" } });
    // The question came from one process, the answer from the other.
    const askedBy = Number(/asked by (\d+)/.exec(asked[0] ?? "")?.[1]);
    const text = (result.content as { text: string }[])[0]?.text ?? "";
    const answeredBy = Number(/answered by (\d+)/.exec(text)?.[1]);
    expect(text).toMatch(/^booked 12A /);
    expect(asked).toHaveLength(1);
    expect(new Set([askedBy, answeredBy])).toEqual(new Set(pids));
    // Two POSTs, one per round, on alternate processes (the discover of connect went first, to the first one).
    expect(routed).toEqual([
      { method: "tools/call", backend: 1 },
      { method: "tools/call", backend: 0 },
    ]);
    expect([askedBy, answeredBy]).toEqual([pids[1], pids[0]]);
  });

  it("with different keys, the other process refuses the retry's requestState (-32602)", async () => {
    const { client, asked, routed, pids, connect } = await deployment([KEY, "another-key-for-the-second-one"]);
    await connect();
    routed.length = 0;
    const call = client.callTool({ name: "book", arguments: { seat: "12A" } });
    await expect(call).rejects.toSatisfy(
      (error) => error instanceof ProtocolError && error.code === -32602,
      "a ProtocolError with code -32602",
    );
    // The second process asked; the first, with another key, refused the retry before its handler ran.
    expect(asked).toEqual([`Book seat 12A? (asked by ${pids[1]})`]);
    expect(routed).toEqual([
      { method: "tools/call", backend: 1 },
      { method: "tools/call", backend: 0 },
    ]);
  });
});

describe("two processes behind a proxy (handshake era)", () => {
  it("round robin loses the session: the client's next POST reaches the process that never saw initialize", async () => {
    const { connect, routed } = await deployment([KEY, KEY], "legacy");
    await expect(connect()).rejects.toThrow(/Session not found/);
    expect(routed.map((entry) => entry.backend)).toEqual([0, 1]);
  });

  it("sticky sessions (by Mcp-Session-Id) serve it, question and answer on the process that holds the session", async () => {
    const { client, asked, routed, pids, connect } = await deployment([KEY, KEY], "legacy", true);
    await connect();
    const result = await client.callTool({ name: "book", arguments: { seat: "12A" } });
    expect(result.content).toEqual([{ type: "text", text: `booked 12A (answered by ${pids[0]})` }]);
    expect(asked).toEqual([`Book seat 12A? (asked by ${pids[0]})`]);
    expect(new Set(routed.map((entry) => entry.backend))).toEqual(new Set([0]));
  });
});
