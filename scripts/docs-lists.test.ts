import { readFileSync } from "node:fs";
import { expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm lint`
import { LAYERS } from "./layers.mjs";

// The lists the docs keep of core's layers, read as a newcomer would, against the one the check enforces.
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), "utf8");

it("CONTRIBUTING.md names core's layers in the order of LAYERS", () => {
  const list = /`packages\/core\/src` is layered by folder \(([^)]*)\)/.exec(read("CONTRIBUTING.md"))?.[1] ?? "";
  expect([...list.matchAll(/`([\w-]+)\/`/g)].map((match) => match[1])).toEqual(LAYERS);
});

it("docs/architecture.md has one row per layer, in the order of LAYERS", () => {
  const rows = [...read("docs/architecture.md").matchAll(/^\| `([\w-]+)\/` \|/gm)].map((match) => match[1]);
  expect(rows).toEqual(LAYERS);
});
