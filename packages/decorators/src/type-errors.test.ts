import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const tsc = join(dirname(createRequire(import.meta.url).resolve("typescript/package.json")), "bin", "tsc");
const project = fileURLToPath(new URL("../test/type-errors/tsconfig.json", import.meta.url));

// tsc's headline for a decorator is always TS1241; the line under it is the decorator's own, saying what to change.
it("TC39 type errors say what is wrong: no McpServer, a list of the wrong type, a list name that is no method", () => {
  const run = spawnSync(process.execPath, [tsc, "-p", project, "--pretty", "false"], { encoding: "utf8" });
  const errors = run.stdout
    .split("\n")
    .filter((line) => line.includes("error TS"))
    .map((line) => line.replace(/^.*mistakes\.ts/, "mistakes.ts"));
  expect(errors).toEqual([
    "mistakes.ts(5,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(12,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
    "mistakes.ts(23,4): error TS1241: Unable to resolve signature of method decorator when called as an expression.",
  ]);
  for (const message of [
    "Toolsmith decorators go on methods of a class that extends McpServer",
    "list: items must return the template's resources, { uri, name }[], or a promise of them",
    "list: itemz is not a public method of this class",
  ]) {
    expect(run.stdout).toContain(`Property '"${message}"' is missing`);
  }
});
