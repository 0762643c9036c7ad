import { type ChildProcess, spawn } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { end, run, track } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";
import { within } from "../../../scripts/wait.js";

/** The built CLI, as a host or a person runs it. */
export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const NOTES = join(REPO, "examples/notes/dist/main.js");
/** A server built on the official SDK, not on Toolsmith. */
export const OFFICIAL = join(REPO, "bench/servers/official-sdk.mjs");
export const FIXTURES = fileURLToPath(new URL("../test/fixtures/", import.meta.url));
/** A server whose `chatty` tool logs at several levels, and whose `hold` (a task when it can be) and `stall` wait for SIGUSR2. */
export const CHATTY = join(FIXTURES, "chatty-server.mjs");

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Run `toolsmith …args` to its end, with `input` on its stdin; fails (naming it) only after minutes. */
export async function runCli(
  args: string[],
  options: { input?: string; cwd?: string; env?: Record<string, string> } = {},
): Promise<Run> {
  const { code, stdout, stderr } = await run(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? REPO,
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    input: options.input ?? "",
  });
  return { code, stdout, stderr };
}

/** A server started with `--http` on a free port, and its URL (said on its stderr). */
export async function startHttp(script: string): Promise<{ url: string; stop(): Promise<void> }> {
  const { url, child } = await spawnHttp([script, "--http"]);
  return { url, stop: () => end(child) };
}

/** A copy of a fixture project in a temporary folder, resolving packages through this package's node_modules. */
export function copyFixture(name: string): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `toolsmith-${name}-`));
  cpSync(join(FIXTURES, name), dir, { recursive: true });
  symlinkSync(fileURLToPath(new URL("../node_modules", import.meta.url)), join(dir, "node_modules"), "dir");
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** `toolsmith …args` running: what it said so far, and a wait for what it says next or for its end. */
export interface RunningCli {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the match once stderr (from `from` on) matches `pattern`; rejects if the CLI ends first. */
  said(pattern: RegExp, from?: number): Promise<RegExpExecArray>;
  /** Its exit, with all it said. */
  ended(): Promise<Run>;
}

/** Start `toolsmith …args` (stdin closed), ended by the test file's teardown if the test does not. */
export function startCli(args: string[], env: Record<string, string> = {}): RunningCli {
  const child = track(
    spawn(process.execPath, [BIN, ...args], {
      cwd: REPO,
      env: { ...process.env, NO_COLOR: "1", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    }),
  );
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  // "close", not "exit": by then everything it wrote has been read.
  const exit = within(
    new Promise<{ code: number | null }>((resolve) => child.once("close", (code) => resolve({ code }))),
    `toolsmith ${args.join(" ")} to end`,
  );
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    said(pattern, from = 0) {
      const what = `toolsmith ${args.join(" ")} to say ${pattern}`;
      return within(
        new Promise<RegExpExecArray>((resolve, reject) => {
          const look = () => {
            const found = pattern.exec(stderr.slice(from));
            if (!found) return false;
            child.stderr.off("data", look);
            resolve(found);
            return true;
          };
          if (look()) return;
          child.stderr.on("data", look);
          exit.then(({ code }) => {
            if (!look()) reject(new Error(`${what}, but it exited (${code}) first:\n${stderr}`));
          });
        }),
        what,
      );
    },
    async ended() {
      const { code } = await exit;
      return { code, stdout, stderr };
    },
  };
}

/** The first child process of `pid` (Linux names them in /proc): the stdio server a CLI started. */
export function childOf(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(" ")[0]);
}
