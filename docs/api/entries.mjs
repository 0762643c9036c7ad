import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * Each published package's entries, from its package.json `exports`: the source file behind a subpath (its
 * `@toolsmith/source` condition) and the name a project imports it by.
 */
export function entriesOf(packagesDir) {
  const entries = [];
  for (const dir of readdirSync(packagesDir).sort()) {
    const manifest = JSON.parse(readFileSync(join(packagesDir, dir, "package.json"), "utf8"));
    if (manifest.private) continue;
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      const file = join(packagesDir, dir, target["@toolsmith/source"]);
      entries.push({ file, name: subpath === "." ? manifest.name : `${manifest.name}${subpath.slice(1)}` });
    }
  }
  return entries;
}
