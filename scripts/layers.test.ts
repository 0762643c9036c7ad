import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm lint`
import { LAYERS, layerViolations } from "./layers.mjs";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** A source tree of these files, in a temp folder. */
function tree(files: Record<string, string>): string {
  const src = mkdtempSync(join(tmpdir(), "toolsmith-layers-"));
  folders.push(src);
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(src, name)), { recursive: true });
    writeFileSync(join(src, name), text);
  }
  return src;
}

it("core's own tree imports only downward", () => {
  expect(layerViolations(new URL("../packages/core/src", import.meta.url).pathname)).toEqual([]);
});

it("names an upward import, static, type-only or dynamic", () => {
  const src = tree({
    "wire/a.ts": 'import { s } from "../server/s.js";\n',
    "protocol/b.ts": 'import type { C } from "../context/c.js";\n',
    "schema/c.ts": 'export const c = () => import("../registry/r.js");\n',
    "server/s.ts": "export const s = 1;\n",
    "context/c.ts": "export type C = 1;\n",
    "registry/r.ts": "export const r = 1;\n",
  });
  expect(layerViolations(src).sort()).toEqual([
    "protocol/b.ts imports ../context/c.js: context/ sits above protocol/",
    "schema/c.ts imports ../registry/r.js: registry/ sits above schema/",
    "wire/a.ts imports ../server/s.js: server/ sits above wire/",
  ]);
});

it("lets a layer import itself and anything below, entries import anything, tests anything", () => {
  const src = tree({
    "index.ts": 'export * from "./server/s.js";\n',
    "server/s.ts": 'import { w } from "../wire/w.js";\nimport { t } from "./t.js";\nexport const s = w + t;\n',
    "server/t.ts": "export const t = 1;\n",
    "wire/w.ts": "export const w = 1;\n",
    "wire/w.test.ts": 'import { s } from "../server/s.js";\n',
  });
  expect(layerViolations(src)).toEqual([]);
});

it("refuses a folder that is not a layer and an import out of the tree", () => {
  const src = tree({ "engine/e.ts": "export const e = 1;\n", "wire/w.ts": 'import "../../elsewhere.js";\n' });
  expect(layerViolations(src)).toEqual([
    "engine/ is not a layer: add it to LAYERS in scripts/layers.mjs, in its place",
    "wire/w.ts imports ../../elsewhere.js: outside the layers",
  ]);
  expect(LAYERS[0]).toBe("wire");
});
