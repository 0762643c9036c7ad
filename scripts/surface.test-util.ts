import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (reads a module's exports from its syntax)
import { exportedNames } from "./imports.mjs";

/** What one entry of a package exports: its values (at run time) and its types (declared only). */
export interface EntrySurface {
  readonly values: readonly string[];
  readonly types: readonly string[];
}

/**
 * Every export is a promise: a name joins or leaves a package only by changing its list on purpose. For each entry
 * file (relative to the package's `src/`, where `here`, the calling test's `import.meta.url`, is): its values as
 * loaded, its values and types as its source declares them, and that package.json's `exports` lists exactly these
 * entries.
 */
export function surfaceSuite(name: string, here: string, entries: Readonly<Record<string, EntrySurface>>): void {
  describe.each(Object.entries(entries))(`${name}'s public surface: %s`, (file, { values, types }) => {
    it("exports exactly its listed values", async () => {
      const module = (await import(/* @vite-ignore */ new URL(file, here).href)) as object;
      expect(Object.keys(module).sort()).toEqual([...values].sort());
    });

    it("declares exactly its listed values and types", () => {
      const source = readFileSync(new URL(file, here), "utf8");
      expect(exportedNames(file, source)).toEqual([...values, ...types].sort());
    });
  });

  it(`${name} lists every entry in package.json's exports`, () => {
    const manifest = JSON.parse(readFileSync(new URL("../package.json", here), "utf8")) as {
      exports: Record<string, Record<string, string>>;
    };
    const sources = Object.values(manifest.exports).map((entry) =>
      entry["@toolsmith/source"]?.replace(/^\.\/src\//, ""),
    );
    expect(sources.sort()).toEqual(Object.keys(entries).sort());
  });
}
