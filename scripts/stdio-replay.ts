import { run } from "./child-processes.js";

/**
 * Start a stdio server, write `lines` to its stdin, close it, and collect every stdout line until the process
 * exits by itself (a test helper for the examples; fails, after minutes, if the server never exits).
 */
export async function replay(serverPath: string, lines: string[]): Promise<{ stdout: string[]; code: number | null }> {
  const { stdout, code } = await run(process.execPath, [serverPath], { input: `${lines.join("\n")}\n` });
  return { stdout: stdout.split("\n").filter((line) => line !== ""), code };
}
