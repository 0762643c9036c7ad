import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (reads a module's exports from its syntax)
import { exportedNames } from "../../../scripts/imports.mjs";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const ENTRIES = {
  "index.ts": {
    values: [
      "CheckoutError",
      "DEFAULTS",
      "DIALECTS",
      "LOCAL_PACKAGES_DIR",
      "OTEL_VERSIONS",
      "TOOLSMITH_VERSION",
      "TRANSPORTS",
      "UsageError",
      "VERSIONS",
      "className",
      "packLocal",
      "packageNameProblems",
      "parseCliArgs",
      "projectFromTarget",
      "publishablePackages",
      "renderProject",
      "run",
      "scaffold",
      "targetProblem",
    ],
    types: [
      "CliArgs",
      "Dialect",
      "PackageSources",
      "ProjectOptions",
      "RunIo",
      "ScaffoldOptions",
      "ToolsmithPackage",
      "Transport",
      "WorkspacePackage",
    ],
  },
};

describe.each(Object.entries(ENTRIES))("create-toolsmith's public surface: %s", (file, { values, types }) => {
  it("exports exactly its listed values", async () => {
    const module = (await import(/* @vite-ignore */ `./${file.replace(/\.ts$/, ".js")}`)) as object;
    expect(Object.keys(module).sort()).toEqual([...values].sort());
  });

  it("declares exactly its listed values and types", async () => {
    // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
    const raw = `./${file}?raw`;
    const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
    expect(exportedNames(file, source)).toEqual([...values, ...types].sort());
  });
});

it("lists every entry in package.json's exports", () => {
  const manifest = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
    exports: Record<string, Record<string, string>>;
  };
  const sources = Object.values(manifest.exports).map((entry) => entry["@toolsmith/source"]?.replace(/^\.\/src\//, ""));
  expect(sources.sort()).toEqual(Object.keys(ENTRIES).sort());
});
