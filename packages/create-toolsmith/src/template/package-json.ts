import type { ProjectOptions } from "../options.js";
import { OTEL_VERSIONS, RUNTIME_VERSIONS, TOOLSMITH_VERSION, type ToolsmithPackage, VERSIONS } from "../versions.js";
import { formatJson } from "./json.js";
import { DENO_PERMISSIONS } from "./runtime-sources.js";

/**
 * Where Toolsmith packages come from, by name: a `file:` tarball for each one `--from` packed (every publishable
 * package, used or not, so the project can add the others later); a registry range for any not named.
 */
export type PackageSources = Record<string, string>;

export function toolsmithPackages({ transport, redis, otel, auth }: ProjectOptions): ToolsmithPackage[] {
  const packages: ToolsmithPackage[] = ["@toolsmith/core", "@toolsmith/decorators"];
  if (transport !== "http") packages.push("@toolsmith/transport-stdio");
  if (transport !== "stdio") packages.push("@toolsmith/transport-http");
  if (redis) packages.push("@toolsmith/redis");
  if (otel) packages.push("@toolsmith/otel");
  if (auth !== "none") packages.push("@toolsmith/auth");
  return packages;
}

/** `toolsmith dev` for the dev script; the vitest plugin lowers TC39 decorators so tests import the source. */
export function toolsmithDevPackages({ dialect, tests }: ProjectOptions): ToolsmithPackage[] {
  return dialect === "tc39" && tests ? ["@toolsmith/cli", "@toolsmith/vitest"] : ["@toolsmith/cli"];
}

/** The command that runs the built entry on the project's runtime (a Worker runs under wrangler instead). */
export function runCommand({ runtime }: ProjectOptions): string {
  if (runtime === "bun") return "bun dist/main.js";
  if (runtime === "deno") return `deno run ${DENO_PERMISSIONS.join(" ")} dist/main.js`;
  return "node dist/main.js";
}

/** Where the HTTP server is reached: wrangler dev's port for a Worker, PORT's default elsewhere. */
export function localUrl({ runtime }: ProjectOptions): string {
  return runtime === "workers" ? "http://127.0.0.1:8787/mcp" : "http://127.0.0.1:3000/mcp";
}

export function scripts(options: ProjectOptions): Record<string, string> {
  const { runtime } = options;
  const run = runCommand(options);
  const inspectTarget = options.transport === "http" ? `--transport http --server-url ${localUrl(options)}` : run;
  const scripts: Record<string, string> = { build: "tsc" };
  if (runtime === "workers") {
    // wrangler bundles tsc's dist/worker.js and serves it in workerd, on this machine.
    scripts.dev = "tsc && wrangler dev";
    scripts.start = "wrangler dev";
    scripts.deploy = "tsc && wrangler deploy";
  } else {
    // toolsmith dev runs src/main.ts on Node; on Bun and Deno, dev rebuilds, then runs dist/main.js.
    scripts.dev = runtime === "node" ? "toolsmith dev src/main.ts" : `tsc && ${run}`;
    scripts.start = run;
  }
  if (options.transport === "both") {
    scripts["dev:http"] = runtime === "node" ? "toolsmith dev src/main.ts --http" : `tsc && ${run} --http`;
    scripts["start:http"] = `${run} --http`;
  }
  // vitest strips types without checking them: tsconfig.test.json checks the tests too.
  if (options.tests) scripts.test = "tsc -p tsconfig.test.json && vitest run";
  scripts.lint = "biome check .";
  scripts.inspect = `npm run build && npx -y @modelcontextprotocol/inspector ${inspectTarget}`;
  return scripts;
}

/** The generated package.json; `sources` overrides the registry range per Toolsmith package. */
export function packageJson(options: ProjectOptions, sources: PackageSources = {}): string {
  const toolsmith = toolsmithPackages(options);
  const dependencies: Record<string, string> = {};
  for (const name of toolsmith) dependencies[name] = sources[name] ?? `^${TOOLSMITH_VERSION}`;
  dependencies.zod = VERSIONS.zod;
  if (options.otel) Object.assign(dependencies, OTEL_VERSIONS);
  const devDependencies: Record<string, string> = {
    "@biomejs/biome": VERSIONS["@biomejs/biome"],
    "@types/node": VERSIONS["@types/node"],
    typescript: VERSIONS.typescript,
  };
  if (options.runtime === "bun") devDependencies["@types/bun"] = RUNTIME_VERSIONS["@types/bun"];
  if (options.runtime === "workers") devDependencies.wrangler = RUNTIME_VERSIONS.wrangler;
  if (options.tests) devDependencies.vitest = VERSIONS.vitest;
  for (const name of toolsmithDevPackages(options)) devDependencies[name] = sources[name] ?? `^${TOOLSMITH_VERSION}`;
  const pkg: Record<string, unknown> = {
    name: options.name,
    version: "0.1.0",
    private: true,
    type: "module",
    ...(options.runtime === "workers" ? {} : { bin: { [options.name.replace(/^@[^/]+\//, "")]: "./dist/main.js" } }),
    // Node runs the tools (tsc, vitest, biome) on every runtime; wrangler wants 22.12 or later.
    engines: { node: options.runtime === "workers" ? ">=22.12" : ">=20" },
    scripts: scripts(options),
    dependencies: sortKeys(dependencies),
    devDependencies: sortKeys(devDependencies),
  };
  // A packed package's own @toolsmith/* dependencies are plain versions, not yet on the registry: npm's overrides
  // send them to the same tarballs (pnpm reads the same map from pnpm-workspace.yaml).
  const local = localOverrides(sources);
  if (local) pkg.overrides = local;
  return formatJson(pkg);
}

export function localOverrides(sources: PackageSources): Record<string, string> | undefined {
  const entries = Object.entries(sources).filter(([, spec]) => spec.startsWith("file:"));
  return entries.length > 0 ? sortKeys(Object.fromEntries(entries)) : undefined;
}

/** pnpm's settings (npm ignores the file): pnpm ≥ 10 reads overrides only from here. */
export function pnpmWorkspace(sources: PackageSources, { runtime }: Pick<ProjectOptions, "runtime">): string {
  const lines = [
    "# esbuild's postinstall only checks its binary, which comes as an optional dependency (@esbuild/<platform>).",
    ...(runtime === "workers"
      ? ["# workerd's (wrangler's) puts its binary, an optional dependency (@cloudflare/workerd-<platform>), in place."]
      : []),
    "allowBuilds:",
    "  esbuild: false",
    ...(runtime === "workers" ? ["  workerd: true"] : []),
  ];
  const local = localOverrides(sources);
  if (local) {
    lines.push("# The Toolsmith packages come from local tarballs (create-toolsmith --from) until they are published.");
    lines.push("overrides:", ...Object.entries(local).map(([name, spec]) => `  "${name}": "${spec}"`));
  }
  return `${lines.join("\n")}\n`;
}

function sortKeys(record: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => a.localeCompare(b)));
}
