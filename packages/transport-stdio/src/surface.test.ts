import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (reads a module's exports from its syntax)
import { exportedNames } from "../../../scripts/imports.mjs";

// Every export is a promise: a name joins or leaves an entry only by changing these lists on purpose.
const SURFACE: Record<string, { file: string; values: string[]; types: string[] }> = {
  "@toolsmith/transport-stdio": {
    file: "./index.ts",
    values: ["LineReader", "redirectStdout", "releaseStdout", "serveStdio"],
    types: ["LineEvent", "StdioConnection", "StdioOptions", "StdoutRedirect", "WireEntry"],
  },
  "@toolsmith/transport-stdio/redirect-stdout": {
    file: "./redirect-on-import.ts",
    values: ["releaseStdout"],
    types: [],
  },
};

describe("@toolsmith/transport-stdio's public surface", () => {
  for (const [entry, { file, values, types }] of Object.entries(SURFACE)) {
    it(`${entry} exports exactly its listed values`, async () => {
      const module = (await import(/* @vite-ignore */ file)) as object;
      expect(Object.keys(module).sort()).toEqual([...values].sort());
    });

    it(`${entry} declares exactly its listed values and types`, async () => {
      // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
      const raw = `${file}?raw`;
      const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
      expect(exportedNames(file, source)).toEqual([...values, ...types].sort());
    });
  }

  it("maps each entry of package.json to the file listed here", async () => {
    const { default: manifest } = (await import("../package.json", { with: { type: "json" } })) as {
      default: { exports: Record<string, { "@toolsmith/source": string }> };
    };
    const entries = Object.fromEntries(
      Object.entries(manifest.exports).map(([path, target]) => [
        `@toolsmith/transport-stdio${path.slice(1)}`,
        target["@toolsmith/source"].replace("./src/", "./"),
      ]),
    );
    expect(entries).toEqual(Object.fromEntries(Object.entries(SURFACE).map(([entry, { file }]) => [entry, file])));
  });
});
