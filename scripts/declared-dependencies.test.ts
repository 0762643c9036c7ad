import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, shared with scripts/layers.mjs
import { importsOf, packageOf } from "./imports.mjs";

// In the workspace every package sees the others (and the root's devDependencies), so a package that imports one it
// lists only as a devDependency builds and passes every test here, then fails for whoever installs it from npm.

const packages = new URL("../packages/", import.meta.url).pathname;

/** The shipped source files below `dir`: every .ts but tests and their helpers. */
function sources(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((file) => /\.[cm]?tsx?$/.test(file) && !/\.test(-util)?\.[cm]?tsx?$/.test(file))
    .map((file) => join(dir, file));
}

/** Each package a package's shipped source imports without listing it in dependencies or peerDependencies. */
function undeclared(folder: string): string[] {
  const manifest = JSON.parse(readFileSync(join(packages, folder, "package.json"), "utf8"));
  const declared = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies ?? {}),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const missing = new Set<string>();
  for (const file of sources(join(packages, folder, "src"))) {
    for (const { spec } of importsOf(file, readFileSync(file, "utf8")) as { spec?: string }[]) {
      const name = spec === undefined ? undefined : packageOf(spec);
      if (name !== undefined && !declared.has(name)) missing.add(`${manifest.name} imports ${name}`);
    }
  }
  return [...missing];
}

it.each(readdirSync(packages))("packages/%s lists every package its source imports as a dependency", (folder) => {
  expect(undeclared(folder)).toEqual([]);
});
