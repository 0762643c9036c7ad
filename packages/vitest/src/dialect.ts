import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { covers, readTsconfig, type Tsconfig } from "./tsconfig.js";

/** Which decorators a file is written in, read from the tsconfig that covers it. */
export interface Dialect {
  dialect: "tc39" | "legacy";
  /** The tsconfig that decided, or undefined when none covers the file (TypeScript's defaults: TC39). */
  tsconfig: Tsconfig | undefined;
}

/** Looks up each file's dialect, caching tsconfigs and answers until `clear()`. */
export interface DialectLookup {
  (file: string): Dialect;
  /** Whether a path is one of the tsconfigs read so far (to clear the cache when it changes). */
  reads(path: string): boolean;
  clear(): void;
}

/**
 * Find the tsconfig that covers a file as vite's own transform does: the nearest tsconfig.json whose files,
 * include and exclude take the file in, or one of its references that does, else the next one up.
 * With `tsconfig` (vite's option of that name), that one file decides for every file.
 */
export function createDialectLookup(tsconfig?: string): DialectLookup {
  const configs = new Map<string, Tsconfig | undefined>();
  const answers = new Map<string, Dialect>();
  const sources = new Set<string>();
  const read = (path: string): Tsconfig | undefined => {
    if (!configs.has(path)) {
      const config = existsSync(path) ? readTsconfig(path) : undefined;
      for (const source of config?.sources ?? []) sources.add(source);
      configs.set(path, config);
    }
    return configs.get(path);
  };
  const find = (file: string): Tsconfig | undefined => {
    if (tsconfig !== undefined) return read(tsconfig);
    for (let dir = dirname(file); ; dir = dirname(dir)) {
      const config = read(join(dir, "tsconfig.json"));
      if (config && covers(config, file)) return config;
      const referenced = config?.references.map(read).find((ref) => ref && covers(ref, file));
      if (referenced) return referenced;
      if (dirname(dir) === dir) return undefined;
    }
  };
  const lookup = (file: string): Dialect => {
    let answer = answers.get(file);
    if (!answer) {
      const config = find(file);
      answer = {
        dialect: config?.compilerOptions.experimentalDecorators === true ? "legacy" : "tc39",
        tsconfig: config,
      };
      answers.set(file, answer);
    }
    return answer;
  };
  lookup.reads = (path: string) => sources.has(path);
  lookup.clear = () => {
    configs.clear();
    sources.clear();
    answers.clear();
  };
  return lookup;
}
