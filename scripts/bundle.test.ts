import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script, run by `pnpm run build`
import { BUNDLED, entryPoints, SHARED } from "./bundle.mjs";

// What `pnpm run build` leaves in a bundled package's dist: its entries and their shared chunks, each with a source
// map into src, and the declarations its exports name. Nothing else ships (a stale per-module file would).
const root = fileURLToPath(new URL("..", import.meta.url));

interface Manifest {
  name: string;
  exports: Record<string, Record<string, string>>;
}

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)));
}

describe.each(BUNDLED as string[])("the built dist of %s", (name) => {
  const dir = join(root, "packages", name);
  const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Manifest;
  const dist = join(dir, "dist");

  it("holds one .js per exports entry plus shared chunks, each mapped back to existing sources", () => {
    if (!existsSync(join(dist, "index.js"))) throw new Error(`${dist} is not built: npx -y pnpm@12.4.2 run build`);
    const js = files(dist).filter((file) => file.endsWith(".js"));
    const entries = Object.keys(entryPoints(manifest)).map((out) => `${out}.js`);
    expect(js.filter((file) => !file.startsWith("chunks/")).sort()).toEqual(entries.sort());
    for (const file of js) {
      const text = readFileSync(join(dist, file), "utf8");
      expect(text, file).toMatch(/\n\/\/# sourceMappingURL=[^/\n]+\.js\.map\n$/);
      const map = JSON.parse(readFileSync(join(dist, `${file}.map`), "utf8")) as { sources: string[] };
      for (const source of map.sources) {
        const path = join(dist, dirname(file), source);
        expect(path.startsWith(join(dir, "src")) && existsSync(path), `${file} maps to ${source}`).toBe(true);
      }
    }
    for (const conditions of Object.values(manifest.exports)) {
      expect(existsSync(join(dir, conditions.types ?? "")), conditions.types).toBe(true);
    }
  });

  it("makes each of its shared entries the re-exports of one module, chunks/shared.js", () => {
    const shared = (SHARED as Record<string, string[]>)[name] ?? [];
    const outs = Object.entries(entryPoints(manifest) as Record<string, string>).filter(([, source]) =>
      shared.includes(source),
    );
    expect(outs.length).toBe(shared.length);
    for (const [out] of outs) {
      const text = readFileSync(join(dist, `${out}.js`), "utf8");
      expect(text, out).toMatch(/^export \{ [\w$, ]+ \} from "(\.\.?\/)+chunks\/shared\.js";\n\/\/# sourceMappingURL=/);
    }
  });
});

describe("entryPoints", () => {
  it("refuses an export whose JavaScript would not sit where tsc writes its declarations", () => {
    const manifest = (target: string, types: string) => ({
      name: "x",
      exports: { ".": { "@toolsmith/source": "./src/index.ts", types, default: target } },
    });
    expect(entryPoints(manifest("./dist/index.js", "./dist/index.d.ts"))).toEqual({ index: "./src/index.ts" });
    expect(() => entryPoints(manifest("./dist/main.js", "./dist/main.d.ts"))).toThrow(/must mirror/);
    expect(() => entryPoints(manifest("./dist/index.js", "./types/index.d.ts"))).toThrow(/must mirror/);
  });
});
