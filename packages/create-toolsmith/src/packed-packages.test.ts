import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { publishablePackages } from "./pack-local.js";
import { exchange, INITIALIZE, ok, pnpm, WORKSPACE } from "./process.test-util.js";

// Every publishable package as it would go to the registry: `pnpm pack` (it turns workspace:* into versions); the
// list is the checkout's own, as --from packs it, and the scaffolder besides.
const PUBLISHABLE = [
  ...publishablePackages(WORKSPACE).map(({ dir }) => dir),
  join(WORKSPACE, "packages", "create-toolsmith"),
];
const temp = mkdtempSync(join(tmpdir(), "toolsmith-packed-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

interface Manifest {
  name: string;
  exports: Record<string, Record<string, unknown>>;
  types?: string;
  bin?: Record<string, string>;
  engines?: { node?: string };
  [key: string]: unknown;
}

async function pack(dir: string): Promise<{ tarball: string; files: string[]; manifest: Manifest }> {
  const out = mkdtempSync(join(temp, "pack-"));
  const { stdout } = await pnpm(["pack", "--json", "--pack-destination", out], dir);
  const { filename, files } = JSON.parse(stdout) as { filename: string; files: { path: string }[] };
  const tarball = isAbsolute(filename) ? filename : join(out, filename);
  const { stdout: manifest } = await ok("tar", ["xzf", tarball, "-O", "package/package.json"], out);
  return { tarball, files: files.map((file) => file.path).sort(), manifest: JSON.parse(manifest) as Manifest };
}

describe.each(PUBLISHABLE)("the packed package %s", (dir) => {
  it("ships dist, its types, README, LICENSE and package.json only", async () => {
    const { stdout } = await pnpm(["pack", "--dry-run", "--json"], dir);
    const files = (JSON.parse(stdout) as { files: { path: string }[] }).files.map((file) => file.path);
    expect(files.filter((path) => !/^dist\/.+\.(js|d\.ts)$/.test(path)).sort()).toEqual([
      "LICENSE",
      "README.md",
      "package.json",
    ]);
    expect(files.some((path) => /\.test(-util)?\./.test(path))).toBe(false);
  });

  it("has real versions, exports with types first, types and engines", async () => {
    const { files, manifest } = await pack(dir);
    expect(JSON.stringify(manifest)).not.toContain("workspace:");
    expect(JSON.stringify(manifest.exports)).not.toContain("@toolsmith/source");
    // Every subpath the workspace exports is published too.
    const source = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
    expect(Object.keys(manifest.exports).sort()).toEqual(Object.keys(source.exports).sort());
    for (const [subpath, conditions] of Object.entries(manifest.exports)) {
      // A web target's own entry (transport-http's without its node:http door) comes first, as a bundler reads it.
      const { workerd, worker, browser, ...plain } = conditions;
      for (const web of [workerd, worker, browser, plain] as (Record<string, string> | undefined)[]) {
        if (web === undefined) continue;
        expect(Object.keys(web), subpath).toEqual(["types", "default"]);
        for (const target of Object.values(web)) expect(files).toContain(target.replace(/^\.\//, ""));
      }
    }
    expect(files).toContain(manifest.types?.replace(/^\.\//, ""));
    expect(manifest.engines).toEqual({ node: ">=20" });
    expect(manifest).toMatchObject({ type: "module", license: "MIT" });
    for (const bin of Object.values(manifest.bin ?? {})) expect(files).toContain(bin.replace(/^\.\//, ""));
    // A bundler drops an import whose file sideEffects does not name: each listed src file is bundled into a shipped
    // dist file that sideEffects lists too (the dist's source maps say which file holds it).
    const effects = Array.isArray(manifest.sideEffects) ? (manifest.sideEffects as string[]) : [];
    const listed = (file: string) =>
      effects.some((entry) =>
        new RegExp(`^${entry.replace(/^\.\//, "").replace(/\./g, "\\.").replace(/\*/g, "[^/]+")}$`).test(file),
      );
    const shippedEffects = files.filter((file) => file.endsWith(".js") && listed(file));
    for (const path of effects.filter((entry) => entry.startsWith("./src/"))) {
      const holders = shippedEffects.filter((file) => {
        const map = JSON.parse(readFileSync(join(dir, `${file}.map`), "utf8")) as { sources: string[] };
        return map.sources.some((source) => join(dir, dirname(file), source) === join(dir, path));
      });
      expect(holders, `${path} is in a shipped dist file sideEffects lists`).not.toEqual([]);
    }
  });
});

// testing's client and middleware's timeout reject with index's McpError; zod-v3 registers where createServer looks;
// the server's connection is transport's Connection, and the memory engine throws engine's LeaseLost.
const ENTRIES_AGREE = `import { McpError, createServer } from "@toolsmith/core";
import { LeaseLost, createMemoryEngine } from "@toolsmith/core/engine";
import { isPlainObject } from "@toolsmith/core/internal";
import { timeout } from "@toolsmith/core/middleware";
import { createTestClient } from "@toolsmith/core/testing";
import { Connection } from "@toolsmith/core/transport";
import "@toolsmith/core/zod-v3";
import { jsonSchema } from "@toolsmith/core/json-schema";
import * as z3 from "zod/v3";
const server = createServer({ name: "entries", version: "1.0.0" });
server.tool({ name: "v3", description: "v3", input: z3.object({ s: z3.string() }), handler: ({ s }) => s });
const raw = jsonSchema({ type: "object", properties: { s: { type: "string" } }, required: ["s"] });
server.tool({ name: "raw", description: "raw", input: raw, handler: ({ s }) => s });
const client = await createTestClient(server);
const [listed] = await client.listTools();
const refused = await client.callTool("raw", {});
if (!refused.isError || refused.content[0]?.text !== 'Invalid arguments for tool "raw":\\n- s: required (expected string)') {
  throw new Error("the raw JSON Schema tool did not refuse as core does");
}
const unknown = await client.request("no/such-method").catch((error) => error);
const operation = { kind: "read", method: "resources/read", abort() {} };
const late = await timeout(1)(operation, () => new Promise(() => {})).catch((error) => error);
if (listed?.name !== "v3" || !isPlainObject(listed.inputSchema)) throw new Error("no zod v3 tool");
if (!(unknown instanceof McpError) || !(late instanceof McpError)) throw new Error("two McpError classes");
if (!(server.connect({ send() {} }) instanceof Connection)) throw new Error("two Connection classes");
const engine = createMemoryEngine();
engine.start({ name: "entries" });
const lost = (() => { try { engine.append("s", "get", "x", { running: "r" }); } catch (error) { return error; } })();
if (!(lost instanceof LeaseLost)) throw new Error("two LeaseLost classes");
process.stdout.write("one McpError, one adapter registry\\n");
`;

describe("core and transport-stdio, installed from their tarballs outside the workspace", () => {
  it("serve a five-line server over stdio that answers initialize; core's entries share its classes", async () => {
    const app = mkdtempSync(join(temp, "app-"));
    const core = await pack(join(WORKSPACE, "packages/core"));
    const stdio = await pack(join(WORKSPACE, "packages/transport-stdio"));
    copyFileSync(core.tarball, join(app, "core.tgz"));
    copyFileSync(stdio.tarball, join(app, "transport-stdio.tgz"));
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "packed-app",
        private: true,
        type: "module",
        dependencies: {
          "@toolsmith/core": "file:./core.tgz",
          "@toolsmith/transport-stdio": "file:./transport-stdio.tgz",
          zod: "4.6.7",
          // core's optional peers, for its ./json-schema entry.
          ajv: "8.20.0",
          "ajv-formats": "3.0.1",
        },
      }),
    );
    // transport-stdio's own "@toolsmith/core": "0.1.0" is not on the registry yet: send it to the tarball.
    // Resolved from the workspace's lockfile, core's optional peer vitest (its engine suites) comes with esbuild,
    // whose install script (a check of its binary) nothing here needs.
    writeFileSync(
      join(app, "pnpm-workspace.yaml"),
      'allowBuilds:\n  esbuild: false\noverrides:\n  "@toolsmith/core": "file:./core.tgz"\n',
    );
    // The workspace's lockfile as the starting point, so that an offline resolution finds what the store has.
    copyFileSync(join(WORKSPACE, "pnpm-lock.yaml"), join(app, "pnpm-lock.yaml"));
    await pnpm(["install", "--offline", "--no-frozen-lockfile"], app);
    expect(existsSync(join(app, "node_modules/@toolsmith/core/src"))).toBe(false);
    writeFileSync(
      join(app, "server.js"),
      `import { createServer } from "@toolsmith/core";
import { serveStdio } from "@toolsmith/transport-stdio";
import { z } from "zod";
const server = createServer({ name: "packed", version: "1.0.0" });
server.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
serveStdio(server);
`,
    );
    const lines = await exchange([process.execPath, "server.js"], app, [
      INITIALIZE,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: { a: 2, b: 3 } } },
    ]);
    expect(lines[0]).toMatchObject({
      id: 1,
      result: { protocolVersion: "2025-11-25", serverInfo: { name: "packed" } },
    });
    expect(lines[1]).toMatchObject({ id: 2, result: { content: [{ type: "text", text: "5" }], isError: false } });
    expect(readFileSync(join(app, "node_modules/@toolsmith/transport-stdio/package.json"), "utf8")).not.toContain(
      "workspace:",
    );
    // Every subpath of both packages loads from dist, through the published export map alone.
    const subpaths = [core, stdio].flatMap(({ manifest }) =>
      Object.keys(manifest.exports).map((subpath) => manifest.name + subpath.slice(1)),
    );
    // On stderr: importing transport-stdio guards stdout.
    const script = `for (const name of ${JSON.stringify(subpaths)}) { await import(name); process.stderr.write(import.meta.resolve(name) + "\\n"); }`;
    const { stderr } = await ok(process.execPath, ["--input-type=module", "-e", script], app);
    const resolved = stderr.trim().split("\n");
    expect(resolved).toHaveLength(subpaths.length);
    for (const url of resolved) expect(url).toMatch(/\/node_modules\/@toolsmith\/[a-z-]+\/dist\/.+\.js$/);
    // core's dist is bundled per entry over shared chunks: its classes and module state must be one across entries.
    writeFileSync(join(app, "entries.js"), ENTRIES_AGREE);
    expect((await ok(process.execPath, ["entries.js"], app)).stdout).toBe("one McpError, one adapter registry\n");
  });
});

// A server that uses neither jsonSchema() nor ajv, traced by @toolsmith/otel: what a user installs for it.
const WITHOUT_AJV = `import { createServer } from "@toolsmith/core";
import { openTelemetry } from "@toolsmith/otel";
import { createTestClient } from "@toolsmith/core/testing";
import { z } from "zod";
const server = createServer({ name: "traced", version: "1.0.0" });
server.use(openTelemetry());
server.tool({ name: "add", description: "Add", input: { a: z.number(), b: z.number() }, handler: ({ a, b }) => a + b });
const client = await createTestClient(server);
const result = await client.callTool("add", { a: 2, b: 3 });
const missing = await import("@toolsmith/core/json-schema").then(() => "loaded", (error) => error.message);
process.stdout.write(JSON.stringify({ text: result.content[0]?.text, missing, otel: import.meta.resolve("@toolsmith/otel") }));
`;

describe("core and otel, installed from their tarballs without core's optional peers", () => {
  it("serve and trace a zod tool with no ajv installed; only core's ./json-schema entry asks for it", async () => {
    const app = mkdtempSync(join(temp, "app-"));
    const core = await pack(join(WORKSPACE, "packages/core"));
    const otel = await pack(join(WORKSPACE, "packages/otel"));
    expect(otel.manifest.peerDependencies).toEqual({ "@opentelemetry/api": ">=1.0.0 <2" });
    expect(otel.manifest.dependencies).toEqual({ "@toolsmith/core": "0.1.0" });
    copyFileSync(core.tarball, join(app, "core.tgz"));
    copyFileSync(otel.tarball, join(app, "otel.tgz"));
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({
        name: "packed-traced-app",
        private: true,
        type: "module",
        dependencies: {
          "@toolsmith/core": "file:./core.tgz",
          "@toolsmith/otel": "file:./otel.tgz",
          "@opentelemetry/api": "1.10.0",
          zod: "4.6.7",
        },
      }),
    );
    writeFileSync(join(app, "pnpm-workspace.yaml"), 'overrides:\n  "@toolsmith/core": "file:./core.tgz"\n');
    // No lockfile to start from: the workspace's resolves ajv, which a user not asking for it never gets.
    await pnpm(["install", "--offline"], app);
    writeFileSync(join(app, "server.js"), WITHOUT_AJV);
    const outcome = JSON.parse((await ok(process.execPath, ["server.js"], app)).stdout) as Record<string, string>;
    expect(outcome.text).toBe("5");
    expect(outcome.missing).toMatch(
      /^Cannot find package 'ajv' imported from .*\/@toolsmith\/core\/dist\/schema\/json-schema\.js/,
    );
    expect(outcome.otel).toMatch(/\/node_modules\/@toolsmith\/otel\/dist\/index\.js$/);
  });
});
