import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { run } from "./child-processes.js";

// packages/core runs anywhere: biome.json's override for packages/core/src refuses Node.js modules, process, Buffer
// and console. These lint files that break each rule with those rules alone, as the repo configures them.

const root = new URL("../", import.meta.url);
const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
const overrides: { includes: string[]; linter: { rules: object } }[] = JSON.parse(
  readFileSync(new URL("biome.json", root), "utf8"),
).overrides;
const core = overrides.find((override) => override.includes.includes("packages/core/src/**"));
const folder = mkdtempSync(join(tmpdir(), "toolsmith-core-rules-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Whether `text` fails lint, and the rules it breaks, in a folder configured with core's rules only. */
async function lint(name: string, text: string): Promise<{ fails: boolean; rules: string[] }> {
  writeFileSync(
    join(folder, "biome.json"),
    JSON.stringify({ linter: { rules: { preset: "none", ...core?.linter.rules } } }),
  );
  writeFileSync(join(folder, name), text);
  const { code, stdout, stderr } = await run(process.execPath, [biome, "lint", name], {
    cwd: folder,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { fails: code !== 0, rules: [...new Set((stdout + stderr).match(/lint\/\w+\/\w+/g) ?? [])].sort() };
}

it.each([
  ["node:fs", 'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n'],
  ["fs without the node: prefix", 'import { readFileSync } from "fs";\nexport const read = readFileSync;\n'],
  ["a dynamic import of one", 'export const load = () => import("path");\n'],
])("refuses a Node.js module: %s", async (_label, text) => {
  expect(await lint("module.ts", text)).toMatchObject({ fails: true });
});

it("refuses process, Buffer and console", async () => {
  const text = "export const a = process.env;\nexport const b = Buffer.from([]);\nconsole.log(a, b);\n";
  expect(await lint("globals.ts", text)).toEqual({
    fails: true,
    rules: ["lint/style/noRestrictedGlobals", "lint/suspicious/noConsole"],
  });
});
