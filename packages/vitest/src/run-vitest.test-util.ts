import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "../../../scripts/child-processes.js";

const vitest = join(dirname(createRequire(import.meta.url).resolve("vitest/package.json")), "vitest.mjs");

/** A fixture folder under packages/vitest/test/fixtures. */
export const fixture = (name: string): string => fileURLToPath(new URL(`../test/fixtures/${name}`, import.meta.url));

/** Run vitest on a fixture in a child process, as a user would; plain output, exit status. */
export async function runVitest(root: string, args: string[] = []): Promise<{ status: number | null; output: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST")));
  const { code, stdout, stderr } = await run(process.execPath, [vitest, "run", "--root", root, ...args], {
    cwd: root,
    env: { ...env, NO_COLOR: "1", FORCE_COLOR: "0" },
  });
  return { status: code, output: `${stdout}${stderr}` };
}
