// What a Worker ships: the quickstart as a Worker module (examples/quickstart/src/worker.ts, Toolsmith's built dist
// as a user gets it) beside the official SDK v2's equivalent (servers/worker-official-sdk.mjs), each bundled the same
// way (scripts/web-bundle.mjs: esbuild, workerd's export conditions, one ESM file): raw, minified, and the minified
// file gzipped (level 9), as a Worker is uploaded compressed.
// Usage: node bench/bundle.mjs [--with "name=path/to/worker-module"]... (after a build)
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { relative } from "node:path";
import { fileURLToPath } from "node:url";
import { constants, gzipSync } from "node:zlib";
import { bundleForWeb, nodeOnly } from "../scripts/web-bundle.mjs";
import { benchOptions } from "./options.mjs";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const root = here("..");
const { extra } = benchOptions({}, { rounds: "1" });
if (!existsSync(here("../packages/transport-http/dist/web.js"))) {
  throw new Error("bench/bundle.mjs weighs the built packages: npx -y pnpm@12.4.2 run build first");
}

const ENTRIES = [
  { name: "Toolsmith", entry: "examples/quickstart/src/worker.ts" },
  { name: "official SDK v2", entry: "bench/servers/worker-official-sdk.mjs" },
  ...extra.map(({ name, file }) => ({ name, entry: relative(root, file) })),
];

const gzip = (bytes) => gzipSync(bytes, { level: constants.Z_BEST_COMPRESSION }).byteLength;
const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KB`;

async function weigh({ name, entry }) {
  const raw = await bundleForWeb(entry);
  const minified = await bundleForWeb(entry, { minify: true });
  const bytes = minified.outputFiles[0].contents;
  // The minified bytes each package brought, so zod (in both) can be told from the framework.
  const inputs = Object.entries(Object.values(minified.metafile.outputs)[0].inputs);
  const zod = inputs
    .filter(([file]) => /node_modules\/zod\//.test(file))
    .reduce((sum, [, i]) => sum + i.bytesInOutput, 0);
  return {
    name,
    entry,
    raw: raw.outputFiles[0].contents.byteLength,
    minified: bytes.byteLength,
    gzipped: gzip(bytes),
    zod,
    // Checked as scripts/web-bundle.test.ts checks the quickstart: a bundle that needs Node is no Worker's.
    nodeOnly: nodeOnly(await bundleForWeb(entry, { findGlobals: true }), entry),
  };
}

const results = [];
for (const entry of ENTRIES) results.push(await weigh(entry));
const [toolsmith, official] = results;
const ratio = (key) => (toolsmith[key] / official[key]).toFixed(2);

const lines = [
  `Each Worker module bundled into one ESM file by esbuild ${(await import("esbuild")).version} (platform neutral, conditions workerd, worker, browser; what the packages ship, their dist), on Node ${process.versions.node}; gzip: the minified file at level 9. zod: the minified bytes zod's own files take in it (both servers declare their schemas with zod 4). KB: 1,024 bytes.`,
  "",
  "| server | raw | minified | gzipped | zod (minified) | minified without zod | Node-only |",
  "|---|---|---|---|---|---|---|",
  ...results.map(
    (r) =>
      `| ${r.name} | ${kb(r.raw)} | ${kb(r.minified)} | ${kb(r.gzipped)} | ${kb(r.zod)} | ${kb(r.minified - r.zod)} | ${r.nodeOnly.length === 0 ? "none" : r.nodeOnly.join("; ")} |`,
  ),
  "",
  `Toolsmith / official SDK v2: raw ${ratio("raw")}×, minified ${ratio("minified")}×, gzipped ${ratio("gzipped")}×, minified without zod ${((toolsmith.minified - toolsmith.zod) / (official.minified - official.zod)).toFixed(2)}×.`,
];
const report = lines.join("\n");
mkdirSync(here("./results"), { recursive: true });
writeFileSync(here("./results/bundle-latest.md"), `${report}\n`);
writeFileSync(here("./results/bundle-latest.json"), `${JSON.stringify(results, null, 2)}\n`);
process.stdout.write(`${report}\n`);
