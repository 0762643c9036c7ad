#!/usr/bin/env node
// packages/core/src is layered: a folder imports only from itself and the folders before it in LAYERS. This check
// fails (exit 1, naming each import) when a source file imports upward (read from its syntax tree, so every way of
// writing an import counts), imports the package by name or a test file, or imports a computed path; when a folder is
// not in LAYERS, a source file sits in src/ beside the entries, or anything below src/ is a symlink.
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { importsOf } from "./imports.mjs";

/** Bottom first. Each folder's README.md says what it holds. */
export const LAYERS = [
  "wire",
  "schema",
  "protocol",
  "engine",
  "context",
  "middleware",
  "registry",
  "connection",
  "server",
  "testing",
];

/** The package's entry points: the only source files directly in src/, above every layer. */
export const ENTRIES = ["index.ts", "transport.ts", "engine.ts", "internal.ts"];

const SOURCE = /\.[cm]?tsx?$/;
const TEST = /\.test(-util)?\.[cm]?[tj]sx?$/;

/** The upward imports (and unplaced files and folders) below `src`, one line of text each. */
export function layerViolations(src, packageName = "@toolsmith/core") {
  const problems = [];
  const rank = new Map(LAYERS.map((name, index) => [name, index]));
  const files = [];
  (function walk(dir) {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      const file = relative(src, path).split("\\").join("/");
      const stat = lstatSync(path);
      // A symlink would let a layer hold another's files under its own name.
      if (stat.isSymbolicLink()) problems.push(`${file} is a symlink: a layer holds its own files`);
      else if (stat.isDirectory()) {
        if (dir === src && !rank.has(name)) {
          problems.push(`${name}/ is not a layer: add it to LAYERS in scripts/layers.mjs, in its place`);
        }
        walk(path);
      } else if (SOURCE.test(name) && !TEST.test(name)) {
        if (dir === src && !ENTRIES.includes(name)) {
          problems.push(`${file} sits beside the entries (${ENTRIES.join(", ")}): put it in the layer it belongs to`);
        }
        files.push(file);
      }
    }
  })(src);
  for (const file of files) {
    const layer = file.includes("/") ? file.split("/")[0] : undefined;
    if (layer === undefined) continue; // the package's entry points sit above every layer
    for (const { spec, text } of importsOf(file, readFileSync(join(src, file), "utf8"))) {
      if (spec === undefined) {
        problems.push(`${file} imports a computed path (${text}): no check can follow it`);
      } else if (spec === packageName || spec.startsWith(`${packageName}/`)) {
        problems.push(`${file} imports ${spec}: the package itself, above every layer; import the file`);
      } else if (!spec.startsWith(".")) {
      } else if (TEST.test(spec)) {
        problems.push(`${file} imports ${spec}: a test file, left out of the build`);
      } else {
        const target = posix.normalize(posix.join(posix.dirname(file), spec));
        const targetLayer = target.includes("/") ? target.split("/")[0] : undefined;
        if (targetLayer === undefined && ENTRIES.includes(target.replace(/\.js$/, ".ts"))) {
          problems.push(`${file} imports ${spec}: an entry point, above every layer; import the file`);
        } else if (targetLayer === undefined || target.startsWith("..")) {
          problems.push(`${file} imports ${spec}: outside the layers`);
        } else if ((rank.get(targetLayer) ?? -1) > (rank.get(layer) ?? -1)) {
          problems.push(`${file} imports ${spec}: ${targetLayer}/ sits above ${layer}/`);
        }
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
