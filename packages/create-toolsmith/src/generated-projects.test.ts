import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { end, endTracked } from "../../../scripts/child-processes.js";
import { DIALECTS, TRANSPORTS } from "./options.js";
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
// Every process a test started ends before its folder goes, whatever happened.
afterAll(async () => {
  await endTracked();
  rmSync(root, { recursive: true, force: true });
});

async function inspect(target: string[], cwd: string, ...args: string[]): Promise<Record<string, unknown>> {
  const { stdout } = await ok(
    NODE22,
    [INSPECTOR, "--cli", ...target, ...args],
    cwd,
    cleanEnv({ MCP_CATALOG_PATH: catalog }),
  );
  return JSON.parse(stdout) as Record<string, unknown>;
}

async function driveWithInspector(target: string[], cwd: string) {
  const { tools } = (await inspect(target, cwd, "--method", "tools/list")) as { tools: { name: string }[] };
  expect(tools.map((tool) => tool.name)).toEqual(["greet"]);
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

const combinations = DIALECTS.flatMap((dialect) => TRANSPORTS.map((transport) => ({ dialect, transport })));
const timings: Record<string, number> = {};

describe.concurrent.each(combinations)("a generated project ($dialect, $transport)", ({ dialect, transport }) => {
  // A dozen installs, builds and servers one after another, six projects at once: each step has its own deadline.
  it("installs offline, builds, passes its tests and lint, and serves the Inspector", {
    timeout: 40 * 60_000,
  }, async () => {
    const started = performance.now();
    const dir = join(root, `${dialect}-${transport}`);
    await ok(
      process.execPath,
      [BIN, dir, "--yes", "--dialect", dialect, "--transport", transport, "--from", WORKSPACE],
      root,
    );
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
    expect(pkg.dependencies["@toolsmith/decorators"]).toBe("file:./toolsmith-packages/toolsmith-decorators-0.1.0.tgz");
    // The workspace's lockfile as the starting point: offline, ranges resolve to the versions in the store.
    copyFileSync(join(WORKSPACE, "pnpm-lock.yaml"), join(dir, "pnpm-lock.yaml"));
    // CI=true makes pnpm default to a frozen lockfile; the seeded lockfile is a starting point, not the truth.
    await pnpm(["install", "--offline", "--no-frozen-lockfile"], dir);
    await pnpm(["run", "build"], dir);
    const tests = await pnpm(["test"], dir);
    expect(tests.stdout).toMatch(/Tests\s+\S*8 passed/);
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
      expect(reply).toMatchObject({ id: 1, result: { serverInfo: { name: `${dialect}-${transport}` } } });
    }
    if (transport !== "http") await driveWithInspector([process.execPath, "dist/main.js"], dir);
    if (transport !== "stdio") {
      const { url, child } = await serveHttp("dist/main.js", transport === "both" ? ["--http"] : [], dir);
      await driveWithInspector([url, "--transport", "http"], dir);
      await end(child);
    }
    timings[`${dialect}-${transport}`] = Math.round(performance.now() - started);
  });
});

describe("timings", () => {
  it("recorded every combination", () => {
    expect(Object.keys(timings).sort()).toHaveLength(combinations.length);
    process.stderr.write(`create-toolsmith e2e (ms): ${JSON.stringify(timings)}\n`);
  });
});
