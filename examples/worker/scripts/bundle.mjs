#!/usr/bin/env node
// Bundle a Worker (module syntax) for workerd: one ESM file of web APIs alone, with Toolsmith's built packages as a
// user's Worker gets them (the "workerd" export condition picks transport-http's web entry, without its node:http
// door). esbuild refuses a node:* import on the browser platform, so one reaching the bundle fails the build, not the
// Worker. Usage: node scripts/bundle.mjs [entry] [outfile] [--minify].
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
  conditions: ["workerd", "worker", "browser"],
  target: "es2022",
  minify: process.argv.includes("--minify"),
  logLevel: "error",
});
