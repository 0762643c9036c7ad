import { type RedisServer, startRedis } from "@toolsmith/redis/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { end } from "../../../scripts/child-processes.js";
import { type SpawnedHttp, spawnHttp } from "../../../scripts/spawn-http.js";
import { CHATTY, childOf, startCli } from "./run-cli.test-util.js";

// Build first. toolsmith call when the server goes away under it: a task followed through a Redis outage (the
// server answers 503 + Retry-After meanwhile), and a stdio server killed mid-task and mid-call (exit 3).

describe("toolsmith call follows a task through the server's 503s while its Redis is down", () => {
  let redis: RedisServer;
  let server: SpawnedHttp;
  beforeAll(async () => {
    redis = await startRedis();
    server = await spawnHttp([CHATTY, "--http"], { env: { ...process.env, PORT: "0", REDIS_URL: redis.url } });
  }, 60_000);
  afterAll(async () => {
    await end(server.child);
    await redis.stop();
  });

  it("keeps asking (as Retry-After says) until Redis is back, then prints the task's result", async () => {
    const cli = startCli(["call", server.url, "hold"]);
    await cli.said(/hold: working\n/);
    await redis.stop();
    const refused = await cli.said(/hold: HTTP 503 Service Unavailable; asking again in ([\d.]+) s\n/);
    // Retry-After (whole seconds) was honoured, not the 0.5 s of the first back-off step.
    expect(Number(refused[1])).toBeGreaterThanOrEqual(1);
    const after = cli.stderr().indexOf(refused[0]) + refused[0].length;
    await redis.restart();
    // A poll answered again: the task, kept in Redis's append-only file, is still working.
    await cli.said(/hold: working\n/, after);
    server.child.kill("SIGUSR2");
    const run = await cli.ended();
    expect([run.code, run.stdout]).toEqual([0, "released\n"]);
  });
});

describe("toolsmith call, an HTTP server that does not come back within the task's TTL", () => {
  it("keeps asking while the connection is refused, then gives up at the TTL naming the task: exit 3", async () => {
    const env = { ...process.env, PORT: "0", TASK_TTL_MS: "3000" };
    const server = await spawnHttp([CHATTY, "--http"], { env });
    const cli = startCli(["call", server.url, "hold"]);
    await cli.said(/hold: working\n/);
    await end(server.child);
    await cli.said(/hold: could not reach \S+ \(ECONNREFUSED\); asking again in [\d.]+ s\n/);
    const run = await cli.ended();
    expect(run.code).toBe(3);
    const id = /error: gave up on task (\S+) \(hold\): its TTL passed while the server could not answer/.exec(
      run.stderr,
    );
    expect(id).not.toBeNull();
    expect(run.stderr).toContain(`task ${id?.[1]}: toolsmith task follow ${server.url} ${id?.[1]} asks for it`);
  });
});

describe("toolsmith call, a stdio server that dies under it: exit 3, as for a server that cannot be reached", () => {
  it("mid-task: names the task it gave up on", async () => {
    const cli = startCli(["call", "--era", "modern", "node", CHATTY, "hold"]);
    await cli.said(/hold: working\n/);
    process.kill(childOf(cli.child.pid as number), "SIGKILL");
    const run = await cli.ended();
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/\nerror: gave up on task \S+ \(hold\): the connection to the server closed\n$/);
  });

  it.each(["legacy", "modern"])("mid-call (--era %s, a synchronous call)", async (era) => {
    // The server says it holds (a log message) only once the call has reached the tool.
    const cli = startCli(["call", "--era", era, "node", CHATTY, "stall"]);
    await cli.said(/\[info\] stall: holding\n/);
    process.kill(childOf(cli.child.pid as number), "SIGKILL");
    const run = await cli.ended();
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`error: the connection to node ${CHATTY} closed`);
  });
});

describe("toolsmith call, Ctrl-C while the server does not answer (a stopped process behind the connection)", () => {
  it("stops waiting for the poll at once, tries tasks/cancel, and a second Ctrl-C leaves naming the task: 130", async () => {
    const server = await spawnHttp([CHATTY, "--http"]);
    try {
      // A time-out far beyond the test's own wait: only Ctrl-C may end these waits.
      const cli = startCli(["call", "--timeout", "3600000", server.url, "hold"]);
      await cli.said(/hold: working\n/);
      server.child.kill("SIGSTOP");
      cli.child.kill("SIGINT");
      const cancelling = await cli.said(/cancelling task (\S+) \(Ctrl-C again to leave it running\)…\n/);
      cli.child.kill("SIGINT");
      const run = await cli.ended();
      expect(run.code).toBe(130);
      expect(run.stderr).toContain(`error: interrupted; task ${cancelling[1]} not cancelled`);
    } finally {
      server.child.kill("SIGCONT");
      await end(server.child);
    }
  });
});
