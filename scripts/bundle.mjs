#!/usr/bin/env node
// The JavaScript of the publishable libraries, after `tsc -b` (which emits only their declarations): each package's
// dist as bundled ESM, one file per entry in its package.json "exports" and the code entries share in dist/chunks, so
// a class such as McpError is one class whatever entry it is reached through. Why: Node's ESM loader spent ~23 ms of
// a server's ~35 ms own start-up resolving and compiling ~50 modules one by one (bench/issue-15-findings.md).
// Dependencies (zod, other @toolsmith packages) and node:* stay imports. Source maps map dist back to src.
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, posix, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/** The packages whose dist/*.js this script writes (their tsconfig.json says emitDeclarationOnly). */
export const BUNDLED = [
  "core",
  "transport-stdio",
  "transport-http",
  "decorators",
  "redis",
  "otel",
  "auth",
  "skills",
  "openapi",
  "remote",
];

/**
 * Entries bundled as one module, each a file that re-exports its own names from `dist/chunks/shared.js`. esbuild
 * splits code by the set of entries that reach it, and core's root, /transport, /engine and /internal overlap (a
 * server loads the root with its transport's entries): split so, a stdio server loaded 18 files instead of 13.
 */
export const SHARED = { core: ["./src/index.ts", "./src/transport.ts", "./src/engine.ts", "./src/internal.ts"] };

const root = fileURLToPath(new URL("..", import.meta.url));
const SHARED_CHUNK = "chunks/shared";

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

// The names an entry exports at run time (its types left out), as esbuild bundles it.
async function runtimeExports(dir, source) {
  const { metafile } = await build({
    absWorkingDir: dir,
    entryPoints: [source],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    packages: "external",
    outdir: "out",
    logLevel: "warning",
  });
  return Object.values(metafile.outputs).find((output) => output.entryPoint !== undefined).exports;
}

// Each shared entry as a file of re-exports from the shared chunk, with a map naming its source (no code of its own).
async function writeReexports(dir, dist, shared) {
  for (const [out, source] of shared) {
    const names = await runtimeExports(dir, source);
    const chunk = posix.relative(posix.dirname(out), SHARED_CHUNK);
    const file = join(dist, `${out}.js`);
    const base = posix.basename(out);
    const from = chunk.startsWith(".") ? chunk : `./${chunk}`;
    writeFileSync(file, `export { ${names.join(", ")} } from "${from}.js";\n//# sourceMappingURL=${base}.js.map\n`);
    const map = { version: 3, sources: [relative(dirname(file), join(dir, source))], names: [], mappings: "" };
    writeFileSync(`${file}.map`, JSON.stringify(map));
  }
}

async function bundle(name) {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
  const dist = join(dir, "dist");
  removeJavaScript(dist);
  rmSync(join(dist, "chunks"), { recursive: true, force: true });
  const entries = entryPoints(manifest);
  const shared = Object.entries(entries).filter(([, source]) => (SHARED[name] ?? []).includes(source));
  for (const [out] of shared) delete entries[out];
  if (shared.length > 0) entries[SHARED_CHUNK] = "toolsmith:shared";
  const sharedEntry = {
    name: "shared-entry",
    setup(esbuild) {
      esbuild.onResolve({ filter: /^toolsmith:shared$/ }, () => ({ path: "shared", namespace: "toolsmith" }));
      esbuild.onLoad({ filter: /.*/, namespace: "toolsmith" }, () => ({
        contents: shared.map(([, source]) => `export * from ${JSON.stringify(source)};`).join("\n"),
        resolveDir: dir,
        loader: "ts",
      }));
    },
  };
  await build({
    absWorkingDir: dir,
    entryPoints: entries,
    plugins: [sharedEntry],
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
  await writeReexports(dir, dist, shared);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await Promise.all(BUNDLED.map(bundle));
