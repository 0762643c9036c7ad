import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { createDialectLookup } from "./dialect.js";
import { parseJsonc } from "./tsconfig.js";

function tree(files: Record<string, string | object>): string {
  const root = mkdtempSync(join(tmpdir(), "toolsmith-dialect-"));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), typeof content === "string" ? content : JSON.stringify(content));
  }
  return root;
}

const legacy = { compilerOptions: { experimentalDecorators: true } };

describe("each file's dialect, from the tsconfig that covers it", () => {
  it("takes the nearest tsconfig.json that includes the file, else the next one up, else TC39", () => {
    const root = tree({
      "tsconfig.json": legacy,
      "pkg/tsconfig.json": { include: ["src"], exclude: ["src/**/*.test.ts"] },
      "pkg/src/a.ts": "",
      "pkg/src/a.test.ts": "",
      "pkg/test/b.ts": "",
    });
    const lookup = createDialectLookup();
    expect(lookup(join(root, "pkg/src/a.ts"))).toMatchObject({
      dialect: "tc39",
      tsconfig: { path: join(root, "pkg/tsconfig.json") },
    });
    // Excluded or not included by the nearest: the parent's (legacy) decides, as for vite's own transform.
    expect(lookup(join(root, "pkg/src/a.test.ts")).tsconfig?.path).toBe(join(root, "tsconfig.json"));
    expect(lookup(join(root, "pkg/test/b.ts")).dialect).toBe("legacy");
    expect(createDialectLookup()(join(tmpdir(), "nowhere", "c.ts"))).toEqual({ dialect: "tc39", tsconfig: undefined });
  });

  it("follows a solution tsconfig's references and extends, in JSONC", () => {
    const root = tree({
      "tsconfig.json": { files: [], references: [{ path: "./tsconfig.test.json" }, { path: "./app" }] },
      "tsconfig.test.json": '{ "extends": "./base.json", "include": ["test/**/*.ts",], }',
      "base.json":
        '// shared\n{ "compilerOptions": { /* the old kind */ "experimentalDecorators": true, "target": "ES2022" } }',
      "app/tsconfig.json": { compilerOptions: { experimentalDecorators: false } },
      "test/a.ts": "",
      "app/b.ts": "",
    });
    const lookup = createDialectLookup();
    const test = lookup(join(root, "test/a.ts"));
    expect(test).toMatchObject({ dialect: "legacy", tsconfig: { compilerOptions: { target: "ES2022" } } });
    expect(lookup.reads(join(root, "base.json"))).toBe(true);
    expect(lookup(join(root, "app/b.ts")).dialect).toBe("tc39");
  });

  it("with vite's tsconfig option, that file decides for every file, as it does for vite", () => {
    const root = tree({ "legacy.json": legacy, "tsconfig.json": { include: ["src"] }, "other/c.ts": "" });
    expect(createDialectLookup(join(root, "legacy.json"))(join(root, "other/c.ts")).dialect).toBe("legacy");
  });

  it("caches answers until cleared", () => {
    const root = tree({ "tsconfig.json": {}, "a.ts": "" });
    const lookup = createDialectLookup();
    expect(lookup(join(root, "a.ts")).dialect).toBe("tc39");
    writeFileSync(join(root, "tsconfig.json"), JSON.stringify(legacy));
    expect(lookup(join(root, "a.ts")).dialect).toBe("tc39");
    lookup.clear();
    expect(lookup(join(root, "a.ts")).dialect).toBe("legacy");
  });

  it("reads comments and trailing commas but not inside strings", () => {
    expect(parseJsonc('{ "a": "http://x/*y*/", // c\n "b": [1, 2,], }')).toEqual({ a: "http://x/*y*/", b: [1, 2] });
  });
});
