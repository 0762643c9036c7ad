#!/usr/bin/env node
// packages/core/src, packages/transport-http/src and packages/auth/src are layered: a folder imports only from itself
// and the folders before it in its package's list (LAYERS, HTTP_LAYERS, AUTH_LAYERS). This check fails (exit 1, naming each import) when a source
// file imports upward (read from its syntax tree, so every way of writing an import counts), imports the package by
// name or a test file, or imports a computed path; when a file of core outside engine-suite/ imports vitest; when a
// folder is not in the list, a source file sits in src/ beside the entries, or anything below src/ is a symlink. One
// way between folders means no import cycle between them; a cycle inside one folder is Biome's noImportCycles (the
// same `pnpm run lint`).
import { lstatSync, readdirSync, readFileSync } from "node:fs";
import { join, posix, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { importsOf, packageOf } from "./imports.mjs";

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
  // The shared engine suites (@toolsmith/core/engine-suite): they import vitest, so no other layer may import them.
  "engine-suite",
];

/** The one layer that may import vitest (an optional peer of core): every other layer, and entry, loads without it. */
export const VITEST_LAYER = "engine-suite";

/** The package's entry points: the only source files directly in src/, above every layer. */
export const ENTRIES = ["index.ts", "transport.ts", "engine.ts", "internal.ts"];

/** transport-http's folders, bottom first, following a request from what every part shares to the front doors. */
export const HTTP_LAYERS = ["exchange", "checks", "routes", "stateless", "sessions", "dispatch", "doors"];

/**
 * @toolsmith/auth's folders, bottom first: what a token says, verifying one, sealed records on the engine, the clients
 * and the upstream an authorization server deals with, and the authorization server (the OAuth proxy) itself.
 */
export const AUTH_LAYERS = ["tokens", "verify", "vault", "clients", "upstream", "proxy"];

/** Each layered package: its source folder (from the repository's root), its layers (named as the list is), entries. */
export const PACKAGES = {
  "@toolsmith/core": { src: "packages/core/src", layers: LAYERS, list: "LAYERS", entries: ENTRIES },
  "@toolsmith/transport-http": {
    src: "packages/transport-http/src",
    layers: HTTP_LAYERS,
    list: "HTTP_LAYERS",
    entries: ["index.ts", "web.ts"],
  },
  "@toolsmith/auth": { src: "packages/auth/src", layers: AUTH_LAYERS, list: "AUTH_LAYERS", entries: ["index.ts"] },
};

const SOURCE = /\.[cm]?tsx?$/;
const TEST = /\.test(-util)?\.[cm]?[tj]sx?$/;

/** The upward imports (and unplaced files and folders) below `src` of package `packageName`, one line of text each. */
export function layerViolations(src, packageName = "@toolsmith/core") {
  const layered = PACKAGES[packageName];
  if (layered === undefined) throw new Error(`${packageName} is not a layered package: add it to PACKAGES`);
  const { layers, list, entries } = layered;
  const problems = [];
  const rank = new Map(layers.map((name, index) => [name, index]));
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
          problems.push(`${name}/ is not a layer: add it to ${list} in scripts/layers.mjs, in its place`);
        }
        walk(path);
      } else if (SOURCE.test(name) && !TEST.test(name)) {
        if (dir === src && !entries.includes(name)) {
          problems.push(`${file} sits beside the entries (${entries.join(", ")}): put it in the layer it belongs to`);
        }
        files.push(file);
      }
    }
  })(src);
  for (const file of files) {
    const layer = file.includes("/") ? file.split("/")[0] : undefined;
    const imports = importsOf(file, readFileSync(join(src, file), "utf8"));
    for (const { spec } of imports) {
      if (layer !== VITEST_LAYER && spec !== undefined && packageOf(spec) === "vitest") {
        problems.push(`${file} imports ${spec}: only ${VITEST_LAYER}/ may (vitest is an optional peer)`);
      }
    }
    if (layer === undefined) continue; // the package's entry points sit above every layer
    for (const { spec, text } of imports) {
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
        if (targetLayer === undefined && entries.includes(target.replace(/\.js$/, ".ts"))) {
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

// `node scripts/layers.mjs`: every layered package; `node scripts/layers.mjs <src> [package]`: one tree.
if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const given = process.argv[2];
  const trees = given
    ? [[given, process.argv[3] ?? "@toolsmith/core"]]
    : Object.entries(PACKAGES).map(([name, { src }]) => [fileURLToPath(new URL(`../${src}`, import.meta.url)), name]);
  let failed = false;
  for (const [src, name] of trees) {
    const problems = layerViolations(src, name);
    for (const line of problems) process.stderr.write(`layers: ${name}: ${line}\n`);
    failed ||= problems.length > 0;
  }
  process.exit(failed ? 1 : 0);
}
