import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, shared by the layer check, the dependency check and the surface tests
import { exportedNames, importsOf, packageOf } from "./imports.mjs";

it("reads imports from syntax: type-only, re-exports, template import(), not strings or comments", () => {
  const source = [
    'import type { A } from "a";',
    "export * from 'b';",
    "const c = () => import(`c/sub`);",
    'type D = import("@d/pkg/sub").D;',
    '// import "not-a";',
    "const code = 'import x from \"not-b\"';",
    'import "node:fs";',
  ].join("\n");
  const specs = (importsOf("x.ts", source) as { spec?: string }[]).map(({ spec }) => spec);
  expect(specs).toEqual(["a", "b", "c/sub", "@d/pkg/sub", "node:fs"]);
  expect(specs.map(packageOf)).toEqual(["a", "b", "c", "@d/pkg", undefined]);
});

it("reads every exported name, local and re-exported, types too, and shows an export * as such", () => {
  const source = [
    'export { a, type B, c as d } from "./x.js";',
    'export type * from "./t.js";',
    'export * as ns from "./n.js";',
    "export const f = 1;",
    "export interface G {}",
    "export default 1;",
  ].join("\n");
  expect(exportedNames("x.ts", source)).toEqual(['* from "./t.js"', "B", "G", "a", "d", "default", "f", "ns"]);
});
