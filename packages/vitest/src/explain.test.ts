import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { explainDecoratorSyntaxError } from "./explain.js";

const dir = mkdtempSync(join(tmpdir(), "toolsmith-explain-"));
const file = join(dir, "server.ts");
writeFileSync(file, 'import { tool } from "x";\n\nclass S {\n  @tool({ description: "x" })\n  x() {}\n}\n');
const vmStack = (code: string) =>
  `${file}:9\n\t${code}\n\t^\n\nSyntaxError: Invalid or unexpected token\n    at new Script`;

describe("explainDecoratorSyntaxError", () => {
  it("names the first decorator's line in the source and the plugin to add", () => {
    const error = { name: "SyntaxError", message: "Invalid or unexpected token", stack: vmStack("@(0,x.tool)({") };
    expect(explainDecoratorSyntaxError(error, dir)).toBe(true);
    expect(error.message).toMatch(/^Invalid or unexpected token: server\.ts:4:3 uses a TC39 decorator/);
    expect(error.message).toContain("plugins: [toolsmith()]");
    // Once is enough: a second reporter pass leaves it alone.
    const once = error.message;
    expect(explainDecoratorSyntaxError(error, dir)).toBe(false);
    expect(error.message).toBe(once);
  });

  it("leaves other errors alone", () => {
    const other = { name: "SyntaxError", message: "Unexpected identifier", stack: vmStack("let let = 1") };
    const thrown = { name: "Error", message: "boom", stack: vmStack("@x") };
    expect(explainDecoratorSyntaxError(other, dir)).toBe(false);
    expect(explainDecoratorSyntaxError(thrown, dir)).toBe(false);
    expect(explainDecoratorSyntaxError({ name: "SyntaxError", message: "x" }, dir)).toBe(false);
    expect([other.message, thrown.message]).toEqual(["Unexpected identifier", "boom"]);
  });
});
