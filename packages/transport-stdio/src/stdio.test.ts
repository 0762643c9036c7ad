import { existsSync } from "node:fs";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  BUILT,
  checkRunning,
  expectError,
  expectToolResult,
  FixtureProcess,
  handshakeCall,
  type Id,
  INITIALIZE,
  INITIALIZED,
  META_JSON,
  MiB,
  type Response,
  responseProblem,
  rssBytes,
  sleep,
  statelessCall,
  textOf,
} from "./fixture-process.test-util.js";

// The fixture imports the built packages (dist): build with `npx -y pnpm@12.4.2 run build` first.
beforeAll(() => {
  if (!existsSync(BUILT)) throw new Error("build first: npx -y pnpm@12.4.2 run build");
});

afterEach(checkRunning);

describe("stdio transport, spawned", () => {
  it("keeps stdout for JSON-RPC responses and sends user output to stderr", async () => {
    const server = new FixtureProcess();
    server.send(statelessCall(1, "noisy"), statelessCall(2, "echo", { text: "after the noise" }));
    expectToolResult(await server.reply(1), "ok");
    expectToolResult(await server.reply(2), "after the noise");
    const texts = [
      "noisy: console.log",
      "noisy: console.info",
      "noisy: console.warn",
      "noisy: console.debug",
      "noisy: process.stdout.write",
    ];
    await server.until(() => (texts.every((text) => server.stderr.includes(text)) ? true : undefined), "the noise");
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(server.lineCount).toBe(2);
    expect(server.problems).toEqual([]);
    for (const line of server.rawLines) {
      expect(line).not.toContain("noisy:");
      expect(responseProblem(JSON.parse(line))).toBeUndefined();
    }
  });

  const META_TAIL = `"_meta":${META_JSON}`;
  const badMessages: [string, string, number, Id][] = [
    ["malformed JSON", '{"jsonrpc":"2.0","id":1,"method":', -32700, null],
    ["a non-JSON line", "hello there", -32700, null],
    ["a line holding only U+2028", "\u2028", -32700, null],
    ["a line holding U+2029 and U+2028 among spaces", " \u2029 \t\u2028 ", -32700, null],
    ["a batch of numbers", "[1,2]", -32600, null],
    ["an empty batch", "[]", -32600, null],
    [
      "an unknown method",
      `{"jsonrpc":"2.0","id":"m-1","method":"no/such/method","params":{${META_TAIL}}}`,
      -32601,
      "m-1",
    ],
    [
      "an unknown tool",
      `{"jsonrpc":"2.0","id":"t-1","method":"tools/call","params":{"name":"no_such_tool","arguments":{},${META_TAIL}}}`,
      -32602,
      "t-1",
    ],
    [
      "a request whose method hides under __proto__",
      `{"__proto__":{"method":"tools/list"},"jsonrpc":"2.0","id":"p-1"}`,
      -32600,
      "p-1",
    ],
  ];

  for (const [what, line, code, id] of badMessages) {
    it(`answers ${what} with ${code} (id ${JSON.stringify(id)}) and serves the next request`, async () => {
      const server = new FixtureProcess();
      server.send(line);
      expectError(await server.reply(id), code, id);
      server.send(statelessCall(100, "add", { a: 2, b: 40 }));
      expectToolResult(await server.reply(100), "42");
      expect(server.replies).toHaveLength(2);
      expect(server.exit).toBeUndefined();
    });
  }

  it("answers every bad message in turn on one connection, which lives on", async () => {
    const server = new FixtureProcess();
    for (const [index, [what, line, code, id]] of badMessages.entries()) {
      const before = server.repliesTo(id).length;
      server.send(line);
      await server.until(() => (server.repliesTo(id).length > before ? true : undefined), `the error for ${what}`);
      expectError(server.repliesTo(id).at(-1) as Response, code, id);
      server.send(statelessCall(`ok-${index}`, "add", { a: index, b: 1 }));
      expectToolResult(await server.reply(`ok-${index}`), String(index + 1));
    }
    expect(server.replies).toHaveLength(badMessages.length * 2);
  });

  it("skips lines of JSON whitespace (space, tab, CR, LF) without a reply", async () => {
    const server = new FixtureProcess();
    server.send("", "   ", "\t \t", "\r", " \r");
    server.send(statelessCall("after-blanks", "add", { a: 1, b: 1 }));
    expectToolResult(await server.reply("after-blanks"), "2");
    expect(server.lineCount).toBe(1);
  });

  it("handles __proto__ keys in params and arguments as plain data", async () => {
    const server = new FixtureProcess();
    server.send(
      `{"jsonrpc":"2.0","id":"proto-1","method":"tools/call","params":{"__proto__":{"x":1},"name":"echo","arguments":{"__proto__":{"polluted":true},"text":"hi"},${META_TAIL}}}`,
    );
    expectToolResult(await server.reply("proto-1"), "hi");

    // A required argument given only under __proto__ is missing: a validation failure, not "sneaky".
    server.send(
      `{"jsonrpc":"2.0","id":"proto-2","method":"tools/call","params":{"name":"echo","arguments":{"__proto__":{"text":"sneaky"}},${META_TAIL}}}`,
    );
    const sneaky = await server.reply("proto-2");
    expect(sneaky.error).toBeUndefined();
    expect(sneaky.result?.isError).toBe(true);
    expect(JSON.stringify(sneaky.result?.content)).not.toContain('"text":"sneaky"');

    // params' name only under __proto__: invalid params.
    server.send(
      `{"jsonrpc":"2.0","id":"proto-3","method":"tools/call","params":{"__proto__":{"name":"echo","arguments":{"text":"x"}},${META_TAIL}}}`,
    );
    expectError(await server.reply("proto-3"), -32602, "proto-3");

    // _meta's version only under __proto__: not a 2026-07-28 request.
    server.send(
      `{"jsonrpc":"2.0","id":"proto-4","method":"tools/list","params":{"_meta":{"__proto__":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
    );
    expect((await server.reply("proto-4")).error).toBeDefined();

    // Nothing leaked onto Object.prototype: echo without text still fails validation.
    server.send(statelessCall("proto-5", "echo", {}));
    expect((await server.reply("proto-5")).result?.isError).toBe(true);
    server.send(statelessCall("proto-6", "add", { a: 1, b: 2 }));
    expectToolResult(await server.reply("proto-6"), "3");
  });

  it("answers lines over MAX_LINE_BYTES with -32600 and their id, before or after a huge params", async () => {
    const server = new FixtureProcess({ env: { MAX_LINE_BYTES: String(MiB) } });
    const huge = "h".repeat(4 * MiB);
    server.send(
      `{"jsonrpc":"2.0","id":101,"method":"tools/call","params":{"name":"echo","arguments":{"text":"${huge}"},${META_TAIL}}}`,
    );
    expectError(await server.reply(101), -32600, 101);
    server.send(statelessCall(102, "add", { a: 1, b: 1 }));
    expectToolResult(await server.reply(102), "2");

    const stringId = 'late "quoted" \\ id ✓';
    server.send(
      `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"echo","arguments":{"text":"${huge}","id":"inner"},${META_TAIL}},"id":${JSON.stringify(stringId)}}`,
    );
    expectError(await server.reply(stringId), -32600, stringId);
    expect(server.repliesTo("inner")).toEqual([]);
    server.send(statelessCall(103, "echo", { text: "still here" }));
    expectToolResult(await server.reply(103), "still here");

    // A line just under the limit is served.
    const fits = "f".repeat(MiB - 400);
    server.send(statelessCall(104, "echo", { text: fits }));
    expectToolResult(await server.reply(104), fits);
    expect(server.replies).toHaveLength(5);
  });

  it("answers an oversized line exactly once with its id, however the id and its key are written", async () => {
    const server = new FixtureProcess({ env: { MAX_LINE_BYTES: "4096" } });
    const padding = `"padding":"${"p".repeat(8192)}"`;
    const longId = `long-${"L".repeat(400)}`;
    const longest = "i".repeat(4096);
    // [id as written on the wire, the id the reply must carry]
    const cases: [string, Id][] = [
      ['"\\u0069d":11', 11],
      ['"i\\u0064":"escaped key"', "escaped key"],
      ['"\\u0069\\u0064":"\\u0061\\"b\\\\c\\/d\\n\\u2028\\ud83d\\ude00"', 'a"b\\c/d\n\u2028😀'],
      [`"id":${JSON.stringify(longId)}`, longId],
      [`"id":"${longest}"`, longest],
      [`"id":"${longest}x"`, null],
    ];
    for (const [index, [idText]] of cases.entries()) {
      const before = index % 2 === 0 ? `${idText},` : "";
      const after = index % 2 === 0 ? "" : `,${idText}`;
      server.send(`{${before}"jsonrpc":"2.0","method":"tools/call","params":{${padding},${META_TAIL}}${after}}`);
    }
    // An oversized notification whose keys are escaped but none of them is "id": no reply.
    server.send(`{"jsonrpc":"2.0","\\u006dethod":"notifications/progress","params":{${padding}}}`);
    for (const [, id] of cases) expectError(await server.reply(id), -32600, id);
    server.send(statelessCall("sentinel", "add", { a: 1, b: 2 }));
    expectToolResult(await server.reply("sentinel"), "3");
    expect(server.replies).toHaveLength(cases.length + 1);
    for (const [, id] of cases) expect(server.repliesTo(id), `replies to ${JSON.stringify(id)}`).toHaveLength(1);
    // The decoded id goes back out as valid JSON, with U+2028 escaped.
    const escaped = server.rawLines.find((line) => line.includes("\\ud83d") || line.includes("😀")) as string;
    expect(escaped).toContain('"id":"a\\"b\\\\c/d\\n\\u2028😀"');
  });

  it("serves a line just under the default limit of 4 MiB and refuses one just over it", async () => {
    const server = new FixtureProcess();
    const text = "abcdefghij".repeat(419_000); // 4,190,000 characters: the line is a little under 4 MiB.
    const line = JSON.stringify(statelessCall(201, "echo", { text }));
    expect(Buffer.byteLength(line)).toBeLessThan(4 * MiB);
    expect(Buffer.byteLength(line)).toBeGreaterThan(4 * MiB - 8 * 1024);
    server.send(line);
    const reply = await server.reply(201);
    expect(textOf(reply)).toHaveLength(text.length);
    expect(textOf(reply) === text).toBe(true);

    const over = "z".repeat(4 * MiB);
    server.send(JSON.stringify(statelessCall(202, "echo", { text: over })));
    expectError(await server.reply(202), -32600, 202);
    server.send(statelessCall(203, "add", { a: 20, b: 3 }));
    expectToolResult(await server.reply(203), "23");
  });

  it("answers 1,000 pipelined stateless tools/call requests exactly once each", async () => {
    const server = new FixtureProcess({ keepLines: false });
    const count = 1000;
    const requests = Array.from({ length: count }, (_, i) =>
      i % 2 === 0 ? statelessCall(i, "add", { a: i, b: 2 * i }) : statelessCall(`s-${i}`, "echo", { text: `n${i}` }),
    );
    server.send(...requests);
    await server.until(() => (server.replies.length >= count ? true : undefined), `${count} replies`);
    // A last request, answered after the others are done, shows nothing more was coming.
    server.send(statelessCall("sentinel", "add", { a: 0, b: 0 }));
    expectToolResult(await server.reply("sentinel"), "0");
    expect(server.replies).toHaveLength(count + 1);
    for (let i = 0; i < count; i++) {
      const id = i % 2 === 0 ? i : `s-${i}`;
      const replies = server.repliesTo(id);
      expect(replies, `replies to ${id}`).toHaveLength(1);
      expectToolResult(replies[0] as Response, i % 2 === 0 ? String(3 * i) : `n${i}`);
      expect(replies[0]?.result?.resultType).toBe("complete");
    }
  });

  it("answers 1,000 pipelined handshake-era tools/call requests exactly once each", async () => {
    const server = new FixtureProcess({ keepLines: false });
    const count = 1000;
    const requests = Array.from({ length: count }, (_, i) => handshakeCall(`h-${i}`, "add", { a: i, b: 1 }));
    server.send(INITIALIZE, INITIALIZED, ...requests);
    expect((await server.reply("init")).result?.protocolVersion).toBe("2025-11-25");
    await server.until(() => (server.replies.length >= count + 1 ? true : undefined), `${count} replies`);
    server.send(handshakeCall("sentinel", "add", { a: 0, b: 0 }));
    expectToolResult(await server.reply("sentinel"), "0");
    expect(server.replies).toHaveLength(count + 2);
    for (let i = 0; i < count; i++) {
      const replies = server.repliesTo(`h-${i}`);
      expect(replies, `replies to h-${i}`).toHaveLength(1);
      expectToolResult(replies[0] as Response, String(i + 1));
    }
  });

  it("at EOF, answers every call in flight and then exits by itself with code 0", async () => {
    const server = new FixtureProcess();
    const delays = [200, 300, 400, 500, 250];
    server.send(...delays.map((ms, i) => statelessCall(`sleep-${i}`, "sleep", { ms })));
    server.end();
    const exit = await server.exited();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(server.replies).toHaveLength(delays.length);
    for (const [i, ms] of delays.entries()) {
      expect(server.repliesTo(`sleep-${i}`)).toHaveLength(1);
      expectToolResult(server.repliesTo(`sleep-${i}`)[0] as Response, `slept ${ms}`);
    }
  });

  it("at EOF with nothing in flight, exits with code 0", async () => {
    const server = new FixtureProcess();
    server.send(statelessCall(1, "add", { a: 1, b: 1 }));
    expectToolResult(await server.reply(1), "2");
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });

  it("at EOF, a client that never reads the last replies does not keep the server alive past the shutdown timeout", async () => {
    const server = new FixtureProcess({ env: { SHUTDOWN_TIMEOUT_MS: "200" }, keepLines: false });
    server.child.stdout.pause();
    server.send(statelessCall("big", "big", { bytes: 4 * MiB }));
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });

  it("serves a last request without a trailing newline at EOF", async () => {
    const server = new FixtureProcess();
    server.child.stdin.end(JSON.stringify(statelessCall("last", "echo", { text: "no newline" })));
    expect(await server.exited()).toEqual({ code: 0, signal: null });
    expect(server.replies).toHaveLength(1);
    expectToolResult(await server.reply("last"), "no newline");
  });

  it("writes U+2028 and U+2029 as escapes and keeps the reply on one line", async () => {
    const server = new FixtureProcess();
    server.send(statelessCall("uni", "unicode"));
    const reply = await server.reply("uni");
    expect(textOf(reply)).toBe("line\u2028separator\u2029paragraph\nnewline 😀🎉 done");
    expect(server.rawLines).toHaveLength(1);
    const raw = server.rawLines[0] as string;
    expect(raw).toContain("\\u2028");
    expect(raw).toContain("\\u2029");
    expect(raw).not.toMatch(/[\u2028\u2029]/);
    expect(raw).toContain("😀🎉");
    expect(raw).not.toContain("\r");
  });

  it("applies backpressure: unread stdout keeps the server's memory bounded, and every reply arrives intact", async () => {
    const count = 3000;
    const bytes = 100_000;
    const pattern = "0123456789abcdef".repeat(Math.ceil(bytes / 16)).slice(0, bytes);
    const server = new FixtureProcess({
      keepLines: false,
      // Keep only what the test checks of each 100 KB reply.
      digest: (response) => {
        const content = response.result?.content as { text?: unknown }[] | undefined;
        const text = content?.[0]?.text;
        return {
          ...response,
          result: { intact: text === pattern, length: typeof text === "string" ? text.length : -1 },
        };
      },
    });
    server.send(statelessCall("warmup", "add", { a: 1, b: 1 }));
    await server.reply("warmup");
    const pid = server.child.pid as number;
    const baseline = rssBytes(pid) as number;
    expect(baseline).toBeGreaterThan(0);

    server.child.stdout.pause();
    server.send(...Array.from({ length: count }, (_, i) => statelessCall(`big-${i}`, "big", { bytes })));
    let peak = baseline;
    for (let sample = 0; sample < 50; sample++) {
      await sleep(75);
      peak = Math.max(peak, rssBytes(pid) ?? 0);
    }
    const received = server.replies.length;
    server.child.stdout.resume();
    expect(received).toBeLessThan(count);
    await server.until(() => (server.replies.length >= count + 1 ? true : undefined), `${count} big replies`);
    // 300 MB of replies were asked for; without backpressure they would all sit in the server's memory.
    expect(peak, `peak RSS ${Math.round(peak / MiB)} MiB (baseline ${Math.round(baseline / MiB)} MiB)`).toBeLessThan(
      300 * 1000 * 1000,
    );
    for (let i = 0; i < count; i++) {
      const replies = server.repliesTo(`big-${i}`);
      expect(replies, `replies to big-${i}`).toHaveLength(1);
      expect(replies[0]?.result).toEqual({ intact: true, length: bytes });
    }
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });

  it("speaks the handshake era: a request before initialize is refused, then initialize, tools/list and calls work", async () => {
    const server = new FixtureProcess();
    server.send({ jsonrpc: "2.0", id: "early", method: "tools/list" });
    const early = await server.reply("early");
    expect(early.id).toBe("early");
    expect(early.result).toBeUndefined();
    expect(early.error?.code).toEqual(expect.any(Number));

    server.send(INITIALIZE);
    const init = await server.reply("init");
    expect(init.result).toMatchObject({
      protocolVersion: "2025-11-25",
      capabilities: { tools: {} },
      serverInfo: { name: "stdio-fixture", version: "1.0.0" },
    });
    server.send(INITIALIZED, { jsonrpc: "2.0", id: "list", method: "tools/list" });
    const list = await server.reply("list");
    const tools = list.result?.tools as { name: string; inputSchema: { type: string } }[];
    expect(tools.map((tool) => tool.name)).toEqual(["echo", "add", "sleep", "noisy", "big", "unicode"]);
    for (const tool of tools) expect(tool.inputSchema.type).toBe("object");

    server.send(handshakeCall("call", "echo", { text: "handshake" }), { jsonrpc: "2.0", id: "ping", method: "ping" });
    expectToolResult(await server.reply("call"), "handshake");
    expect((await server.reply("ping")).result).toEqual({});
    // The notification got no reply: one reply per request, nothing else on stdout.
    expect(server.replies.map((reply) => reply.id).sort()).toEqual(["call", "early", "init", "list", "ping"]);
    expect(server.lineCount).toBe(5);
    server.end();
    expect(await server.exited()).toEqual({ code: 0, signal: null });
  });
});
