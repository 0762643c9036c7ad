import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Client, type JSONRPCMessage, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { createServer, type LogEntry, type Server } from "@toolsmith/core";
import { listen } from "@toolsmith/transport-http";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { until } from "../../../scripts/wait.js";
import { createRemote, type RemoteOptions } from "./index.js";
import { MAX_LOGGER_CHARS, MAX_NOTE_CHARS, MAX_RELAYED_PER_CALL } from "./notes.js";

// What the remote says while it serves a call (progress, logs), its list changes in either era, and what it must not
// be able to do to the gateway (flood it, answer garbage); the gateway driven by the official client over HTTP, whose
// transport is tapped so the test sees every line in the order it came (its own onprogress can miss some).

const SDK_REMOTE = fileURLToPath(new URL("./sdk-remote.test-util.mjs", import.meta.url));
const RAW_REMOTE = fileURLToPath(new URL("./raw-remote.test-util.mjs", import.meta.url));
const LOG_LEVEL = "io.modelcontextprotocol/logLevel";

type Era = "legacy" | { pin: "2026-07-28" };
const ERAS: [string, Era][] = [
  ["handshake era", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
];

const open: { close(): Promise<unknown> }[] = [];
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await item.close();
});

interface Caller {
  client: Client;
  /** Every message the client's transport read, in order. */
  heard: Record<string, unknown>[];
}

async function gateway(
  options: RemoteOptions,
  era: Era,
): Promise<{ caller: () => Promise<Caller>; logged: LogEntry[] }> {
  const remote = await createRemote(options);
  open.push(remote);
  const app = createServer({ name: "gateway", version: "1.0.0" });
  const logged: LogEntry[] = [];
  app.setLogger((entry) => logged.push(entry));
  app.tool({ name: "local", description: "A local tool", handler: () => "here" });
  app.mount("r", remote.server);
  const http = await listen(app, { port: 0, log: null });
  open.push(http);
  const caller = async (): Promise<Caller> => {
    const client = new Client({ name: "test", version: "1.0.0" }, { versionNegotiation: { mode: era } });
    const transport = new StreamableHTTPClientTransport(new URL(http.url));
    await client.connect(transport);
    open.push(client);
    const heard: Record<string, unknown>[] = [];
    const inner = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage, extra?: unknown) => {
      heard.push(message as Record<string, unknown>);
      (inner as ((m: JSONRPCMessage, e?: unknown) => void) | undefined)?.(message, extra);
    };
    if (era === "legacy") await client.setLoggingLevel("info");
    return { client, heard };
  };
  return { caller, logged };
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content[0]?.text ?? "") as string;
}

/** Call `name` asking for progress and (2026-07-28) logs at info; what was heard for it, in order, reply last. */
async function callHeard(caller: Caller, name: string, args: Record<string, unknown> = {}) {
  const start = caller.heard.length;
  const result = await caller.client.callTool(
    { name, arguments: args, _meta: { [LOG_LEVEL]: "info" } },
    { onprogress: () => undefined },
  );
  const lines = caller.heard.slice(start);
  const progress = lines.filter((m) => m.method === "notifications/progress");
  const logs = lines.filter((m) => m.method === "notifications/message");
  const reply = lines.findIndex((m) => m.id !== undefined && m.method === undefined);
  return { result, lines, progress, logs, reply };
}

const params = (m: Record<string, unknown>) => m.params as Record<string, unknown>;

describe.each(ERAS)("the remote's progress, caller in the %s", (_, era) => {
  it("progress written in one chunk with the reply reaches the caller, all of it, in order, before the reply", async () => {
    const { caller } = await gateway({ command: process.execPath, args: [RAW_REMOTE], era: "legacy" }, era);
    const a = await caller();
    const { result, lines, progress, reply } = await callHeard(a, "r.steps");
    expect(textOf(result)).toBe("stepped");
    expect(progress.map((m) => params(m).progress)).toEqual([1, 2, 3]);
    expect(lines.indexOf(progress[2] as Record<string, unknown>)).toBeLessThan(reply);
  });
});

function logging(gate: { started: number; both?: () => void; bothStarted: Promise<void> }): Server {
  const server = createServer({ name: "logging-remote", version: "1.0.0" });
  server.tool({
    name: "say",
    description: "Logs its word twice, the second time once two calls are in flight",
    input: { word: z.string() },
    handler: async ({ word }, ctx) => {
      ctx.log.info(`${word} 1`);
      ctx.log.debug(`${word} debug`);
      ctx.progress(1, 2);
      if (++gate.started === 2) gate.both?.();
      await gate.bothStarted;
      ctx.log.named("speaker").warning(`${word} 2`);
      ctx.progress(2, 2);
      return word;
    },
  });
  return server;
}

