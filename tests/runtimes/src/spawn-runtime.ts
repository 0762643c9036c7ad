import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { end, exited, track } from "../../../scripts/child-processes.js";
import { WAIT_MS } from "../../../scripts/wait.js";
import type { Runtime } from "./runtimes.js";

/** The built script that serves the shared suite's fixtures over HTTP (`npx -y pnpm@12.4.2 run build` first). */
export const SERVE_HTTP = fileURLToPath(new URL("../dist/serve-http.js", import.meta.url));

/** How a runtime serves HTTP: its own server with `createHttpHandler`, or Toolsmith's node:http `listen`. */
export type Door = "serve" | "listen";

/** A server process of a runtime, up once it said on stderr a line that matched. */
export interface RuntimeProcess {
  child: ChildProcess;
  /** What the line the process was waited for captured (its first group). */
  said: string;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, resolved once it exited (with whatever code: `exited` tells). */
  stop(): Promise<void>;
  /** Its exit, once it comes. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Start `script` under `runtime` and resolve once a line on its stderr matches `ready`. Bounded: a process that
 * exits or stays silent rejects (and is ended), naming the runtime and what it said.
 */
export function startRuntime(
  runtime: Runtime,
  script: string,
  args: readonly string[],
  ready: RegExp,
  env: Readonly<Record<string, string>> = {},
): Promise<RuntimeProcess> {
  const child = track(
    spawn(runtime.command, runtime.args(script, args), { env: runtime.env(env), stdio: ["ignore", "pipe", "pipe"] }),
  );
  let text = "";
  let stdout = "";
  const what = `${runtime.name} ${script} ${args.join(" ")}`;
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    stdout += chunk;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      clearTimeout(timer);
      void end(child);
      reject(error);
    };
    const timer = setTimeout(
      () => fail(new Error(`gave up after ${WAIT_MS / 1000} s waiting for ${what} to be ready: ${text}`)),
      WAIT_MS,
    );
    child.once("error", (error) => fail(new Error(`${what} could not start: ${error.message}`)));
    const early = (code: number | null, signal: NodeJS.Signals | null) =>
      fail(new Error(`${what} exited (${code ?? signal}) before it was ready:\n${text}${stdout}`));
    child.once("exit", early);
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const found = ready.exec(text);
      if (found) {
        clearTimeout(timer);
        child.off("exit", early);
        const stop = async () => {
          if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
          await exited(child, `${what} to exit on SIGTERM`);
        };
        resolve({ child, said: found[1] ?? found[0], stderr: () => text, stop, exited: exit });
      }
    });
  });
}

/** The fixtures a runtime serves over HTTP through `door`, by name, and the process serving them. */
export async function serveFixtures(
  runtime: Runtime,
  door: Door,
  options: { fixtures?: readonly string[]; env?: Readonly<Record<string, string>> } = {},
): Promise<RuntimeProcess & { urls: Record<string, string> }> {
  const args = ["--door", door, ...(options.fixtures ? ["--fixtures", options.fixtures.join(",")] : [])];
  const served = await startRuntime(runtime, SERVE_HTTP, args, /^listening (\{.*\})$/m, options.env);
  return { ...served, urls: JSON.parse(served.said) as Record<string, string> };
}
