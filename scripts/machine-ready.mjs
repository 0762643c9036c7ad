#!/usr/bin/env node
// The first step of `pnpm test`: the machine has what the tests start besides Node packages, or is made to have it.
// Two Debian packages: redis-server (the Redis engine's tests start their own, Redis 7) and chromium (headless:
// examples/poll renders its MCP App in it; the sign-in tests, tests/idp, tests/auth, packages/auth and
// examples/sign-in, sign a person in with it). Missing ones are installed with apt-get (as root, or through a password-less
// sudo), saying so first; where that cannot be done the run stops at once with one message naming the command.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

const REDIS_DEBIAN = "/usr/bin/redis-server";
const CHROMIUM_DEFAULT = "/usr/bin/chromium";

/** What a test needs, where it looks for it, and the Debian package that brings it. */
const NEEDS = [
  {
    pkg: "redis-server",
    why: "the Redis engine's tests start their own redis-server",
    found: () => (process.env.REDIS_SERVER_PATH ? executable(process.env.REDIS_SERVER_PATH) : redisOnMachine()),
    where: () => process.env.REDIS_SERVER_PATH ?? `${REDIS_DEBIAN} or redis-server on the PATH`,
  },
  {
    pkg: "chromium",
    why: "examples/poll renders its MCP App, and the sign-in tests sign a person in, in headless Chromium",
    found: () => executable(process.env.CHROMIUM_PATH ?? CHROMIUM_DEFAULT),
    where: () => process.env.CHROMIUM_PATH ?? CHROMIUM_DEFAULT,
  },
];

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name) {
  return (process.env.PATH ?? "").split(delimiter).some((dir) => dir !== "" && executable(join(dir, name)));
}

function redisOnMachine() {
  return executable(REDIS_DEBIAN) || onPath("redis-server");
}

function fail(message) {
  process.stderr.write(`\npnpm test cannot start: ${message}\n\n`);
  process.exit(1);
}

const missing = NEEDS.filter((need) => !need.found());
if (missing.length === 0) process.exit(0);

const names = missing.map((need) => need.pkg).join(" ");
const listed = missing.map((need) => `  ${need.pkg}: ${need.why} (looked for ${need.where()})`).join("\n");
const command = `apt-get update && apt-get install -y ${names}`;

if (process.env.TOOLSMITH_NO_INSTALL === "1") {
  fail(`missing\n${listed}\nInstall them (sudo ${command}) and run the tests again.`);
}
if (!onPath("apt-get")) {
  fail(
    `missing\n${listed}\nThere is no apt-get here to install them: install Redis 7's redis-server (on the PATH, or set ` +
      "REDIS_SERVER_PATH) and Chromium (at /usr/bin/chromium, or set CHROMIUM_PATH), then run the tests again.",
  );
}

let asRoot = [];
if (process.getuid?.() !== 0) {
  const sudo = onPath("sudo") && spawnSync("sudo", ["-n", "true"], { stdio: "ignore" }).status === 0;
  if (!sudo) {
    fail(
      `missing\n${listed}\nThis user can install neither (not root, and no password-less sudo). Run\n\n` +
        `  sudo sh -c '${command}'\n\nthen run the tests again.`,
    );
  }
  asRoot = ["sudo", "-n"];
}

process.stderr.write(`pnpm test: installing the Debian packages the tests need:\n${listed}\n  (${command})\n`);
const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
for (const args of [
  ["apt-get", "update"],
  ["apt-get", "install", "-y", ...missing.map((need) => need.pkg)],
]) {
  const [file, ...rest] = [...asRoot, ...args];
  const result = spawnSync(file, rest, { stdio: ["ignore", "inherit", "inherit"], env });
  if (result.status !== 0)
    fail(`\`${[...asRoot, ...args].join(" ")}\` failed (exit ${result.status ?? result.signal}).`);
}
// Debian's redis-server package also starts a system-wide service on port 6379: the tests never use it.
const still = missing.filter((need) => !need.found());
if (still.length > 0) {
  fail(`still missing after apt-get: ${still.map((need) => `${need.pkg} (looked for ${need.where()})`).join(", ")}.`);
}
process.stderr.write("pnpm test: installed.\n");
