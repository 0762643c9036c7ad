// Where a checkout's published entries are: `@toolsmith/core/testing` → the file its package.json `exports` names for
// Node (the built dist, never the "@toolsmith/source" condition). Only package names and exports are read, so a
// checkout whose files moved inside its packages resolves all the same.
import { readdirSync, readFileSync, realpathSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

// The conditions Node itself would match for an import (in the order each exports object lists them).
const CONDITIONS = new Set(["node", "import", "module-sync", "default"]);

function pick(target) {
  if (typeof target === "string") return target;
  if (target === null || typeof target !== "object") return undefined;
  if (Array.isArray(target)) return target.map(pick).find((found) => found !== undefined);
  for (const [key, value] of Object.entries(target)) {
    if (!CONDITIONS.has(key)) continue;
    const found = pick(value);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The absolute file a package folder's `exports` gives for `subpath` ("." or "./testing"). */
export function exportOf(packageDir, subpath = ".") {
  const manifest = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8"));
  let target;
  if (manifest.exports === undefined) target = subpath === "." ? (manifest.module ?? manifest.main) : undefined;
  else if (typeof manifest.exports === "string" || !Object.keys(manifest.exports).some((key) => key.startsWith(".")))
    target = subpath === "." ? pick(manifest.exports) : undefined;
  else target = pick(manifest.exports[subpath]);
  if (target === undefined) throw new Error(`${manifest.name} exports no ${subpath} for Node`);
  return resolve(packageDir, target);
}

const workspaces = new Map();

/** name → folder of every package under `<checkout>/packages`. */
export function packagesOf(checkout) {
  const root = resolve(checkout);
  let found = workspaces.get(root);
  if (found) return found;
  found = new Map();
  for (const entry of readdirSync(join(root, "packages"), { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    try {
      const manifest = JSON.parse(readFileSync(join(root, "packages", entry.name, "package.json"), "utf8"));
      found.set(manifest.name, join(root, "packages", entry.name));
    } catch {
      // Not a package.
    }
  }
  workspaces.set(root, found);
  return found;
}

/** Split "@scope/name/sub/path" into the package name and its exports key ("./sub/path"). */
function split(specifier) {
  const parts = specifier.split("/");
  const length = specifier.startsWith("@") ? 2 : 1;
  const rest = parts.slice(length).join("/");
  return { name: parts.slice(0, length).join("/"), subpath: rest === "" ? "." : `./${rest}` };
}

/** The file URL of a workspace package's entry in `checkout` (`@toolsmith/transport-http`). */
export function entryUrl(checkout, specifier) {
  const { name, subpath } = split(specifier);
  const dir = packagesOf(checkout).get(name);
  if (!dir) throw new Error(`${checkout} has no package ${name}`);
  return pathToFileURL(exportOf(dir, subpath)).href;
}

/** The file URL of `specifier` as the workspace package `from` in `checkout` resolves it (its own node_modules). */
export function dependencyUrl(checkout, from, specifier) {
  const { name, subpath } = split(specifier);
  const dir = packagesOf(checkout).get(from);
  if (!dir) throw new Error(`${checkout} has no package ${from}`);
  return pathToFileURL(exportOf(realpathSync(join(dir, "node_modules", name)), subpath)).href;
}

/** Import a workspace package's entry from `checkout`. */
export function load(checkout, specifier) {
  return import(entryUrl(checkout, specifier));
}
