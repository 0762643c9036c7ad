import { cpSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { end, run } from "../../../scripts/child-processes.js";
import { spawnHttp } from "../../../scripts/spawn-http.js";

/** The built CLI, as a host or a person runs it. */
export const BIN = fileURLToPath(new URL("../dist/bin.js", import.meta.url));
export const REPO = fileURLToPath(new URL("../../../", import.meta.url));
export const NOTES = join(REPO, "examples/notes/dist/main.js");
/** A server built on the official SDK, not on Toolsmith. */
export const OFFICIAL = join(REPO, "bench/servers/official-sdk.mjs");
export const FIXTURES = fileURLToPath(new URL("../test/fixtures/", import.meta.url));

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
