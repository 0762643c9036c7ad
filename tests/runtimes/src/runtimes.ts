import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

/** A JavaScript runtime other than Node, installed from npm through the lockfile. */
export interface Runtime {
  readonly name: "bun" | "deno";
  /** The runtime's own binary (not a node wrapper around it: a signal must reach the runtime). */
  readonly command: string;
  /** The arguments that run `script` (built JS or TypeScript) with `args`, the runtime's own `flags` before it. */
  args(script: string, args?: readonly string[], flags?: readonly string[]): string[];
  /** The environment a process of it runs with: the tests' own, and no look-ups of newer versions. */
  env(extra?: Readonly<Record<string, string>>): Record<string, string>;
}

const require = createRequire(import.meta.url);
const packageDir = (name: string) => dirname(require.resolve(`${name}/package.json`));

const INSTALL_HINT =
  "install it through the lockfile (npx -y pnpm@12.4.2 install --frozen-lockfile), whose allowBuilds in " +
  "pnpm-workspace.yaml lets its postinstall put the binary in place";

function baseEnv(extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { ...(process.env as Record<string, string>), DENO_NO_UPDATE_CHECK: "1", DENO_NO_PROMPT: "1", ...extra };
}

/**
 * The runtime, checked to start (`--version` answers its pinned version); throws one error that says what is
 * wrong otherwise, so a runtime that cannot start fails its test file rather than skipping it.
 */
export function runtime(name: Runtime["name"]): Runtime {
  const dir = packageDir(name);
  const version = (require(`${name}/package.json`) as { version: string }).version;
  // bun's postinstall writes the binary over bin/bun.exe; deno's puts it beside bin.cjs as `deno`.
  const command = name === "bun" ? join(dir, "bin", "bun.exe") : join(dir, "deno");
  if (!existsSync(command)) throw new Error(`${name} ${version} cannot start: ${command} is missing; ${INSTALL_HINT}`);
  const probe = spawnSync(command, ["--version"], { encoding: "utf8", env: baseEnv() });
  const said = `${probe.stdout ?? ""}${probe.stderr ?? ""}`.trim();
  if (probe.error || probe.status !== 0 || !said.includes(version)) {
    const why = probe.error ? probe.error.message : `--version said ${JSON.stringify(said.slice(0, 300))}`;
    throw new Error(`${name} ${version} cannot start: ${command}: ${why}; ${INSTALL_HINT}`);
  }
  return {
    name,
    command,
    // Deno: every permission (the servers read env and bind ports), and request.signal aborted only when a client
    // goes away (Deno 2.9 also aborts it after every response served, and warns on stderr that it does).
    args: (script, args = [], flags = []) =>
      name === "bun"
        ? [...flags, script, ...args]
        : ["run", "-A", "--unstable-no-legacy-abort", ...flags, script, ...args],
    env: baseEnv,
  };
}

/** Both runtimes, each checked to start. */
export const RUNTIME_NAMES = ["bun", "deno"] as const;
