import { afterEach, describe, expect, it } from "vitest";
import {
  checkRunning,
  expectToolResult,
  FixtureProcess,
  handshakeCall,
  INITIALIZE,
  INITIALIZED,
  MiB,
  type Response,
  rssBytes,
  sleep,
  statelessCall,
  textOf,
} from "../../../packages/transport-stdio/src/fixture-process.test-util.js";
import { RUNTIME_NAMES, runtime } from "./runtimes.js";

// What packages/transport-stdio's spawned tests hold Node to, with the same fixture and checks, on Bun and Deno:
// nothing but protocol lines on stdout, EOF answers what is pending, a signal ends it cleanly, backpressure.
afterEach(checkRunning);

describe.each(RUNTIME_NAMES)("stdio on %s", (name) => {
  const target = runtime(name);
  const start = (options: ConstructorParameters<typeof FixtureProcess>[0] = {}) =>
    new FixtureProcess({
      ...options,
      env: target.env(options.env),
      spawnWith: (script) => ({ command: target.command, args: target.args(script) }),
    });

  it("keeps stdout for JSON-RPC responses: console and process.stdout.write go to stderr", async () => {
    const server = start();
    server.send(statelessCall(1, "noisy"), statelessCall(2, "echo", { text: "after the noise" }));
    expectToolResult(await server.reply(1), "ok");
    expectToolResult(await server.reply(2), "after the noise");
    server.end();
    // Exited ("close"): both pipes were read to their end.
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(server.rawLines.filter((line) => line.includes("noisy:"))).toEqual([]);
    expect(server.lineCount).toBe(2);
    for (const method of ["log", "info", "warn", "debug"]) expect(server.stderr).toContain(`noisy: console.${method}`);
    expect(server.stderr).toContain("noisy: process.stdout.write");
  });

  it("at EOF, answers every call in flight and then exits by itself with code 0", async () => {
    const server = start();
    const delays = [200, 300, 400, 500, 250];
    server.send(...delays.map((ms, i) => statelessCall(`sleep-${i}`, "sleep", { ms })));
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    for (const [i, ms] of delays.entries()) {
      expect(server.repliesTo(`sleep-${i}`)).toHaveLength(1);
      expectToolResult(server.repliesTo(`sleep-${i}`)[0] as Response, `slept ${ms}`);
    }
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s ends it as EOF does: what runs is answered, then exit 0",
    async (signal) => {
      const server = start();
      server.send(statelessCall("slow", "sleep", { ms: 300 }), statelessCall("quick", "echo", { text: "read" }));
      // The quick call's reply says both lines were read: the slow one is in flight.
      expectToolResult(await server.reply("quick"), "read");
      server.child.kill(signal);
      expect(await server.exited()).toEqual({ code: 0, signal: null });
      expectToolResult(await server.reply("slow"), "slept 300");
    },
  );

  it("speaks the handshake era and writes U+2028 and U+2029 as escapes, one line per reply", async () => {
    const server = start();
    server.send(INITIALIZE, INITIALIZED, handshakeCall("call", "unicode"));
    expect((await server.reply("init")).result).toMatchObject({ protocolVersion: "2025-11-25" });
    expect(textOf(await server.reply("call"))).toBe("line\u2028separator\u2029paragraph\nnewline 😀🎉 done");
    expect(server.rawLines).toHaveLength(2);
    expect(server.rawLines[1]).toContain("\\u2028");
    expect(server.rawLines[1]).not.toMatch(/[\u2028\u2029]/);
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });

  it("applies backpressure: unread stdout keeps the server's memory bounded, and every reply arrives intact", async () => {
    const count = 1500;
    const bytes = 100_000;
    const pattern = "0123456789abcdef".repeat(Math.ceil(bytes / 16)).slice(0, bytes);
    const server = start({
      keepLines: false,
      digest: (response) => {
        const text = (response.result?.content as { text?: unknown }[] | undefined)?.[0]?.text;
        return { ...response, result: { intact: text === pattern } };
      },
    });
    server.send(statelessCall("warmup", "add", { a: 1, b: 1 }));
    await server.reply("warmup");
    const pid = server.child.pid as number;
    const baseline = rssBytes(pid) as number;
    server.child.stdout.pause();
    server.send(...Array.from({ length: count }, (_, i) => statelessCall(`big-${i}`, "big", { bytes })));
    let peak = baseline;
    // Sampled while the client reads nothing (as packages/transport-stdio's own test does).
    for (let sample = 0; sample < 30; sample++) {
      await sleep(75);
      peak = Math.max(peak, rssBytes(pid) ?? 0);
    }
    const received = server.replies.length;
    server.child.stdout.resume();
    expect(received).toBeLessThan(count);
    await server.until(() => (server.replies.length >= count + 1 ? true : undefined), `${count} big replies`);
    // 150 MB of replies were asked for; the server held at most a bounded part of them.
    expect(peak - baseline, `peak RSS ${Math.round(peak / MiB)} MiB`).toBeLessThan(100 * MiB);
    expect(server.replies.filter((reply) => reply.result?.intact === true)).toHaveLength(count);
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });
});
