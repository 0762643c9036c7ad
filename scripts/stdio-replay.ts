import { spawn } from "node:child_process";

/**
 * Start a stdio server, write `lines` to its stdin, close it, and collect every stdout line until the process
 * exits by itself (a test helper for the examples; fails after 15 s if the server never exits).
 */
export function replay(serverPath: string, lines: string[]): Promise<{ stdout: string[]; code: number | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [serverPath], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error("the server did not exit after stdin closed"));
    }, 15_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ stdout: out.split("\n").filter((line) => line !== ""), code });
    });
    child.stdin.end(`${lines.join("\n")}\n`);
  });
}
