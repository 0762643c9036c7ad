import { type ChildProcess, spawn } from "node:child_process";
import { track } from "./child-processes.js";
import { WAIT_MS } from "./wait.js";

/** A started HTTP server process and the URL it said it listens on. */
export interface SpawnedHttp {
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
}

/**
 * Start `node ...args` (a server serving Streamable HTTP, `PORT=0` unless `env` says otherwise) and resolve once it
 * says on stderr which URL it listens on. Bounded: a server that exits or stays silent (for minutes) rejects, and
 * is killed. The end of the test file ends it too, if the test does not. `command`: another program than this Node.
 */
export function spawnHttp(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number; command?: string } = {},
): Promise<SpawnedHttp> {
  const child = track(
    spawn(options.command ?? process.execPath, [...args], {
      ...(options.cwd ? { cwd: options.cwd } : {}),
      env: options.env ?? { ...process.env, PORT: "0" },
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  let text = "";
  const timeoutMs = options.timeoutMs ?? WAIT_MS;
  const what = `${options.command ?? "node"} ${args.join(" ")}`;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(new Error(`gave up after ${timeoutMs / 1000} s waiting for ${what} to say its URL: ${text}`)),
      timeoutMs,
    );
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill();
      reject(error);
    };
    child.once("exit", (code) => fail(new Error(`${what} exited (${code}) before listening: ${text}`)));
    child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
      text += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url) {
        clearTimeout(timer);
        child.removeAllListeners("exit");
        resolve({ url, child, stderr: () => text });
      }
    });
  });
}
