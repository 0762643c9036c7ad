import { statSync } from "node:fs";
import { dirname, join } from "node:path";

/** The nearest tsconfig.json above `file` (the one esbuild reads for it). */
export function nearestTsconfig(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const candidate = join(dir, "tsconfig.json");
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}
