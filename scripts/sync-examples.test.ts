import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm lint`
import { regionsOf, syncExamples } from "./sync-examples.mjs";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A repository of these files, in a temp folder. */
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), "toolsmith-sync-examples-"));
  folders.push(root);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, name)), { recursive: true });
    writeFileSync(join(root, name), text);
  }
  return root;
}

const EXAMPLE = [
  'import { greet } from "@demo/greet";',
  "",
  "export function hello() {",
  "  //#region greet",
  '  greet("Ada");',
  "",
  '  greet("Grace");',
  "  //#endregion greet",
  "}",
  "",
].join("\n");

function source(block: string[], indent = ""): string {
  return [
    `${indent}/**`,
    `${indent} * Greets someone.`,
    `${indent} * @example`,
    `${indent} * \`\`\`ts source="examples/greet.ts#greet"`,
    ...block.map((line) => `${indent} *${line === "" ? "" : ` ${line}`}`),
    `${indent} * \`\`\``,
    `${indent} */`,
    `${indent}export function greet(name: string): string {`,
    `${indent}  return name;`,
    `${indent}}`,
    "",
  ].join("\n");
}

const SYNCED = ['greet("Ada");', "", 'greet("Grace");'];

it("finds the repository's every @example equal to its region, every region shown", () => {
  expect(syncExamples(fileURLToPath(new URL("..", import.meta.url)), { check: true })).toEqual({
    drifted: [],
    problems: [],
  });
});

it("names a block that drifted from its file, writes nothing with --check, then rewrites it, once", () => {
  const drifted = source(['greet("Ada Lovelace");']);
  const root = repo({ "packages/greet/examples/greet.ts": EXAMPLE, "packages/greet/src/greet.ts": drifted });
  const path = join(root, "packages/greet/src/greet.ts");
  const named = ["packages/greet/src/greet.ts:3: the @example of greet differs from examples/greet.ts#greet"];
  expect(syncExamples(root, { check: true })).toEqual({ drifted: named, problems: [] });
  expect(readFileSync(path, "utf8")).toBe(drifted);
  expect(syncExamples(root)).toEqual({ drifted: named, problems: [] });
  expect(readFileSync(path, "utf8")).toBe(source(SYNCED));
  expect(syncExamples(root)).toEqual({ drifted: [], problems: [] });
  expect(syncExamples(root, { check: true })).toEqual({ drifted: [], problems: [] });
});

it("finds a block by its fence wherever its symbol went, keeping a member's indentation", () => {
  const member = `export class Greeter {\n${source(["stale"], "  ").replace("export function ", "")}}\n`;
  const root = repo({ "packages/greet/examples/greet.ts": EXAMPLE, "packages/greet/src/split/greeter.ts": member });
  expect(syncExamples(root).drifted).toEqual([
    "packages/greet/src/split/greeter.ts:4: the @example of greet differs from examples/greet.ts#greet",
  ]);
  expect(readFileSync(join(root, "packages/greet/src/split/greeter.ts"), "utf8")).toBe(
    `export class Greeter {\n${source(SYNCED, "  ").replace("export function ", "")}}\n`,
  );
});

it("refuses an @example with no source, a missing file or region, and a region no block shows", () => {
  const untyped = "/**\n * @example\n * greet(1);\n */\nexport const a = 1;\n";
  const missing = source(["x"]).replace("examples/greet.ts#greet", "examples/gone.ts#greet");
  const noRegion = source(["x"]).replace("#greet", "#wave");
  const root = repo({
    "packages/greet/examples/greet.ts": EXAMPLE,
    "packages/greet/src/a.ts": untyped,
    "packages/greet/src/b.ts": missing,
    "packages/greet/src/c.ts": noRegion,
  });
  expect(syncExamples(root, { check: true })).toEqual({
    drifted: [],
    problems: [
      'packages/greet/src/a.ts:2: an @example with no source file: open it with ```ts source="examples/<file>.ts#<region>"',
      "packages/greet/src/b.ts:4: packages/greet/examples/gone.ts is no example file of this package",
      "packages/greet/src/c.ts:4: packages/greet/examples/greet.ts has no region wave",
      "packages/greet/examples/greet.ts: region greet is shown by no @example",
    ],
  });
});

it("refuses a region that would end the comment, and regions that nest, repeat or never close", () => {
  const ends = EXAMPLE.replace('greet("Grace");', 'greet("*/");');
  const root = repo({ "packages/greet/examples/greet.ts": ends, "packages/greet/src/greet.ts": source(SYNCED) });
  expect(syncExamples(root, { check: true }).problems).toEqual([
    'packages/greet/src/greet.ts:4: examples/greet.ts#greet holds "*/", which would end the comment',
    "packages/greet/examples/greet.ts: region greet is shown by no @example",
  ]);
  const nested = "//#region a\n//#region b\n//#endregion b\n//#region a\n//#endregion c\n//#region d\n";
  expect(regionsOf(nested, "x.ts").problems).toEqual([
    "x.ts:2: region b opens inside region a",
    "x.ts:3: #endregion b closes region a",
    "x.ts:4: region a opens inside region a",
    "x.ts:5: #endregion c closes region a",
    "x.ts:6: region d opens inside region a",
    "x.ts: region a is never closed",
  ]);
  expect(regionsOf("//#region a\n//#endregion a\n//#region a\n//#endregion\n", "y.ts").problems).toEqual([
    "y.ts:3: a second region named a",
    "y.ts:4: #endregion with no region open",
  ]);
});

it("keeps a file's line endings: CRLF regions and CRLF sources give CRLF blocks, and then nothing drifts", () => {
  const crlf = (text: string) => text.replaceAll("\n", "\r\n");
  const root = repo({
    "packages/greet/examples/greet.ts": crlf(EXAMPLE),
    "packages/greet/src/a.ts": crlf(source(['greet("Ada Lovelace");'])),
    "packages/greet/src/b.ts": source(['greet("Ada Lovelace");']),
  });
  expect(syncExamples(root).problems).toEqual([]);
  expect(readFileSync(join(root, "packages/greet/src/a.ts"), "utf8")).toBe(crlf(source(SYNCED)));
  expect(readFileSync(join(root, "packages/greet/src/b.ts"), "utf8")).toBe(source(SYNCED));
  expect(syncExamples(root, { check: true })).toEqual({ drifted: [], problems: [] });
});

it("checks a checkout whose path holds a space or a non-ASCII letter (run as `node scripts/sync-examples.mjs`)", () => {
  const root = repo({
    "a checkout é/packages/greet/examples/greet.ts": EXAMPLE,
    "a checkout é/packages/greet/src/a.ts": source(['greet("Ada Lovelace");']),
    "a checkout é/scripts/sync-examples.mjs": readFileSync(new URL("sync-examples.mjs", import.meta.url), "utf8"),
  });
  const script = join(root, "a checkout é/scripts/sync-examples.mjs");
  const run = spawnSync(process.execPath, [script, "--check"], { encoding: "utf8" });
  expect(run.status).toBe(1);
  expect(run.stderr).toContain("packages/greet/src/a.ts:3: the @example of greet differs from examples/greet.ts#greet");
});
