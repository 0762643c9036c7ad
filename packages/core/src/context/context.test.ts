import { describe, expect, it } from "vitest";
import { z } from "zod";
import { MetaKey } from "../protocol/versions.js";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import { rpcError } from "../testing/expect-errors.test-util.js";
import { ErrorCode } from "../wire/json-rpc.js";
import type { LogEntry } from "./logger.js";

// What a handler's context sends while it serves: progress and log messages, each scoped as the revision says.

function server() {
  const s = createServer({ name: "ctx", version: "1" });
  s.tool({
    name: "steps",
    description: "Three steps",
    input: { back: z.boolean().optional() },
    handler: ({ back }, ctx) => {
      ctx.progress(0, 100, "starting");
      ctx.progress(50, 100);
      if (back) ctx.progress(40, 100);
      ctx.progress(100, 100, "done");
      return "ok";
    },
  });
  s.tool({
    name: "chatty",
    description: "Logs at every level",
    handler: (_args, ctx) => {
      ctx.log.debug("d");
      ctx.log.info({ step: 1 }, "planning");
      ctx.log.warning("w");
      ctx.log.error("e");
      return "ok";
    },
  });
  let late: (() => void) | undefined;
  s.tool({
    name: "leaky",
    description: "Keeps its ctx around",
    handler: (_args, ctx) => {
      late = () => {
        ctx.progress(2);
        ctx.log.error("after the reply");
      };
      ctx.progress(1);
      return "ok";
    },
  });
  return { s, late: () => late?.() };
}

const progressOf = (notifications: { method: string; params?: Record<string, unknown> }[]) =>
  notifications.filter((n) => n.method === "notifications/progress").map((n) => n.params);

describe.each(["2025-06-18", "2025-11-25", "2026-07-28"] as const)("ctx in %s", (protocolVersion) => {
  it("progress goes out, related to the request, when the client gave a token", async () => {
    const client = await createTestClient(server().s, { protocolVersion });
    const { notifications } = await client.exchange("tools/call", { name: "steps", _meta: { progressToken: "t-1" } });
    expect(progressOf(notifications)).toEqual([
      { progressToken: "t-1", progress: 0, total: 100, message: "starting" },
      { progressToken: "t-1", progress: 50, total: 100 },
      { progressToken: "t-1", progress: 100, total: 100, message: "done" },
    ]);
  });

  it("without a token nothing is sent", async () => {
    const client = await createTestClient(server().s, { protocolVersion });
    expect((await client.exchange("tools/call", { name: "steps" })).notifications).toEqual([]);
  });

  it("progress that goes back is refused in the handler with a clear error, and not sent", async () => {
    const client = await createTestClient(server().s, { protocolVersion });
    const { result, notifications } = await client.exchange("tools/call", {
      name: "steps",
      arguments: { back: true },
      _meta: { progressToken: 7 },
    });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toContain("ctx.progress(40) after ctx.progress(50): progress must increase");
    expect(progressOf(notifications).map((p) => p?.progress)).toEqual([0, 50]);
  });

  it("after the reply, progress stops", async () => {
    const { s, late } = server();
    const client = await createTestClient(s, { protocolVersion });
    await client.exchange("tools/call", { name: "leaky", _meta: { progressToken: "x" } });
    const before = client.notifications.length;
    late();
    expect(progressOf(client.notifications.slice(before))).toEqual([]);
  });
});

describe("ctx.log in the handshake era", () => {
  it("sends every level until the client sets one; then only that level and above", async () => {
    const client = await createTestClient(server().s, { protocolVersion: "2025-11-25" });
    const all = await client.exchange("tools/call", { name: "chatty" });
    expect(all.notifications.map((n) => n.params?.level)).toEqual(["debug", "info", "warning", "error"]);
    expect(all.notifications[1]).toEqual({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level: "info", data: { message: "planning", data: { step: 1 } }, logger: "chatty" },
    });
    await client.setLogLevel("warning");
    const some = await client.exchange("tools/call", { name: "chatty" });
    expect(some.notifications.map((n) => n.params?.level)).toEqual(["warning", "error"]);
  });

  it("logging/setLevel answers {} and refuses an unknown level with -32602", async () => {
    const client = await createTestClient(server().s, { protocolVersion: "2025-11-25" });
    expect(await client.request("logging/setLevel", { level: "notice" })).toEqual({});
    expect((await rpcError(client.request("logging/setLevel", { level: "loud" }))).code).toBe(ErrorCode.InvalidParams);
  });

  it("the level belongs to the connection: another client still hears everything", async () => {
    const { s } = server();
    const quiet = await createTestClient(s, { protocolVersion: "2025-11-25" });
    await quiet.setLogLevel("emergency");
    const loud = await createTestClient(s, { protocolVersion: "2025-11-25" });
    expect((await loud.exchange("tools/call", { name: "chatty" })).notifications).toHaveLength(4);
    expect((await quiet.exchange("tools/call", { name: "chatty" })).notifications).toHaveLength(0);
  });
});

describe("ctx.log in 2026-07-28", () => {
  it("sends nothing unless the request's _meta asks, and then only from that level, only for that request", async () => {
    const { s, late } = server();
    const client = await createTestClient(s);
    expect((await client.exchange("tools/call", { name: "chatty" })).notifications).toEqual([]);
    const asked = await client.exchange("tools/call", { name: "chatty", _meta: { [MetaKey.logLevel]: "info" } });
    expect(asked.notifications.map((n) => n.params?.level)).toEqual(["info", "warning", "error"]);
    await client.exchange("tools/call", { name: "leaky", _meta: { [MetaKey.logLevel]: "debug" } });
    const before = client.notifications.length;
    late();
    expect(client.notifications.slice(before)).toEqual([]);
  });

  it("logging/setLevel does not exist", async () => {
    const client = await createTestClient(server().s);
    const error = await rpcError(client.request("logging/setLevel", { level: "info" }));
    expect(error.code).toBe(ErrorCode.MethodNotFound);
    expect(error.message).toContain("removed in protocol revision 2026-07-28");
  });
});

describe("the server's own log", () => {
  it("a tool's plain Error is info (expected), a TypeError a warning, a -32603 an error; onError hears all three", async () => {
    const entries: LogEntry[] = [];
    const heard: unknown[] = [];
    const s = createServer({
      name: "log",
      version: "1",
      logger: (entry) => entries.push(entry),
      onError: (error) => heard.push(error),
    });
    s.tool({
      name: "expected",
      description: "fails as designed",
      handler: () => {
        throw new Error("no such city");
      },
    });
    s.tool({
      name: "buggy",
      description: "has a bug",
      handler: () => {
        throw new TypeError("x is undefined");
      },
    });
    s.resource({
      uri: "broken://r",
      handler: () => {
        throw new RangeError("disk on fire");
      },
    });
    const client = await createTestClient(s, { protocolVersion: "2025-11-25" });
    await client.callTool("expected");
    await client.callTool("buggy");
    expect((await rpcError(client.readResource("broken://r"))).message).toBe("Internal error");
    expect(entries.map((entry) => [entry.level, entry.tool ?? entry.method])).toEqual([
      ["info", "expected"],
      ["warning", "buggy"],
      ["error", "resources/read"],
    ]);
    expect(entries[0]?.message).toBe("tool expected (id 1) failed: Error: no such city");
    expect(heard).toHaveLength(3);
  });
});
