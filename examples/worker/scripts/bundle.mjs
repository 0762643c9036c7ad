#!/usr/bin/env node
// Bundle a Worker (module syntax) for workerd: one ESM file of web APIs alone. A node:* module may be imported by
// code the Worker never reaches (transport-http's node:http door) and is dropped with it; one left in the bundle fails
// the build, not the Worker. Toolsmith's packages come from their sources (the "@toolsmith/source" export condition,
// as the tests read them). Usage: node scripts/bundle.mjs [entry] [outfile] [--minify].
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const here = (path) => fileURLToPath(new URL(path, import.meta.url));
const [entry = here("../src/worker.ts"), outfile = here("../dist/worker.js")] = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith("--"));

await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  format: "esm",
  platform: "browser",
  conditions: ["@toolsmith/source", "workerd", "worker", "browser"],
  target: "es2022",
  minify: process.argv.includes("--minify"),
  external: ["node:*"],
  logLevel: "error",
});
const left = [...readFileSync(outfile, "utf8").matchAll(/\bfrom\s*"(node:[^"]+)"|\bimport\s*"(node:[^"]+)"/g)];
if (left.length > 0) {
  const names = [...new Set(left.map((match) => match[1] ?? match[2]))];
  process.stderr.write(`${outfile}: the Worker bundle imports ${names.join(", ")}, which workerd does not have\n`);
  process.exit(1);
}
