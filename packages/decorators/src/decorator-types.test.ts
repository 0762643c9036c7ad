import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const project = fileURLToPath(new URL("../test/type-errors/tsconfig.json", import.meta.url));

// tsc's headline for a decorator is always TS1241; the line under it is the decorator's own, saying what to change.
it("TC39 type errors say what is wrong: no McpServer, a named method that does not fit or does not exist", () => {
  const run = spawnSync(process.execPath, [tsc, "-p", project, "--pretty", "false"], { encoding: "utf8" });
  const errors = run.stdout
    .split("\n")
    .filter((line) => line.includes("error TS"))
    .map((line) => line.replace(/^.*mistakes\.ts/, "mistakes.ts"));
  expect(errors).toEqual([
    "mistakes.ts(6,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(13,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(24,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(35,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(46,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(57,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
  ]);
  for (const message of [
    "Toolsmith decorators go on methods of a class that extends McpServer",
    "list: items must return the template's resources, { uri, name }[], or a promise of them",
    "list: itemz is not a public method of this class",
    "complete.id: itemIdz is not a public method of this class",
    "complete.topic: topics must take (value, { arguments, ctx }) and return completions, string[] or { values }, or a promise of them",
    "guard: allowd is not a public method of this class",
  ]) {
    expect(run.stdout).toContain(`Property '"${message}"' is missing`);
  }
});

// Legacy decorators check the class's prototype: TypeScript's own message names the missing or mistyped method.
it("legacy type errors name a method that options name and the class lacks or mistypes", () => {
  const legacy = fileURLToPath(new URL("../test/type-errors/legacy/tsconfig.json", import.meta.url));
  const run = spawnSync(process.execPath, [tsc, "-p", legacy, "--pretty", "false"], { encoding: "utf8" });
  const errors = run.stdout.split("\n").filter((line) => line.includes("error TS"));
  expect(errors.map((line) => /mistakes\.ts\(\d+,\d+\): error TS\d+/.exec(line)?.[0])).toEqual([
    "mistakes.ts(6,4): error TS1241",
    "mistakes.ts(11,4): error TS1241",
    "mistakes.ts(16,4): error TS1241",
  ]);
  expect(run.stdout).toContain("is missing the following properties from type");
  expect(run.stdout).toMatch(/: itemIdz, itemz\n/);
  expect(run.stdout).toContain("The types returned by 'topics(...)' are incompatible between these types.");
  expect(run.stdout).toContain("Property 'allowd' is missing in type 'MistypedNames'");
});
