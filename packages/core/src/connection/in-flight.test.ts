import { describe, expect, it } from "vitest";
import { createServer } from "../server/server.js";
import type { Connection } from "./connection.js";
import { connectLines, replyTo } from "./connection.test-util.js";
import {
  errorReply,
  fixture,
  handshake,
  type Json,
  notification,
  request,
  send,
  stateless,
} from "./fixture.test-util.js";

describe("cancellation", () => {
  for (const era of ["handshake", "stateless"]) {
    it(`${era}: notifications/cancelled aborts the handler's signal and suppresses the reply`, async () => {
      const { server, gate } = fixture();
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const params = era === "handshake" ? { name: "slow" } : stateless({ name: "slow" });
      const pending = replyTo(session, JSON.stringify(request(10, "tools/call", params)));
      await gate.started;
      expect(session.pending).toBe(1);
      const cancel = notification("notifications/cancelled", { requestId: 10, reason: "user gave up" });
      expect(await send(session, cancel)).toBeUndefined();
      expect(await pending).toBeUndefined();
      expect(gate.signals[0]?.aborted).toBe(true);
      expect(session.pending).toBe(0);
      // The id is free again.
      expect(
        await send(session, request(10, "tools/list", era === "handshake" ? undefined : stateless())),
      ).toMatchObject({ id: 10, result: {} });
    });
  }

  it("cancelling an unknown id is ignored; the request in flight still gets its reply", async () => {
    const { server, gate } = fixture();
    const session = await handshake(server);
    const pending = replyTo(session, JSON.stringify(request(11, "tools/call", { name: "slow" })));
    await gate.started;
    expect(await send(session, notification("notifications/cancelled", { requestId: 999 }))).toBeUndefined();
    expect(await send(session, notification("notifications/cancelled", { requestId: "11" }))).toBeUndefined();
    expect(gate.signals[0]?.aborted).toBe(false);
    gate.release("done");
    expect(JSON.parse((await pending) ?? "null")).toEqual({
      jsonrpc: "2.0",
      id: 11,
      result: { content: [{ type: "text", text: "done" }], isError: false },
    });
  });

  it("cancelling a request that already finished is ignored", async () => {
    const session = await handshake(fixture().server);
    expect(await send(session, request(1, "ping"))).toEqual({ jsonrpc: "2.0", id: 1, result: {} });
    expect(await send(session, notification("notifications/cancelled", { requestId: 1 }))).toBeUndefined();
    expect(await send(session, request(2, "ping"))).toEqual({ jsonrpc: "2.0", id: 2, result: {} });
  });
});

describe("duplicate ids", () => {
  for (const era of ["handshake", "stateless"]) {
    it(`${era}: a duplicate id while the first is in flight → -32600; the first completes`, async () => {
      const { server, gate } = fixture();
      const session = era === "handshake" ? await handshake(server) : connectLines(server);
      const wrap = (params: Json) => (era === "handshake" ? params : stateless(params));
      const first = replyTo(session, JSON.stringify(request(7, "tools/call", wrap({ name: "slow" }))));
      await gate.started;
      const taken = errorReply(7, -32600, "Invalid request: id 7 is already in use by a request in flight");
      expect(await send(session, request(7, "tools/list", wrap({})))).toEqual(taken);
      expect(await send(session, request(7, "tools/call", wrap({ name: "echo", arguments: { text: "x" } })))).toEqual(
        taken,
      );
      expect(gate.signals[0]?.aborted).toBe(false);
      gate.release("first");
      expect(JSON.parse((await first) ?? "null")).toMatchObject({
        id: 7,
        result: { content: [{ type: "text", text: "first" }] },
      });
    });
  }
});

// A synchronous handler is in flight while it runs, though it never waits: what it causes on its own connection
// (here, lines it hands the connection itself) sees its id taken, and may cancel it.
describe("a synchronous handler, while it runs", () => {
  function reentrant(during: (connection: Connection, signal: AbortSignal) => unknown) {
    const lines: Json[] = [];
    let pendingDuring = -1;
    const server = createServer({ name: "reentrant", version: "1" });
    const connection: Connection = server.connect({ send: (line) => lines.push(JSON.parse(line)) });
    server.tool({
      name: "sync",
      description: "answers at once, after handing its connection a line",
      handler: (_args, ctx) => {
        pendingDuring = connection.pending;
        return String(during(connection, ctx.signal));
      },
    });
    const call = (id: number) => JSON.stringify(request(id, "tools/call", stateless({ name: "sync" })));
    return { connection, lines, call, pending: () => pendingDuring };
  }

  it("holds its id: the same id meanwhile is refused -32600; it is answered, and then the id is free", () => {
    const { connection, lines, call, pending } = reentrant((connection) => {
      connection.receive(JSON.stringify(request(3, "tools/list", stateless())));
      return "answered";
    });
    expect(connection.receive(call(3))).toBeUndefined();
    expect(pending()).toBe(1);
    expect(lines).toEqual([
      errorReply(3, -32600, "Invalid request: id 3 is already in use by a request in flight"),
      expect.objectContaining({
        id: 3,
        result: expect.objectContaining({ content: [{ type: "text", text: "answered" }] }),
      }),
    ]);
    expect(connection.pending).toBe(0);
    connection.receive(JSON.stringify(request(3, "tools/list", stateless())));
    expect(lines[2]).toMatchObject({ id: 3, result: { tools: [{ name: "sync" }] } });
  });

  it("a cancellation of it aborts its signal, frees its id at once, and its reply is never sent", () => {
    const { connection, lines, call } = reentrant((connection, signal) => {
      connection.receive(JSON.stringify(notification("notifications/cancelled", stateless({ requestId: 4 }))));
      const aborted = signal.aborted;
      connection.receive(JSON.stringify(request(4, "tools/list", stateless())));
      return aborted;
    });
    expect(connection.receive(call(4))).toBeUndefined();
    expect(lines).toEqual([
      expect.objectContaining({ id: 4, result: expect.objectContaining({ tools: [expect.anything()] }) }),
    ]);
    expect(connection.pending).toBe(0);
  });

  it("closing its connection aborts it", () => {
    const { connection, lines, call } = reentrant((connection, signal) => {
      connection.close();
      return signal.aborted;
    });
    connection.receive(call(5));
    expect(lines).toMatchObject([{ id: 5, result: { content: [{ type: "text", text: "true" }] } }]);
  });
});
