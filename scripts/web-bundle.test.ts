import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (bench/bundle.mjs shares it)
import { bundleForWeb, nodeOnly } from "./web-bundle.mjs";

// The web door is web-standard: the quickstart as a Worker module, bundled as wrangler bundles one (workerd's export
// conditions, Node's built-ins unresolved), holds no Node built-in module and no Node global, whatever file brings it.

const WORKER = "examples/quickstart/src/worker.ts";
const built = new URL("../packages/transport-http/dist/web.js", import.meta.url);
const folder = mkdtempSync(join(tmpdir(), "toolsmith-web-bundle-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

interface Bundled {
  outputFiles: { text: string }[];
}

describe("the quickstart's Worker module, bundled for a web target", () => {
  it("from source holds nothing only Node has", async () => {
    expect(nodeOnly(await bundleForWeb(WORKER, { source: true, findGlobals: true }), WORKER)).toEqual([]);
  });

  it("as published (the built dist) holds nothing only Node has, and serves a tools/call", async () => {
    if (!existsSync(built)) throw new Error(`${built.pathname} is not built: npx -y pnpm@12.4.2 run build`);
    expect(nodeOnly(await bundleForWeb(WORKER, { findGlobals: true }), WORKER)).toEqual([]);
    // The same bundle unmarked, loaded as a module, answers as the quickstart does.
    const file = join(folder, "worker.mjs");
    writeFileSync(file, ((await bundleForWeb(WORKER)) as Bundled).outputFiles[0]?.text ?? "");
    const worker = (await import(pathToFileURL(file).href)) as {
      default: { fetch(request: Request): Promise<Response> };
    };
    const version = "2026-07-28";
    const body = {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: {
        name: "add",
        arguments: { a: 1, b: 2 },
        _meta: { "io.modelcontextprotocol/protocolVersion": version, "io.modelcontextprotocol/clientCapabilities": {} },
      },
    };
    const response = await worker.default.fetch(
      new Request("http://localhost/mcp", {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": version,
          "mcp-method": "tools/call",
          "mcp-name": "add",
        },
        body: JSON.stringify(body),
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: 1, result: { content: [{ type: "text", text: "3" }] } });
  });

  // What else a Worker may import, each entry whole: core's but /engine-suite (vitest's), transport-http's web entry,
  // the decorators, otel. Not redis (TCP through node:net), auth (node:crypto, node:dns), skills (reads folders), stdio.
  it.each([
    ...["index", "transport", "engine", "internal", "middleware/kit/index", "testing/index", "schema/zod-v3"].map(
      (entry) => `packages/core/src/${entry}.ts`,
    ),
    "packages/core/src/schema/json-schema.ts",
    "packages/transport-http/src/web.ts",
    "packages/decorators/src/index.ts",
    "packages/otel/src/index.ts",
  ])("%s, bundled whole, holds nothing only Node has", async (entry) => {
    expect(nodeOnly(await bundleForWeb(entry, { source: true, findGlobals: true }), entry)).toEqual([]);
  });

  // The check can fail: the package's Node entry, bundled the same way, is named with every chain to Node.
  it("names each Node built-in and global it finds, with the imports that reach it", async () => {
    const entry = "packages/transport-http/src/index.ts";
    const problems = nodeOnly(await bundleForWeb(entry, { source: true, findGlobals: true }), entry) as string[];
    expect(problems).toContain(
      `Node built-in node:http: ${entry} → packages/transport-http/src/doors/node-server.ts → node:http`,
    );
    expect(problems).toContain(
      `Node global Buffer in packages/transport-http/src/doors/node-listener.ts: ${entry} → packages/transport-http/src/doors/node-listener.ts`,
    );
  });

  it("names a global read or a require left to Node, not a global only felt for", async () => {
    const file = join(folder, "globals.ts");
    writeFileSync(
      file,
      [
        'export const felt = typeof process === "object" ? process : undefined;',
        'export const guarded = typeof Buffer !== "undefined" && Buffer.from("x");',
        "export const asked = typeof setImmediate;",
        'export const required = require(["left", "to", "node"].join("-"));',
        "export const read = globalThis.process.env;",
      ].join("\n"),
    );
    const at = relative(fileURLToPath(new URL("..", import.meta.url)), file);
    expect(nodeOnly(await bundleForWeb(file, { findGlobals: true }), file)).toEqual([
      `Node global require in ${at}: ${at}`,
      `Node global process in ${at}: ${at}`,
    ]);
  });

  // typeof shields a name alone: `typeof process.env.DEBUG` reads process first, a ReferenceError where it is none.
  it("names a global typeof reads a member of, calls or indexes, or reads where typeof found none", async () => {
    const file = join(folder, "typeof-members.ts");
    writeFileSync(
      file,
      [
        'export const member = typeof process.env.DEBUG === "string";',
        'export const optional = typeof Buffer?.from === "function";',
        'export const indexed = typeof global["x"];',
        'export const called = typeof setImmediate(() => {}) === "object";',
        'export const inverted = typeof __filename === "undefined" ? __filename.length : 0;',
        'export const bare = typeof clearImmediate === "function";',
      ].join("\n"),
    );
    const at = relative(fileURLToPath(new URL("..", import.meta.url)), file);
    expect(nodeOnly(await bundleForWeb(file, { findGlobals: true }), file)).toEqual(
      ["process", "Buffer", "global", "setImmediate", "__filename"].map(
        (name) => `Node global ${name} in ${at}: ${at}`,
      ),
    );
  });
});
