import { readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The nearest tsconfig.json above `file` (the one esbuild reads for it). */
export function nearestTsconfig(file: string): string | undefined {
  for (let dir = dirname(file); ; dir = dirname(dir)) {
    const candidate = join(dir, "tsconfig.json");
    if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) return candidate;
    if (dirname(dir) === dir) return undefined;
  }
}

/** JSON with comments and trailing commas, as tsconfig files are written. */
function parseJsonc(text: string): unknown {
  const stripped = text.replace(
    /("(?:[^"\\]|\\.)*")|\/\/[^\n]*|\/\*[\s\S]*?\*\//g,
    (_m, string?: string) => string ?? "",
  );
  return JSON.parse(stripped.replace(/,(\s*[}\]])/g, "$1"));
}

/** One compiler option from a tsconfig, following relative `extends` (the first that sets it wins). */
export function compilerOption(tsconfig: string, option: string, depth = 0): unknown {
  let config: { extends?: unknown; compilerOptions?: Record<string, unknown> };
  try {
    config = parseJsonc(readFileSync(tsconfig, "utf8")) as typeof config;
  } catch {
    return undefined;
  }
  if (config.compilerOptions && option in config.compilerOptions) return config.compilerOptions[option];
  const parents = Array.isArray(config.extends) ? config.extends.reverse() : [config.extends];
  for (const parent of parents) {
    if (typeof parent !== "string" || !parent.startsWith(".") || depth > 10) continue;
    const path = resolve(dirname(tsconfig), parent.endsWith(".json") ? parent : `${parent}.json`);
    const value = compilerOption(path, option, depth + 1);
    if (value !== undefined) return value;
  }
  return undefined;
}
