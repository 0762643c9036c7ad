import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
import { run } from "./child-processes.js";
// @ts-expect-error: a plain .mjs script, shared with scripts/layers.mjs
import { importsOf, packageOf } from "./imports.mjs";

// The repo forbids import cycles through Biome's noImportCycles (biome.json); these prove the rule as configured
// there fails on a cycle, a type-only one included, and passes an acyclic graph.

const root = new URL("../", import.meta.url);
const biome = createRequire(import.meta.url).resolve("@biomejs/biome/bin/biome");
const rule = JSON.parse(readFileSync(new URL("biome.json", root), "utf8")).linter.rules.suspicious.noImportCycles;
const folders: string[] = [];

afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** `biome lint` over these files, in a folder of their own configured with only the repo's noImportCycles. */
async function lint(files: Record<string, string>): Promise<{ code: number | null; output: string }> {
  const folder = mkdtempSync(join(tmpdir(), "toolsmith-cycles-"));
  folders.push(folder);
  const config = { linter: { rules: { preset: "none", suspicious: { noImportCycles: rule } } } };
  writeFileSync(join(folder, "biome.json"), JSON.stringify(config));
  for (const [name, text] of Object.entries(files)) writeFileSync(join(folder, name), text);
  const { code, stdout, stderr } = await run(process.execPath, [biome, "lint", "."], {
    cwd: folder,
    env: { ...process.env, NO_COLOR: "1" },
  });
  return { code, output: stdout + stderr };
}

it("is an error in the repo's biome.json, type-only imports included", () => {
  expect(rule).toEqual({ level: "error", options: { ignoreTypes: false } });
});

it("fails on a cycle of type-only imports, naming the files", async () => {
  const { code, output } = await lint({
    "a.ts": 'import type { B } from "./b.js";\nexport interface A { b?: B }\n',
    "b.ts": 'import type { A } from "./a.js";\nexport interface B { a?: A }\n',
  });
  expect(code).toBe(1);
  expect(output).toContain("lint/suspicious/noImportCycles");
  expect(output).toContain("a.ts");
});

it("fails on a longer cycle through a re-export", async () => {
  const { code, output } = await lint({
    "a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
    "b.ts": 'export { c as b } from "./c.js";\n',
    "c.ts": 'import { a } from "./a.js";\nexport const c = () => a;\n',
  });
  expect(code).toBe(1);
  expect(output).toContain("lint/suspicious/noImportCycles");
});

it("passes imports that go one way", async () => {
  const { code, output } = await lint({
    "a.ts": 'import type { B } from "./b.js";\nimport { c } from "./c.js";\nexport const a = (b: B) => c(b);\n',
    "b.ts": 'import { c } from "./c.js";\nexport type B = ReturnType<typeof c>;\n',
    "c.ts": "export const c = (value: unknown) => value;\n",
  });
  expect(output).not.toContain("lint/suspicious/noImportCycles");
  expect(code).toBe(0);
});

// Biome resolves relative paths only: `import { a } from "@toolsmith/core"` inside core closes a cycle it never sees.
it("no package's shipped source imports the package itself by name", () => {
  const packages = new URL("packages/", root).pathname;
  const found: string[] = [];
  for (const folder of readdirSync(packages)) {
    const { name } = JSON.parse(readFileSync(join(packages, folder, "package.json"), "utf8"));
    const src = join(packages, folder, "src");
    for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
      if (!/\.[cm]?tsx?$/.test(file) || /\.test(-util)?\.[cm]?tsx?$/.test(file)) continue;
      for (const { spec } of importsOf(file, readFileSync(join(src, file), "utf8")) as { spec?: string }[]) {
        if (spec !== undefined && packageOf(spec) === name) found.push(`${folder}/src/${file} imports ${spec}`);
      }
    }
  }
  expect(found).toEqual([]);
});
