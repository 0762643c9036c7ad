import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BIN, sh } from "./process.test-util.js";

// The built bin as a process, with no TTY: plain output, no questions.
const temp = mkdtempSync(join(tmpdir(), "create-toolsmith-cli-"));
afterAll(() => rmSync(temp, { recursive: true, force: true }));
const bin = (...args: string[]) => sh(process.execPath, [BIN, ...args], temp);

describe("create-toolsmith", () => {
  it("prints its options with --help", async () => {
    const { code, stdout } = await bin("--help");
    expect(code).toBe(0);
    for (const flag of ["--transport", "--dialect", "--no-tests", "--yes", "--force", "--from"]) {
      expect(stdout).toContain(flag);
    }
  });

  it("scaffolds with plain output when not on a terminal", async () => {
    const { code, stdout, stderr } = await bin("plain-server", "--transport", "http");
    expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
    expect(stdout).toBe(
      [
        "Not a terminal: taking the defaults for anything not given as a flag.",
        "Writing plain-server (transport http, dialect tc39, tests yes)",
        "Wrote 11 files.",
        "Next:",
        "  cd plain-server",
        "  npm install",
        "  npm run build",
        "  npm test",
        "  npm run inspect",
        "",
      ].join("\n"),
    );
    expect(stdout).not.toContain("\u001b[");
  });

  it("refuses an invalid package name, saying why", async () => {
    const { code, stderr } = await bin("Bad Name", "--yes");
    expect(code).toBe(1);
    expect(stderr).toBe(
      'create-toolsmith: "Bad Name" is not a valid npm package name: name can only contain URL-friendly characters; name can no longer contain capital letters.\n',
    );
    expect(readdirSync(temp)).not.toContain("Bad Name");
  });

  it("refuses a non-empty directory unless --force", async () => {
    mkdirSync(join(temp, "taken"));
    writeFileSync(join(temp, "taken", "keep.txt"), "");
    const refused = await bin("taken", "--yes");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("is not empty (1 entry): choose another directory, or pass --force");
    expect((await bin("taken", "--yes", "--force")).code).toBe(0);
    expect(readdirSync(join(temp, "taken"))).toContain("keep.txt");
  });

  it("answers a bad flag with exit code 2", async () => {
    expect(await bin("x", "--transport", "sse")).toEqual({
      code: 2,
      stdout: "",
      stderr:
        'create-toolsmith: --transport must be one of stdio, http, both (got "sse")\nRun with --help for the options.\n',
    });
  });

  it("says when --from is not a built checkout", async () => {
    const { code, stderr } = await bin("from-nowhere", "--yes", "--from", temp);
    expect(code).toBe(1);
    expect(stderr).toContain("is not a Toolsmith checkout");
  });
});
