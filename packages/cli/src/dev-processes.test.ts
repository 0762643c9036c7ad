import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { exited, gone, isAlive, track } from "../../../scripts/child-processes.js";
import { until } from "../../../scripts/wait.js";
import { BIN, FIXTURES } from "./run-cli.test-util.js";

// A server that ignores the end of its stdin: only what dev does about it (or what it does about dev) ends it.
const LINGERS = join(FIXTURES, "tc39", "lingers.ts");
const READY = /lingers: ready \(pid (\d+)\)/;

const servers: number[] = [];
afterEach(() => {
  // A server left behind by a failing test goes with it, not with the run.
  for (const pid of servers.splice(0)) if (isAlive(pid)) process.kill(pid, "SIGKILL");
});

/** `toolsmith dev` on the lingering server, once the server runs: dev's process and the server's pid. */
async function devOnLingering(...serverArgs: string[]) {
  const dev = track(
    spawn(process.execPath, [BIN, "dev", "--no-watch", LINGERS, ...serverArgs], {
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["pipe", "pipe", "pipe"],
    }),
  );
  let stderr = "";
  dev.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr += chunk;
  });
  await until(() => READY.test(stderr) || dev.exitCode !== null, "the server under toolsmith dev to start");
  const server = Number(READY.exec(stderr)?.[1]);
  expect(server, stderr).toBeGreaterThan(0);
  servers.push(server);
  return { dev, server };
}

describe("toolsmith dev and the server process it started", () => {
  it.each([
    ["SIGTERM", 143],
    ["SIGINT", 130],
    ["SIGHUP", 129],
  ] as const)("%s to dev ends the server, and dev exits as the server did", async (signal, code) => {
    const { dev, server } = await devOnLingering();
    dev.kill(signal);
    expect(await exited(dev, `toolsmith dev to exit on ${signal}`)).toEqual({ code, signal: null });
    await gone(server, `the server to end on ${signal}`);
  });

  it("kills a server that ignores SIGTERM once its grace period is over", async () => {
    const { dev, server } = await devOnLingering("--ignore-sigterm");
    dev.kill("SIGTERM");
    expect(await exited(dev, "toolsmith dev to exit")).toEqual({ code: 137, signal: null });
    await gone(server, "the server to be killed");
  });

  it.each([
    ["a server", []],
    ["a server that ignores SIGTERM", ["--ignore-sigterm"]],
  ])("%s ends by itself when dev is killed without a word (SIGKILL)", async (_what, args) => {
    const { dev, server } = await devOnLingering(...args);
    dev.kill("SIGKILL");
    await exited(dev, "toolsmith dev to die");
    await gone(server, "the server to see that toolsmith dev is gone, and end");
  });
});
