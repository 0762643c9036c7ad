import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { run } from "../../../scripts/child-processes.js";
import { runCli } from "./run-cli.test-util.js";

const PACKAGE = fileURLToPath(new URL("../", import.meta.url));
const pkg = JSON.parse(readFileSync(join(PACKAGE, "package.json"), "utf8")) as { version: string };

describe("toolsmith --version", () => {
  it("prints the version in the package's package.json", async () => {
    const printed = await runCli(["--version"]);
    expect(printed.code).toBe(0);
    expect(printed.stdout.trim()).toBe(pkg.version);
  });

  it("reads it at run time, so a release bump needs no rebuild of the code", async () => {
    const dir = mkdtempSync(join(tmpdir(), "toolsmith-version-"));
    try {
      cpSync(join(PACKAGE, "dist"), join(dir, "dist"), { recursive: true });
      writeFileSync(join(dir, "package.json"), JSON.stringify({ ...pkg, version: "9.8.7-bumped" }));
      symlinkSync(join(PACKAGE, "node_modules"), join(dir, "node_modules"), "dir");
      const printed = await run(process.execPath, [join(dir, "dist/bin.js"), "--version"], { input: "" });
      expect(printed.code).toBe(0);
      expect(printed.stdout.trim()).toBe("9.8.7-bumped");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
