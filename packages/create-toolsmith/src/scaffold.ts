import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { ProjectOptions } from "./options.js";
import { packLocal } from "./pack-local.js";
import { biomeJson, gitignore, tsconfig, tsconfigTest, vitestConfig } from "./template/config-files.js";
import { mainSource } from "./template/main-source.js";
import { type PackageSources, packageJson, pnpmWorkspace } from "./template/package-json.js";
import { readme } from "./template/readme.js";
import {
  bunMain,
  denoJson,
  denoMain,
  denoTypes,
  devVars,
  workerSource,
  wranglerJsonc,
} from "./template/runtime-sources.js";
import { signInSource } from "./template/sign-in-source.js";
import { serverSource, testSource } from "./template/source-files.js";
import { tracingSource } from "./template/tracing-source.js";

/** The generated project as relative path → contents. */
export function renderProject(options: ProjectOptions, dir: string, sources: PackageSources = {}): Map<string, string> {
  const files = new Map<string, string>([
    ["package.json", packageJson(options, sources)],
    ["tsconfig.json", tsconfig(options)],
    ["biome.json", biomeJson()],
    [".gitignore", gitignore(options)],
    ["README.md", readme(options, dir)],
    ["src/server.ts", serverSource(options)],
    ["pnpm-workspace.yaml", pnpmWorkspace(sources, options)],
  ]);
  if (options.runtime === "node") files.set("src/main.ts", mainSource(options));
  if (options.runtime === "bun") files.set("src/main.ts", bunMain(options));
  if (options.runtime === "deno") {
    files.set("src/main.ts", denoMain(options));
    files.set("src/deno.d.ts", denoTypes());
    files.set("deno.json", denoJson());
  }
  if (options.runtime === "workers") {
    files.set("src/worker.ts", workerSource(options));
    files.set("wrangler.jsonc", wranglerJsonc(options));
    files.set(".dev.vars", devVars());
  }
  if (options.otel) files.set("src/tracing.ts", tracingSource(options.name));
  if (options.auth !== "none") files.set("src/sign-in.ts", signInSource(options));
  if (options.tests) {
    files.set("tsconfig.test.json", tsconfigTest());
    files.set("vitest.config.ts", vitestConfig(options));
    files.set("src/server.test.ts", testSource(options));
  }
  return files;
}

/** Why `dir` cannot take a new project, or undefined when it can. */
export function targetProblem(dir: string, force: boolean): string | undefined {
  if (!existsSync(dir)) return undefined;
  if (!statSync(dir).isDirectory()) return `${dir} exists and is not a directory`;
  const entries = readdirSync(dir).filter((entry) => entry !== ".git");
  if (entries.length > 0 && !force) {
    return `${dir} is not empty (${entries.length} ${entries.length === 1 ? "entry" : "entries"}): choose another directory, or pass --force to write into it`;
  }
  return undefined;
}

export interface ScaffoldOptions extends ProjectOptions {
  dir: string;
  /** A Toolsmith checkout to pack the packages from instead of the registry. */
  from?: string | undefined;
}

/** Write the project into `dir` (created if missing) and return the paths written. */
export async function scaffold({ dir, from, ...options }: ScaffoldOptions): Promise<string[]> {
  const sources = from ? await packLocal(from, dir) : {};
  mkdirSync(dir, { recursive: true });
  const files = renderProject(options, dir, sources);
  for (const [path, contents] of files) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), contents);
  }
  return [...files.keys()];
}
