import { describe, expect, it } from "vitest";
import { createServer } from "../server/server.js";
import { createTestClient } from "../testing/client.js";
import type { RequestContext } from "./context.js";
import { isTraceparent, MAX_BAGGAGE, MAX_TRACESTATE, traceOf } from "./trace.js";

// ctx.trace: the W3C trace context a request's `_meta` carries, well-formed values only, in every era.

const PARENT = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

describe("isTraceparent", () => {
  it("takes W3C's layout and refuses what W3C says to drop", () => {
    expect(isTraceparent(PARENT)).toBe(true);
    // A later version may add fields after a dash; version 00 may not.
    expect(isTraceparent(`cc-${PARENT.slice(3)}-more`)).toBe(true);
    for (const bad of [
      `${PARENT}-more`,
      `ff-${PARENT.slice(3)}`,
      PARENT.toUpperCase(),
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7",
      ` ${PARENT}`,
      `cc-${PARENT.slice(3)}-${"x".repeat(300)}`,
      42,
      undefined,
    ]) {
      expect(isTraceparent(bad), String(bad)).toBe(false);
    }
  });
});

describe("traceOf", () => {
  it("is undefined, the same for every call, when _meta has no trace keys", () => {
    expect(traceOf(undefined)).toBeUndefined();
    expect(traceOf({ progressToken: 1 })).toBeUndefined();
    expect(traceOf({ tracestate: "a=b" })).toBeUndefined();
  });

  it("keeps the three keys when well-formed", () => {
    expect(traceOf({ traceparent: PARENT, tracestate: "rojo=1,congo=2", baggage: "user=alice" })).toEqual({
      traceparent: PARENT,
      tracestate: "rojo=1,congo=2",
      baggage: "user=alice",
    });
  });

  it("drops a malformed traceparent and its tracestate, keeps baggage", () => {
    expect(traceOf({ traceparent: "00-nope", tracestate: "a=b" })).toBeUndefined();
    expect(traceOf({ traceparent: "00-nope", tracestate: "a=b", baggage: "k=v" })).toEqual({ baggage: "k=v" });
  });

  it("bounds tracestate and baggage, and refuses control characters", () => {
    expect(traceOf({ traceparent: PARENT, tracestate: "a".repeat(MAX_TRACESTATE + 1) })).toEqual({
      traceparent: PARENT,
    });
    expect(traceOf({ traceparent: PARENT, baggage: "k=".padEnd(MAX_BAGGAGE + 1, "v") })).toEqual({
      traceparent: PARENT,
    });
    expect(traceOf({ traceparent: PARENT, tracestate: "a=b\nc=d", baggage: { k: "v" } })).toEqual({
      traceparent: PARENT,
    });
  });
});

function tracingServer() {
  const seen: Array<RequestContext["trace"]> = [];
  const server = createServer({ name: "trace", version: "1" });
  server.use((op, next) => {
    seen.push(op.ctx.trace);
    return next();
  });
  server.tool({
    name: "echo",
    description: "Answers its trace",
    handler: (_args, ctx) => JSON.stringify(ctx.trace ?? null),
  });
  server.tool({
    name: "later",
    description: "A task",
    task: "optional",
    handler: (_args, ctx) => JSON.stringify({ task: ctx.task !== undefined, trace: ctx.trace ?? null }),
  });
  return { server, seen };
}

describe.each(["2026-07-28", "2025-11-25", "2025-03-26"] as const)("ctx.trace in %s", (protocolVersion) => {
  it("is the request's trace context, in middleware and handler; undefined without one", async () => {
    const { server, seen } = tracingServer();
    const c = await createTestClient(server, { protocolVersion });
    const traced = await c.callTool("echo", {}, undefined);
    expect(JSON.parse((traced.content[0] as { text: string }).text)).toBeNull();
    const result = await c.request("tools/call", {
      name: "echo",
      _meta: { traceparent: PARENT, tracestate: "a=b", baggage: "k=v" },
    });
    const text = (result.content as Array<{ text: string }>)[0]?.text ?? "";
    expect(JSON.parse(text)).toEqual({ traceparent: PARENT, tracestate: "a=b", baggage: "k=v" });
    expect(seen.at(-1)).toEqual({ traceparent: PARENT, tracestate: "a=b", baggage: "k=v" });
    const malformed = await c.request("tools/call", { name: "echo", _meta: { traceparent: "garbage" } });
    expect((malformed.content as Array<{ text: string }>)[0]?.text).toBe("null");
  });
});

describe("a task's trace", () => {
  it("is the trace of the tools/call that made it", async () => {
    const { server } = tracingServer();
    const c = await createTestClient(server, { extensions: { tasks: true } });
    const task = await c.task("later", {}, undefined);
    const plain = await task.wait();
    expect(plain.result).toMatchObject({ content: [{ text: JSON.stringify({ task: true, trace: null }) }] });
    const created = await c.request("tools/call", { name: "later", _meta: { traceparent: PARENT } });
    expect(created.resultType).toBe("task");
    for (;;) {
      const got = await c.request("tasks/get", { taskId: created.taskId });
      if (got.status === "completed") {
        expect(got.result).toMatchObject({
          content: [{ text: JSON.stringify({ task: true, trace: { traceparent: PARENT } }) }],
        });
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
});
