import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The first step of `pnpm test` (scripts/machine-ready.mjs): what it does on a machine that lacks redis-server or
// Chromium, run as a real process with the environment it would meet there.
const script = fileURLToPath(new URL("./machine-ready.mjs", import.meta.url));
const node = process.execPath;
const root = process.getuid?.() === 0;
const folders: string[] = [];
afterAll(() => {
  for (const dir of folders) rmSync(dir, { recursive: true, force: true });
});

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), "machine-ready-"));
  folders.push(dir);
  return dir;
}

function ready(env: Record<string, string>, prefix: string[] = []) {
  const [file, ...args] = [...prefix, node, script];
  const run = spawnSync(file!, args, { env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8" });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("scripts/machine-ready.mjs, the first step of pnpm test", () => {
  it("says nothing and passes when redis-server and Chromium are there", () => {
    const run = ready({ CHROMIUM_PATH: node, REDIS_SERVER_PATH: node });
    expect(run).toEqual({ status: 0, stdout: "", stderr: "" });
  });

  it("stops at once with one message naming the command when told not to install", () => {
    const run = ready({ CHROMIUM_PATH: "/nonexistent/chromium", REDIS_SERVER_PATH: node, TOOLSMITH_NO_INSTALL: "1" });
    expect(run.status).toBe(1);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain(
      "chromium: examples/poll renders its MCP App, and the sign-in tests sign a person in, in headless Chromium",
    );
    expect(run.stderr).toContain("sudo apt-get update && apt-get install -y chromium");
    expect(run.stderr).not.toContain("redis-server:");
  });

  it("names what to install by hand where there is no apt-get", () => {
    // A PATH of one empty folder: no apt-get, no sudo, no redis-server (node itself is run by its full path).
    const run = ready({ PATH: folder(), CHROMIUM_PATH: node, REDIS_SERVER_PATH: "/nonexistent/redis-server" });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("redis-server: the Redis engine's tests start their own redis-server");
    expect(run.stderr).toContain("There is no apt-get here");
    expect(run.stderr).not.toContain("installing");
  });

  it.runIf(root)("stops with the sudo command for a user who is not root and has no password-less sudo", () => {
    const run = ready({ CHROMIUM_PATH: "/nonexistent/chromium", REDIS_SERVER_PATH: "/nonexistent/redis-server" }, [
      "setpriv",
      "--reuid=65534",
      "--regid=65534",
      "--clear-groups",
    ]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("not root, and no password-less sudo");
    expect(run.stderr).toContain("sudo sh -c 'apt-get update && apt-get install -y redis-server chromium'");
    expect(run.stderr).not.toContain("installing");
  });

  it.runIf(root)("as root, says what it installs, runs apt-get update then install, and checks again", () => {
    // apt-get here is a stand-in that records its arguments and "installs" redis-server where the script looks.
    const dir = folder();
    const log = join(dir, "apt.log");
    const redis = join(dir, "bin", "redis-server");
    const apt = join(dir, "apt-get");
    writeFileSync(
      apt,
      `#!/bin/sh\necho "$DEBIAN_FRONTEND $*" >> "${log}"\n` +
        `if [ "$1" = install ]; then mkdir -p "${dirname(redis)}" && cp "${node}" "${redis}"; fi\n`,
    );
    chmodSync(apt, 0o755);
    const run = ready({ PATH: `${dir}:${process.env.PATH ?? ""}`, CHROMIUM_PATH: node, REDIS_SERVER_PATH: redis });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe("");
    expect(run.stderr).toContain("installing the Debian packages the tests need");
    expect(run.stderr).toContain("redis-server: the Redis engine's tests start their own redis-server");
    expect(readFileSync(log, "utf8")).toBe("noninteractive update\nnoninteractive install -y redis-server\n");
  });

  it.runIf(root)("fails naming the package when apt-get did not bring it", () => {
    const dir = folder();
    const apt = join(dir, "apt-get");
    writeFileSync(apt, "#!/bin/sh\nexit 0\n");
    chmodSync(apt, 0o755);
    const run = ready({
      PATH: `${dir}:${process.env.PATH ?? ""}`,
      CHROMIUM_PATH: "/nonexistent/chromium",
      REDIS_SERVER_PATH: node,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain("still missing after apt-get: chromium (looked for /nonexistent/chromium)");
  });
});
