import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end, endTracked } from "../../../scripts/child-processes.js";
import { type Collector, startCollector } from "./collector.test-util.js";
import { DIALECTS, type Dialect, TRANSPORTS, type Transport } from "./options.js";
import {
  BIN,
  cleanEnv,
  exchange,
  INITIALIZE,
  INSPECTOR,
  NODE22,
  ok,
  pnpm,
  serveHttp,
  sh,
  WORKSPACE,
} from "./process.test-util.js";

// Each dialect × transport: scaffold with the built bin from this checkout's packed packages, install offline,
// build, run the generated tests and lint, then drive the built server with the MCP Inspector CLI.
const root = mkdtempSync(join(tmpdir(), "create-toolsmith-e2e-"));
const catalog = join(root, "inspector-catalog.json");
let redis: RedisServer;
let collector: Collector;
beforeAll(async () => {
  [redis, collector] = await Promise.all([startRedis({ appendonly: false }), startCollector()]);
});
// Every process a test started ends before its folder goes, whatever happened.
afterAll(async () => {
  await endTracked();
  await Promise.all([redis?.stop(), collector?.close()]);
  rmSync(root, { recursive: true, force: true });
});

async function inspect(target: string[], cwd: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await ok(
    NODE22,
    // The Inspector gives a server 15 s to connect by default; a stdio server built a moment ago can take longer to
    // start on a busy machine (seen in CI at load 20).
    [INSPECTOR, "--cli", "--connect-timeout", "120000", ...target, ...args],
    cwd,
    cleanEnv({ MCP_CATALOG_PATH: catalog }),
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function driveWithInspector(target: string[], cwd: string, toolNames = ["greet"]) {
  const { tools } = (await inspect(target, cwd, "--method", "tools/list")) as { tools: { name: string }[] };
  expect(tools.map((tool) => tool.name)).toEqual(toolNames);
  expect(
    await inspect(target, cwd, "--method", "tools/call", "--tool-name", "greet", "--tool-arg", "name=Ada"),
  ).toMatchObject({
    content: [{ type: "text", text: "Hello, Ada!" }],
    isError: false,
  });
  expect(await inspect(target, cwd, "--method", "resources/read", "--uri", "greetings://history")).toMatchObject({
    contents: [{ uri: "greetings://history", mimeType: "application/json" }],
  });
  const { messages } = (await inspect(
    target,
    cwd,
    "--method",
    "prompts/get",
    "--prompt-name",
    "welcome",
    "--prompt-args",
    "name=Ada",
  )) as { messages: { content: { text: string } }[] };
  expect(messages[0]?.content.text).toContain("Ada");
}

interface Combination {
  dialect: Dialect;
  transport: Transport;
  extras: string[];
}
// Each dialect × transport, Redis with tracing (--redis --otel) in both dialects, and each sign-in.
const combinations: Combination[] = [
  ...DIALECTS.flatMap((dialect) => TRANSPORTS.map((transport) => ({ dialect, transport, extras: [] }))),
  { dialect: "tc39", transport: "http", extras: ["--redis", "--otel"] },
  { dialect: "legacy", transport: "both", extras: ["--redis", "--otel"] },
  { dialect: "tc39", transport: "http", extras: ["--auth", "verify"] },
  { dialect: "legacy", transport: "both", extras: ["--auth", "proxy"] },
];
const nameOf = ({ dialect, transport, extras }: Combination) =>
  [dialect, transport, ...extras.map((flag) => flag.replace(/^--/, ""))].join("-");
// What a project made with --auth needs to serve HTTP: an issuer nobody asks until a token comes, a secret.
const SIGN_IN_ENV: Record<string, Record<string, string>> = {
  verify: { ISSUER: "https://login.example.com", AUDIENCE: "http://127.0.0.1/mcp" },
  proxy: {
    OIDC_ISSUER: "https://login.example.com",
    OIDC_CLIENT_ID: "notes",
    OIDC_CLIENT_SECRET: "notes-secret",
    AUTH_SECRET: "a secret of more than thirty-two bytes, for the test",
  },
};
const timings: Record<string, number> = {};

describe.concurrent.each(combinations)("a generated project ($dialect, $transport, $extras)", (combination) => {
  const { dialect, transport, extras } = combination;
  const traced = extras.includes("--otel");
  const auth = extras.includes("--auth") ? extras[extras.indexOf("--auth") + 1] : undefined;
  const toolNames = auth ? ["greet", "reset"] : ["greet"];
  // A dozen installs, builds and servers one after another, six projects at once: each step has its own deadline.
  it("installs offline, builds, passes its tests and lint, and serves the Inspector", {
    timeout: 40 * 60_000,
  }, async () => {
    const started = performance.now();
    const name = nameOf(combination);
    const dir = join(root, name);
    await ok(
      process.execPath,
      [BIN, dir, "--yes", "--dialect", dialect, "--transport", transport, ...extras, "--from", WORKSPACE],
      root,
    );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(pkg.dependencies["@toolsmith/decorators"]).toBe("file:toolsmith-packages/toolsmith-decorators-0.1.0.tgz");
    // The workspace's lockfile as the starting point: offline, ranges resolve to the versions in the store.
    copyFileSync(join(WORKSPACE, "pnpm-lock.yaml"), join(dir, "pnpm-lock.yaml"));
    // CI=true makes pnpm default to a frozen lockfile; the seeded lockfile is a starting point, not the truth.
    // --engine-strict: a dependency whose engines leave out this Node (20, as the project promises) fails the install.
    await pnpm(["install", "--offline", "--no-frozen-lockfile", "--engine-strict"], dir);
    await pnpm(["run", "build"], dir);
    const tests = await pnpm(["test"], dir);
    // Four tests per era, and with --auth three more about the scoped tool.
    expect(tests.stdout).toMatch(auth ? /Tests\s+\S*14 passed/ : /Tests\s+\S*8 passed/);
    expect(tests.stdout).toContain("src/server.test.ts");
    if (transport === "stdio") {
      // From source, not a stale build: change the greeting without building and the tests see it.
      const server = join(dir, "src/server.ts");
      const source = readFileSync(server, "utf8");
      writeFileSync(server, source.replace("`Hello, ", "`Hi, "));
      const stale = await sh(join(dir, "node_modules/.bin/vitest"), ["run"], dir);
      expect(stale.code).toBe(1);
      expect(stale.stdout + stale.stderr).toContain("Hi, Ada!");
      writeFileSync(server, source);
    }
    await pnpm(["run", "lint"], dir);
    if (transport !== "http") {
      // npm run dev: toolsmith dev runs src/main.ts from source and relays stdio.
      const [reply] = await exchange(
        [join(dir, "node_modules/.bin/toolsmith"), "dev", "--no-watch", "src/main.ts"],
        dir,
        [INITIALIZE],
      );
      expect(reply).toMatchObject({ id: 1, result: { serverInfo: { name } } });
    }
    // Traced: spans to the collector under this project's name; with Redis, the sessions are in it.
    const env: Record<string, string> = traced
      ? { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SERVICE_NAME: name }
      : {};
    if (transport !== "http") {
      // The Inspector gives the server it starts the variables named with -e.
      const vars = Object.entries(env).flatMap(([key, value]) => ["-e", `${key}=${value}`]);
      await driveWithInspector([...vars, process.execPath, "dist/main.js"], dir, toolNames);
      // Over stdio the last batch goes when stdin ends, before the process exits.
      if (traced) await collector.received(name, "tools/call greet");
    }
    if (transport !== "stdio") {
      // The README's Claude Desktop snippet for HTTP is what `toolsmith config claude-desktop --url` prints.
      const toolsmith = join(dir, "node_modules/.bin/toolsmith");
      const desktop = await ok(toolsmith, ["config", "claude-desktop", "--url", "http://127.0.0.1:3000/mcp"], dir);
      expect(readFileSync(join(dir, "README.md"), "utf8")).toContain(desktop.stdout.trim());
      collector.forget(name);
      const redisEnv: Record<string, string> = extras.includes("--redis") ? { REDIS_URL: redis.url } : {};
      const args = transport === "both" ? ["--http"] : [];
      const signInEnv = auth ? (SIGN_IN_ENV[auth] ?? {}) : {};
      const { url, child } = await serveHttp("dist/main.js", args, dir, { ...env, ...redisEnv, ...signInEnv });
      if (auth) {
        // Signed in or not at all: a request without a token is 401, pointing at the protected-resource metadata.
        const refused = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
          body: JSON.stringify(INITIALIZE),
        });
        expect(refused.status).toBe(401);
        const challenge = refused.headers.get("www-authenticate") ?? "";
        expect(challenge).toMatch(/^Bearer /);
        const metadataUrl = /resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? "";
        const metadata = (await (await fetch(metadataUrl)).json()) as { authorization_servers: string[] };
        expect(metadata.authorization_servers).toHaveLength(1);
      } else await driveWithInspector([url, "--transport", "http"], dir);
      if (extras.includes("--redis")) {
        const keys = await ok("redis-cli", ["-u", redis.url, "--scan", "--pattern", `ts:{${name}}:*`], dir);
        expect(keys.stdout).toContain(`ts:{${name}}:sessions`);
      }
      // SIGTERM: the server drains, then sends its last spans before it exits.
      await end(child);
      if (traced) await collector.received(name, "tools/call greet");
    }
    timings[name] = Math.round(performance.now() - started);
  });
});

describe("timings", () => {
  it("recorded every combination", () => {
    expect(Object.keys(timings).sort()).toHaveLength(combinations.length);
    process.stderr.write(`create-toolsmith e2e (ms): ${JSON.stringify(timings)}\n`);
  });
});
