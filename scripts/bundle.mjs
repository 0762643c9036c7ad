#!/usr/bin/env node
// The JavaScript of the publishable libraries, after `tsc -b` (which emits only their declarations): each package's
// dist as bundled ESM, one file per entry in its package.json "exports" and the code entries share in dist/chunks, so
// a class such as McpError is one class whatever entry it is reached through. Why: Node's ESM loader spent ~23 ms of
// a server's ~35 ms own start-up resolving and compiling ~50 modules one by one (bench/issue-15-findings.md).
// Dependencies (zod, other @toolsmith packages) and node:* stay imports. Source maps map dist back to src.
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/** The packages whose dist/*.js this script writes (their tsconfig.json says emitDeclarationOnly). */
export const BUNDLED = ["core", "transport-stdio", "transport-http", "decorators", "redis", "otel"];

const root = fileURLToPath(new URL("..", import.meta.url));

/** `exports` as esbuild entry points: out path in dist (no extension) → source file; each must mirror src. */
export function entryPoints(manifest) {
  const entries = {};
  for (const [subpath, conditions] of Object.entries(manifest.exports)) {
    const source = conditions["@toolsmith/source"];
    const target = conditions.default;
    const mirrored = source?.replace(/^\.\/src\//, "./dist/").replace(/\.ts$/, ".js");
    // tsc writes each .d.ts where its source sits: a JS entry elsewhere would part from its types.
    if (mirrored !== target || conditions.types !== target.replace(/\.js$/, ".d.ts")) {
      throw new Error(`${manifest.name} exports "${subpath}": ${target} must mirror ${source}, types beside it`);
    }
    entries[target.slice("./dist/".length, -".js".length)] = source;
  }
  return entries;
}

// What a previous build wrote (tsc's per-module files before this script, old chunks), so none is left to ship.
function removeJavaScript(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) removeJavaScript(path);
    else if (/\.js(\.map)?$/.test(entry.name)) rmSync(path);
  }
}

async function bundle(name) {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const dist = join(dir, "dist");
  removeJavaScript(dist);
  rmSync(join(dist, "chunks"), { recursive: true, force: true });
  await build({
    absWorkingDir: dir,
    entryPoints: entryPoints(manifest),
    outdir: dist,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    chunkNames: "chunks/[name]-[hash]",
    sourcemap: "linked",
    sourcesContent: false,
    logLevel: "warning",
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await Promise.all(BUNDLED.map(bundle));
