import { type ChildProcess, spawn } from "node:child_process";

/** A started HTTP server process and the URL it said it listens on. */
export interface SpawnedHttp {
  url: string;
  child: ChildProcess;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
}

/**
 * Start `node ...args` (a server serving Streamable HTTP, `PORT=0` unless `env` says otherwise) and resolve once it
 * says on stderr which URL it listens on. Bounded: a server that exits or stays silent rejects, and is killed.
 */
export function spawnHttp(
  args: readonly string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<SpawnedHttp> {
  const child = spawn(process.execPath, [...args], {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env: options.env ?? { ...process.env, PORT: "0" },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let text = "";
  const timeoutMs = options.timeoutMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`no URL on stderr within ${timeoutMs} ms: ${text}`)), timeoutMs);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill();
      reject(error);
    };
    child.once("exit", (code) => fail(new Error(`server exited (${code}) before listening: ${text}`)));
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
