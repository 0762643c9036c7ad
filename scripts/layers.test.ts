import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm lint`
import { AUTH_LAYERS, HTTP_LAYERS, LAYERS, layerViolations, PACKAGES } from "./layers.mjs";

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

it("transport-http's own tree imports only downward, and every folder it has is one of its layers", () => {
  const src = new URL("../packages/transport-http/src", import.meta.url).pathname;
  expect(layerViolations(src, "@toolsmith/transport-http")).toEqual([]);
  const folders = readdirSync(src, { withFileTypes: true }).filter((entry) => entry.isDirectory());
  expect(folders.map((entry) => entry.name).sort()).toEqual([...HTTP_LAYERS].sort());
});

it("each layered package is checked from its own src/, with its own list", () => {
  expect(Object.keys(PACKAGES)).toEqual(["@toolsmith/core", "@toolsmith/transport-http", "@toolsmith/auth"]);
  expect(PACKAGES["@toolsmith/core"]).toMatchObject({
    layers: LAYERS,
    entries: ["index.ts", "transport.ts", "engine.ts", "internal.ts"],
  });
  expect(PACKAGES["@toolsmith/transport-http"]).toMatchObject({ layers: HTTP_LAYERS, entries: ["index.ts", "web.ts"] });
  expect(PACKAGES["@toolsmith/auth"]).toMatchObject({ layers: AUTH_LAYERS, entries: ["index.ts"] });
  expect(() => layerViolations(tree({}), "@toolsmith/elsewhere")).toThrow(/not a layered package/);
});

// transport-http's configuration: the same rules, its own folders, its two entries.
it("names an upward import in transport-http's layers, and passes one pointing down", () => {
  const src = tree({
    "index.ts": 'export { listen } from "./doors/node-server.js";\n',
    "exchange/exchange.ts": 'import type { Listen } from "../doors/node-server.js";\nexport type E = Listen;\n',
    "checks/versions.ts": 'import { s } from "../sessions/s.js";\nexport const v = s;\n',
    "sessions/s.ts": 'import { e } from "../exchange/e.js";\nexport const s = e;\n',
    "exchange/e.ts": "export const e = 1;\n",
    "doors/node-server.ts":
      'import { s } from "../sessions/s.js";\nexport type Listen = 1;\nexport const listen = s;\n',
    "doors/node-server.test.ts": 'import { e } from "../exchange/e.js";\n',
  });
  expect(layerViolations(src, "@toolsmith/transport-http").sort()).toEqual([
    "checks/versions.ts imports ../sessions/s.js: sessions/ sits above checks/",
    "exchange/exchange.ts imports ../doors/node-server.js: doors/ sits above exchange/",
  ]);
});

it("refuses in transport-http a folder not in HTTP_LAYERS, a core folder, a file beside index.ts, its own name", () => {
  const src = tree({
    "index.ts": "export {};\n",
    "internal.ts": "export {};\n",
    "wire/w.ts": "export const w = 1;\n",
    "stateless/self.ts": 'export { listen } from "@toolsmith/transport-http";\n',
    "stateless/core.ts": 'export { createServer } from "@toolsmith/core";\n',
  });
  expect(layerViolations(src, "@toolsmith/transport-http").sort()).toEqual([
    "internal.ts sits beside the entries (index.ts, web.ts): put it in the layer it belongs to",
    "stateless/self.ts imports @toolsmith/transport-http: the package itself, above every layer; import the file",
    "wire/ is not a layer: add it to HTTP_LAYERS in scripts/layers.mjs, in its place",
  ]);
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
  const src = tree({ "plugins/e.ts": "export const e = 1;\n", "wire/w.ts": 'import "../../elsewhere.js";\n' });
  expect(layerViolations(src)).toEqual([
    "plugins/ is not a layer: add it to LAYERS in scripts/layers.mjs, in its place",
    "wire/w.ts imports ../../elsewhere.js: outside the layers",
  ]);
  expect(LAYERS[0]).toBe("wire");
});

// Ways around a check that reads imports as text: each must still be named.
it("names an upward import however it is written", () => {
  const src = tree({
    "server/s.ts": "export const s = 1;\nexport type S = 1;\n",
    "wire/template.ts": "export const t = () => import(`../server/s.js`);\n",
    "wire/single.ts": "import { s } from '../server/s.js';\nexport const a = s;\n",
    "wire/tight.ts": 'export {s}from"../server/s.js";\n',
    "wire/type-query.ts": 'export type T = import("../server/s.js").S;\n',
    "wire/star.ts": 'export * from "../server/s.js";\n',
    "wire/multi.ts": 'import {\n  s,\n  type S,\n} from\n  "../server/s.js";\nexport const m: S = s;\n',
    "wire/reference.ts": '/// <reference path="../server/s.ts" />\nexport {};\n',
    "wire/module.mts": 'export { s } from "../server/s.js";\n',
  });
  expect(layerViolations(src).sort()).toEqual(
    ["module.mts", "multi.ts", "reference.ts", "single.ts", "star.ts", "template.ts", "tight.ts", "type-query.ts"].map(
      (file) => `wire/${file} imports ../server/${file === "reference.ts" ? "s.ts" : "s.js"}: server/ sits above wire/`,
    ),
  );
});

it("refuses the package's own name or entries, a computed import(), and shipped code importing a test helper", () => {
  const src = tree({
    "wire/self.ts": 'export { createServer } from "@toolsmith/core";\n',
    "wire/internal.ts": 'import { keyOf } from "@toolsmith/core/internal";\nexport const k = keyOf;\n',
    "wire/computed.ts": "export const load = (name: string) => import(name);\n",
    "wire/helper.test-util.ts": 'export { s } from "../server/s.js";\n',
    "wire/launder.ts": 'export { s } from "./helper.test-util.js";\n',
    "wire/entry.ts": 'export { createServer } from "../index.js";\nexport { keyOf } from "../internal.js";\n',
    // ../engine.js is the entry beside src/, not a file of the engine/ layer.
    "protocol/engine-entry.ts":
      'export type { Engine } from "../engine.js";\nexport { idText } from "../transport.js";\n',
    "server/s.ts": "export const s = 1;\n",
  });
  expect(layerViolations(src).sort()).toEqual([
    "protocol/engine-entry.ts imports ../engine.js: an entry point, above every layer; import the file",
    "protocol/engine-entry.ts imports ../transport.js: an entry point, above every layer; import the file",
    "wire/computed.ts imports a computed path (name): no check can follow it",
    "wire/entry.ts imports ../index.js: an entry point, above every layer; import the file",
    "wire/entry.ts imports ../internal.js: an entry point, above every layer; import the file",
    "wire/internal.ts imports @toolsmith/core/internal: the package itself, above every layer; import the file",
    "wire/launder.ts imports ./helper.test-util.js: a test file, left out of the build",
    "wire/self.ts imports @toolsmith/core: the package itself, above every layer; import the file",
  ]);
});

it("lets only engine-suite/ import vitest, an optional peer: no other layer or entry may load it", () => {
  const src = tree({
    "engine-suite/suite.ts": 'import { describe } from "vitest";\nexport const d = describe;\n',
    "engine-suite/suite.test.ts": 'import { it } from "vitest";\n',
    "engine/memory.ts": 'import { vi } from "vitest";\nexport const v = vi;\n',
    "testing/client.ts": 'export type T = import("vitest/node").TestProject;\n',
    "index.ts": 'export { it } from "vitest";\nexport * from "./engine/memory.js";\n',
  });
  expect(layerViolations(src).sort()).toEqual([
    "engine/memory.ts imports vitest: only engine-suite/ may (vitest is an optional peer)",
    "index.ts imports vitest: only engine-suite/ may (vitest is an optional peer)",
    "testing/client.ts imports vitest/node: only engine-suite/ may (vitest is an optional peer)",
  ]);
});

it("refuses a symlink and a source file beside the entries", () => {
  const src = tree({ "server/s.ts": "export const s = 1;\n", "wire/w.ts": "export const w = 1;\n" });
  symlinkSync("../server", join(src, "wire", "up"));
  symlinkSync("../server/s.ts", join(src, "wire", "s.ts"));
  writeFileSync(join(src, "helpers.ts"), 'export * from "./server/s.js";\n');
  writeFileSync(join(src, "helpers.test.ts"), "export {};\n");
  expect(layerViolations(src).sort()).toEqual([
    "helpers.ts sits beside the entries (index.ts, transport.ts, engine.ts, internal.ts): put it in the layer it belongs to",
    "wire/s.ts is a symlink: a layer holds its own files",
    "wire/up is a symlink: a layer holds its own files",
  ]);
});
