import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm run docs`
import { entriesOf } from "../docs/api/entries.mjs";
import { run } from "./child-processes.js";

const root = new URL("..", import.meta.url).pathname;
const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const entries: { file: string; name: string }[] = entriesOf(join(root, "packages"));
const publishable = readdirSync(join(root, "packages"))
  .map((dir) => JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")))
  .filter((manifest) => !manifest.private)
  .map((manifest): string => manifest.name)
  .sort();

it("documents every publishable package, the one fixed release group of .changeset/config.json", () => {
  const changesets = JSON.parse(readFileSync(join(root, ".changeset/config.json"), "utf8"));
  expect(changesets.fixed.map((group: string[]) => [...group].sort())).toEqual([publishable]);
  expect([...new Set(entries.map((entry) => entry.name.replace(/^((?:@[^/]+\/)?[^/]+).*$/, "$1")))].sort()).toEqual(
    publishable,
  );
  for (const entry of entries) expect(existsSync(entry.file), entry.file).toBe(true);
  expect(entries.map((entry) => entry.name)).toContain("@toolsmith/core/middleware");
});

it("pnpm run docs writes the reference with no warning (a type no entry exports, a broken link)", async () => {
  const out = mkdtempSync(join(tmpdir(), "toolsmith-api-docs-"));
  folders.push(out);
  const { code, stdout, stderr } = await run(process.execPath, [join(root, "docs/api/build.mjs"), "--out", out]);
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
  expect(stdout).toContain(`docs: ${entries.length} entries in `);
  const modules = readdirSync(join(out, "modules"));
  for (const { name } of entries) expect(modules).toContain(`${name.replace(/[@/]/g, "_")}.html`);
  // An @example, as synced from packages/core/examples/middleware.ts.
  const page = readFileSync(join(out, "functions/_toolsmith_core_middleware.timeout.html"), "utf8");
  expect(page.replace(/<[^>]+>/g, "")).toContain("server.use(timeout(30_000));");
});
