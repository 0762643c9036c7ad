#!/usr/bin/env node
// packages/core/src is layered: a folder imports only from itself and the folders before it in LAYERS. This check
// fails (exit 1, naming each import) when a source file imports upward, or when a folder is not in LAYERS.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";

/** Bottom first. Each folder's README.md says what it holds. */
export const LAYERS = [
  "wire",
  "schema",
  "protocol",
  "context",
  "middleware",
  "registry",
  "connection",
  "server",
  "testing",
];

const IMPORT = /(?:from\s+|import\s*\(\s*|import\s+)"(\.\.?\/[^"]+)"/g;

/** The upward imports (and unplaced folders) below `src`, one line of text each. */
export function layerViolations(src) {
  const problems = [];
  const rank = new Map(LAYERS.map((name, index) => [name, index]));
  for (const entry of readdirSync(src)) {
    if (statSync(join(src, entry)).isDirectory() && !rank.has(entry)) {
      problems.push(`${entry}/ is not a layer: add it to LAYERS in scripts/layers.mjs, in its place`);
    }
  }
  const files = [];
  (function walk(dir) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ts$/.test(name) && !/\.test(-util)?\.ts$/.test(name))
        files.push(relative(src, path).split("\\").join("/"));
    }
  })(src);
  for (const file of files) {
    const layer = file.includes("/") ? file.split("/")[0] : undefined;
    if (layer === undefined) continue; // the package's entry points sit above every layer
    for (const [, spec] of readFileSync(join(src, file), "utf8").matchAll(IMPORT)) {
      const target = posix.normalize(posix.join(posix.dirname(file), spec));
      const targetLayer = target.includes("/") ? target.split("/")[0] : undefined;
      if (targetLayer === undefined || target.startsWith("..")) {
        problems.push(`${file} imports ${spec}: outside the layers`);
      } else if ((rank.get(targetLayer) ?? -1) > (rank.get(layer) ?? -1)) {
        problems.push(`${file} imports ${spec}: ${targetLayer}/ sits above ${layer}/`);
      }
    }
  }
  return problems;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const src = process.argv[2] ?? new URL("../packages/core/src", import.meta.url).pathname;
  const problems = layerViolations(src);
  for (const line of problems) process.stderr.write(`layers: ${line}\n`);
  process.exit(problems.length === 0 ? 0 : 1);
}
