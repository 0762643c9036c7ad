import { spawn } from "node:child_process";
import { exited, track } from "./child-processes.js";
import { WAIT_MS } from "./wait.js";

/**
 * Start a stdio server, write `lines` to its stdin, close it, and collect every stdout line until the process
 * exits by itself (a test helper for the examples; fails after minutes if the server never exits).
 */
export async function replay(serverPath: string, lines: string[]): Promise<{ stdout: string[]; code: number | null }> {
  const child = track(spawn(process.execPath, [serverPath], { stdio: ["pipe", "pipe", "pipe"] }));
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
  });
  child.stdin.end(`${lines.join("\n")}\n`);
  const what = `${serverPath} to exit after its stdin closed`;
  const { code } = await exited(child, what, WAIT_MS).catch((error: Error) => {
    child.kill("SIGKILL");
    throw error;
  });
  return { stdout: out.split("\n").filter((line) => line !== ""), code };
}