describe.each(ERAS)("the remote's logs over HTTP, remote and callers in the %s", (_, era) => {
  it("reach the caller whose call caused them, at its level, never another caller", async () => {
    const gate: { started: number; both?: () => void; bothStarted: Promise<void> } = {
      started: 0,
      bothStarted: Promise.resolve(),
    };
    gate.bothStarted = new Promise((resolve) => {
      gate.both = resolve;
    });
    const http = await listen(logging(gate), { port: 0, log: null });
    open.unshift(http);
    const { caller } = await gateway({ url: http.url, era }, era);
    const [a, b] = [await caller(), await caller()];
    const [heardA, heardB] = await Promise.all([
      callHeard(a, "r.say", { word: "alpha" }),
      callHeard(b, "r.say", { word: "beta" }),
    ]);
    for (const [heard, word] of [
      [heardA, "alpha"],
      [heardB, "beta"],
    ] as const) {
      expect(textOf(heard.result)).toBe(word);
      expect(heard.logs.map((m) => params(m).data)).toEqual([`${word} 1`, `${word} 2`]);
      expect(heard.logs.map((m) => params(m).level)).toEqual(["info", "warning"]);
      expect(params(heard.logs[1] as Record<string, unknown>).logger).toBe("speaker");
      expect(heard.progress.map((m) => params(m).progress)).toEqual([1, 2]);
      expect(heard.lines.indexOf(heard.logs[1] as Record<string, unknown>)).toBeLessThan(heard.reply);
    }
  });
});

