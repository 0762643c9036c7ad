import { describe, expect, it } from "vitest";
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
