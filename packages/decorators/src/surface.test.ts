import { describe, expect, it } from "vitest";
// @ts-expect-error: a plain .mjs script (reads a module's exports from its syntax)
import { exportedNames } from "../../../scripts/imports.mjs";

// Every export is a promise: a name joins or leaves the package only by changing these lists on purpose.
const VALUES = ["McpServer", "prompt", "resource", "schemaClass", "tool", "use"];
const TYPES = [
  "Args",
  "CompleteMethod",
  "CompleteOption",
  "GuardMethod",
  "GuardOption",
  "HostOf",
  "IsTemplate",
  "LegacyToolParams",
  "ListMethod",
  "McpServerOptions",
  "NamedMethod",
  "PromptOptions",
  "PromptParams",
  "PromptResult",
  "ResourceOptions",
  "ResourceParams",
  "SchemaClass",
  "SchemaInstance",
  "TemplateVariables",
  "ToolOptions",
  "ToolParams",
  "ToolResult",
  "ToolsmithDecorator",
];

describe("@toolsmith/decorators' public surface", () => {
  it("exports exactly its listed values", async () => {
    expect(Object.keys(await import("./index.js")).sort()).toEqual([...VALUES].sort());
  });

  it("declares exactly its listed values and types", async () => {
    // A runtime string: vite reads the file's text; tsc does not try to resolve a `?raw` module.
    const raw = "./index.ts?raw";
    const { default: source } = (await import(/* @vite-ignore */ raw)) as { default: string };
    expect(exportedNames("index.ts", source)).toEqual([...VALUES, ...TYPES].sort());
  });

  it("has one entry", async () => {
    const { default: manifest } = (await import("../package.json", { with: { type: "json" } })) as {
      default: { exports: Record<string, unknown> };
    };
    expect(Object.keys(manifest.exports)).toEqual(["."]);
  });
});