async function sdkOverHttp(): Promise<string> {
  const child = spawn(process.execPath, [SDK_REMOTE, "--http", "--steps"], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  open.unshift({
    close: () => {
      child.kill();
      return exited;
    },
  });
  const [line] = (await once(createInterface({ input: child.stdout }), "line")) as [string];
  return line;
}

describe.each(ERAS)("the official SDK v2 as the remote, in the %s", (_, era) => {
  it("over HTTP: its progress and logs reach the caller before the reply", async () => {
    const { caller } = await gateway({ url: await sdkOverHttp(), era }, era);
    const heard = await callHeard(await caller(), "r.steps", { word: "sdk" });
    expect(textOf(heard.result)).toBe("sdk");
    expect(heard.progress.map((m) => params(m).progress)).toEqual([1, 2]);
    expect(heard.logs.map((m) => params(m).data)).toEqual(["sdk 1", "sdk 2"]);
    expect(heard.lines.indexOf(heard.logs[1] as Record<string, unknown>)).toBeLessThan(heard.reply);
  });

  it("on stdio: its progress reaches the caller; its logs, tied to no call there, only the gateway's log", async () => {
    const { caller, logged } = await gateway({ command: process.execPath, args: [SDK_REMOTE, "--steps"], era }, era);
    const heard = await callHeard(await caller(), "r.steps", { word: "sdk" });
    expect(textOf(heard.result)).toBe("sdk");
    expect(heard.progress.map((m) => params(m).progress)).toEqual([1, 2]);
    expect(heard.logs).toEqual([]);
    await until(() => logged.filter((entry) => /: sdk \d$/.test(entry.message)).length === 2, "the logs");
  });
});

describe.each(ERAS)("a remote's list change, remote in the %s", (_, era) => {
  it("is heard, listed again and announced by the gateway", async () => {
    const remoteServer = createServer({ name: "changing", version: "1.0.0" });
    remoteServer.tool({ name: "first", description: "There from the start", handler: () => "first" });
    const http = await listen(remoteServer, { port: 0, log: null });
    open.unshift(http);
    const { caller } = await gateway({ url: http.url, era }, "legacy");
    const { client } = await caller();
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("r.first");
    const announced = new Promise<void>((resolve) =>
      client.setNotificationHandler("notifications/tools/list_changed", () => resolve()),
    );
    remoteServer.tool({ name: "later", description: "Added later", handler: () => "late" });
    await announced;
    const listed = (await client.listTools(undefined, { cacheMode: "refresh" })).tools.map((t) => t.name);
    expect(listed).toContain("r.later");
    expect(textOf(await client.callTool({ name: "r.later", arguments: {} }))).toBe("late");
  });
});

describe("a remote that misbehaves after it connected (stdio)", () => {
  it("a flood of 100,000 progress and 100,000 log lines before a reply: relayed within bounds, the gateway serves on", async () => {
    const { caller, logged } = await gateway(
      { command: process.execPath, args: [RAW_REMOTE], era: "legacy" },
      "legacy",
    );
    const a = await caller();
    const { result, progress, logs } = await callHeard(a, "r.flood", { n: 100_000 });
    expect(textOf(result)).toBe("flooded");
    expect(progress).toHaveLength(MAX_RELAYED_PER_CALL);
    // Logs on stdio are tied to no call: never a caller's; the gateway's own log takes at most 100 of them per 10 s.
    expect(logs.map((m) => params(m).data)).toEqual([
      expect.stringMatching(/sent 99000 more notifications than the 1000 relayed/),
    ]);
    const strays = logged.filter((entry) => entry.message.includes(": flood "));
    expect(strays.length).toBeGreaterThan(0);
    expect(strays.length).toBeLessThanOrEqual(1000);
    expect(logged.some((entry) => /sent 99000 more notifications/.test(entry.message))).toBe(true);
    expect(textOf(await a.client.callTool({ name: "r.add", arguments: { a: 1, b: 2 } }))).toBe("3");
  });

  it("a 12 MB line is refused as it is read (the default 10 MB bound), and the next call reconnects", async () => {
    const { caller } = await gateway(
      { command: process.execPath, args: [RAW_REMOTE], era: "legacy", backoff: { initialMs: 0 } },
      "legacy",
    );
    const a = await caller();
    const huge = await a.client.callTool({ name: "r.huge", arguments: { bytes: 12 * 1024 * 1024 } });
    expect(huge.isError).toBe(true);
    expect(textOf(huge)).toMatch(/^remote command ".*" answered with more than 10485760 bytes$/);
    expect(textOf(await a.client.callTool({ name: "r.add", arguments: { a: 2, b: 3 } }))).toBe("5");
  });

  it("garbage and a reply to another id: cut at timeoutMs with a clear isError, and the gateway serves on", async () => {
    const { caller } = await gateway(
      // Long enough for a node process to start under load (connecting is bounded by it too).
      { command: process.execPath, args: [RAW_REMOTE], era: "legacy", timeoutMs: 3000, backoff: { initialMs: 0 } },
      "legacy",
    );
    const a = await caller();
    const garbage = await a.client.callTool({ name: "r.garbage", arguments: {} });
    expect(garbage.isError).toBe(true);
    expect(textOf(garbage)).toMatch(/did not answer within 3000 ms/);
    const malformed = await a.client.callTool({ name: "r.malformed", arguments: {} });
    expect(malformed.isError).toBe(true);
    expect(textOf(malformed)).toMatch(/^remote command ".*" (failed|answered)/);
    expect(textOf(await a.client.callTool({ name: "r.add", arguments: { a: 2, b: 2 } }))).toBe("4");
    expect(textOf(await a.client.callTool({ name: "local", arguments: {} }))).toBe("here");
  });
});

describe("notes over time", () => {
  it("a long progress message or log is relayed cut to 16 KiB, a long logger name to 128 characters", async () => {
    const server = createServer({ name: "long", version: "1.0.0" });
    server.tool({
      name: "long",
      description: "Says a lot",
      handler: (_, ctx) => {
        ctx.progress(1, 1, "p".repeat(100_000));
        ctx.log.info("l".repeat(100_000));
        ctx.log.info({ many: "m".repeat(100_000) });
        ctx.log.named("n".repeat(100_000)).info("named at length");
        return "said";
      },
    });
    const http = await listen(server, { port: 0, log: null });
    open.unshift(http);
    const { caller } = await gateway({ url: http.url, era: "legacy" }, "legacy");
    const heard = await callHeard(await caller(), "r.long");
    expect(textOf(heard.result)).toBe("said");
    expect(String(params(heard.progress[0] as Record<string, unknown>).message)).toHaveLength(MAX_NOTE_CHARS + 1);
    expect(heard.logs.map((m) => String(params(m).data).length)).toEqual([
      MAX_NOTE_CHARS + 1,
      MAX_NOTE_CHARS + 1,
      "named at length".length,
    ]);
    // The logger's name is the remote's text too: cut as short as a name is.
    expect(heard.logs.map((m) => String(params(m).logger ?? "").length)).toEqual([4, 4, MAX_LOGGER_CHARS + 1]);
  });

  it.each(ERAS)(
    "a stdio remote that dies mid-call: the progress it sent, an isError, and the next call reconnects (%s)",
    async (_, era) => {
      const { caller } = await gateway(
        { command: process.execPath, args: [RAW_REMOTE], era: "legacy", backoff: { initialMs: 0 } },
        era,
      );
      const a = await caller();
      const died = await callHeard(a, "r.die");
      expect(died.result.isError).toBe(true);
      expect(textOf(died.result)).toMatch(/^remote command ".*" failed: .*closed/i);
      expect(died.progress.map((m) => params(m).progress)).toEqual([1]);
      const { result, progress } = await callHeard(a, "r.steps");
      expect(textOf(result)).toBe("stepped");
      expect(progress.map((m) => params(m).progress)).toEqual([1, 2, 3]);
    },
  );

  it("a log after the call ended reaches no caller", async () => {
    const server = createServer({ name: "late", version: "1.0.0" });
    let later: (() => void) | undefined;
    server.tool({
      name: "soon",
      description: "Logs after its reply",
      handler: (_, ctx) => {
        later = () => ctx.log.info("too late");
        return "done";
      },
    });
    const http = await listen(server, { port: 0, log: null });
    open.unshift(http);
    const { caller } = await gateway({ url: http.url, era: "legacy" }, "legacy");
    const a = await caller();
    expect(textOf((await callHeard(a, "r.soon")).result)).toBe("done");
    const before = a.heard.length;
    later?.();
    expect(textOf(await a.client.callTool({ name: "local", arguments: {} }))).toBe("here");
    await until(() => a.heard.length > before, "the local reply");
    expect(a.heard.slice(before).some((m) => m.method === "notifications/message")).toBe(false);
  });
});
