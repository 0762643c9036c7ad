import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { endTracked } from "../../../scripts/child-processes.js";
import { BIN, ok, WORKSPACE } from "./process.test-util.js";
import { TOOLSMITH_VERSION } from "./versions.js";

// What the generated README says to add a package the scaffold did not: npm, as a newcomer runs it (the registry for
// what is published, the tarballs --from packed for the rest).
const root = mkdtempSync(join(tmpdir(), "create-toolsmith-add-"));
afterAll(async () => {
  await endTracked();
  rmSync(root, { recursive: true, force: true });
});

describe("a project made with --from", () => {
  it("adds @toolsmith/redis and @toolsmith/otel later with npm install ./toolsmith-packages/<tarball>", {
    timeout: 15 * 60_000,
  }, async () => {
    const dir = join(root, "later");
    await ok(process.execPath, [BIN, dir, "--yes", "--transport", "http", "--no-tests", "--from", WORKSPACE], root);
    const tarballs = ["redis", "otel"].map((name) => `./toolsmith-packages/toolsmith-${name}-${TOOLSMITH_VERSION}.tgz`);
    for (const tarball of tarballs) expect(existsSync(join(dir, tarball)), tarball).toBe(true);
    await ok("npm", ["install", "--no-audit", "--no-fund"], dir);
    // npm refuses (EOVERRIDE) a dependency whose spec differs from its override in package.json by so much as "./".
    await ok("npm", ["install", "--no-audit", "--no-fund", ...tarballs, "@opentelemetry/api@1.10.0"], dir);
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    for (const name of ["@toolsmith/redis", "@toolsmith/otel"]) {
      expect(pkg.dependencies[name]).toBe(pkg.overrides[name]);
      // Its own @toolsmith/core is the project's: one copy, from the same tarball.
      expect(existsSync(join(dir, "node_modules", name, "node_modules/@toolsmith/core"))).toBe(false);
    }
    const { stdout } = await ok(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        'const r = await import("@toolsmith/redis"); const o = await import("@toolsmith/otel"); console.log(typeof r.createRedisEngine, typeof o.openTelemetry);',
      ],
      dir,
    );
    expect(stdout).toBe("function function\n");
  });
});
