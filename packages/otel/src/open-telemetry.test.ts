import { context, propagation, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { ErrorCode } from "@toolsmith/core";
import type { Middleware } from "@toolsmith/core/middleware";
import { createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
import { INSTRUMENTATION_NAME } from "./open-telemetry.js";
import { CLIENT_SPAN, TRACE_ID, TRACEPARENT, tracedServer, useTracing } from "./tracing.test-util.js";

// openTelemetry(): one SERVER span per operation, a child of the client's span from _meta, per the MCP conventions.

const tracing = useTracing();

describe.each(["2026-07-28", "2025-11-25"] as const)("in %s", (protocolVersion) => {
  const client = (options = {}) => createTestClient(tracedServer(tracing.provider, options), { protocolVersion });

  it("a tools/call with a traceparent: a SERVER span, the client's span its parent, the handler's span its child", async () => {
    const c = await client();
    await c.request("tools/call", { name: "add", arguments: { a: 1, b: 2 }, _meta: { traceparent: TRACEPARENT } });
    const span = await tracing.span("tools/call add");
    expect(span.kind).toBe(SpanKind.SERVER);
    expect(span.instrumentationScope.name).toBe(INSTRUMENTATION_NAME);
    expect(span.spanContext().traceId).toBe(TRACE_ID);
    expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(span.parentSpanContext?.isRemote).toBe(true);
    expect(span.attributes).toEqual({
      "mcp.method.name": "tools/call",
      "mcp.protocol.version": protocolVersion,
      "jsonrpc.request.id": expect.any(String),
      "gen_ai.tool.name": "add",
      "gen_ai.operation.name": "execute_tool",
    });
    expect(span.status.code).toBe(SpanStatusCode.UNSET);
    const inner = await tracing.span("add.inner");
    expect(inner.spanContext().traceId).toBe(TRACE_ID);
    expect(inner.parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it("without trace _meta: a new root trace, and the call works", async () => {
    const c = await client();
    expect(await c.callTool("add", { a: 2, b: 2 })).toMatchObject({ content: [{ text: "4" }] });
    const span = await tracing.span("tools/call add");
    expect(span.parentSpanContext).toBeUndefined();
    expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    expect((await tracing.span("add.inner")).parentSpanContext?.spanId).toBe(span.spanContext().spanId);
  });

  it("a malformed traceparent: a new root trace (never a child of it), and the call works", async () => {
    const c = await client();
    // The second is one OpenTelemetry's own W3C propagator would take (it trims a header's spaces); _meta is no header.
    for (const bad of [`00-${TRACE_ID}-0000000000000000-01`, ` ${TRACEPARENT}`, TRACEPARENT.toUpperCase()]) {
      tracing.reset();
      const result = await c.request("tools/call", {
        name: "add",
        arguments: { a: 1, b: 1 },
        _meta: { traceparent: bad, tracestate: "rojo=1" },
      });
      expect(result).toMatchObject({ content: [{ text: "2" }] });
      const span = await tracing.span("tools/call add");
      expect(span.parentSpanContext, bad).toBeUndefined();
      expect(span.spanContext().traceId).not.toBe(TRACE_ID);
    }
  });

  it("tracestate and baggage travel with the parent", async () => {
    let seen: string | undefined;
    const probe: Middleware = (_op, next) => {
      seen = propagation.getActiveBaggage()?.getEntry("user")?.value;
      return next();
    };
    const s = tracedServer(tracing.provider, {}, [probe]);
    const d = await createTestClient(s, { protocolVersion });
    await d.request("tools/call", {
      name: "add",
      arguments: { a: 0, b: 0 },
      _meta: { traceparent: TRACEPARENT, tracestate: "rojo=00f067aa0ba902b7", baggage: "user=alice" },
    });
    expect(seen).toBe("alice");
    expect((await tracing.span("tools/call add")).parentSpanContext?.traceState?.get("rojo")).toBe("00f067aa0ba902b7");
  });

  it("an isError result: error.type tool_error, status ERROR", async () => {
    const c = await client();
    expect(await c.callTool("broken")).toMatchObject({ isError: true });
    const span = await tracing.span("tools/call broken");
    expect(span.attributes["error.type"]).toBe("tool_error");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("a thrown McpError: its code as error.type and rpc.response.status_code, its message as the status", async () => {
    const c = await client();
    await expect(c.callTool("refusing")).rejects.toMatchObject({ code: -32001 });
    const span = await tracing.span("tools/call refusing");
    expect(span.attributes).toMatchObject({ "error.type": "-32001", "rpc.response.status_code": "-32001" });
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "not today" });
  });

  it("a plain throw inside: -32603, the exception recorded on the span (never on the wire)", async () => {
    const crash: Middleware = () => {
      throw new Error("the database is down");
    };
    const c = await createTestClient(tracedServer(tracing.provider, {}, [crash]), { protocolVersion });
    await expect(c.callTool("add", { a: 1, b: 2 })).rejects.toMatchObject({ code: ErrorCode.InternalError });
    const span = await tracing.span("tools/call add");
    expect(span.attributes["error.type"]).toBe("-32603");
    expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: "Internal error" });
    expect(span.events[0]?.attributes?.["exception.message"]).toBe("the database is down");
  });

  it("an unknown tool: the JSON-RPC error the client got", async () => {
    const c = await client();
    const error = await c.callTool("nope").then(
      () => undefined,
      (failure: { code: number }) => failure,
    );
    const span = await tracing.span("tools/call nope");
    expect(span.attributes["error.type"]).toBe(String(error?.code));
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
  });

  it("resources/read: mcp.resource.uri, never in the span's name; left out when asked", async () => {
    const c = await client();
    await c.readResource("file:///notes/secret.txt");
    const span = await tracing.span("resources/read");
    expect(span.attributes).toMatchObject({ "mcp.method.name": "resources/read" });
    expect(span.attributes["mcp.resource.uri"]).toBe("file:///notes/secret.txt");
    tracing.reset();
    const quiet = await client({ resourceUri: false });
    await quiet.readResource("file:///notes/secret.txt");
    const spans = (await tracing.spans()).filter((s) => s.name === "resources/read");
    expect(spans.at(-1)?.attributes["mcp.resource.uri"]).toBeUndefined();
  });

  it("prompts/get and the lists: a span each, the prompt's name as gen_ai.prompt.name", async () => {
    const c = await client({ attributes: () => ({ "app.tenant": "acme" }) });
    await c.getPrompt("greet", { who: "Ada" });
    await c.listTools();
    await c.listPrompts();
    await c.listResources();
    expect((await tracing.span("prompts/get greet")).attributes).toMatchObject({
      "mcp.method.name": "prompts/get",
      "gen_ai.prompt.name": "greet",
      "app.tenant": "acme",
    });
    for (const method of ["tools/list", "prompts/list", "resources/list"]) {
      expect((await tracing.span(method)).attributes).toMatchObject({
        "mcp.method.name": method,
        "app.tenant": "acme",
      });
      expect((await tracing.span(method)).kind).toBe(SpanKind.SERVER);
    }
  });
});

describe("a task", () => {
  it("starts under the tools/call span that made it, and sees that call's trace", async () => {
    const c = await createTestClient(tracedServer(tracing.provider), { extensions: { tasks: true } });
    const created = await c.request("tools/call", { name: "later", _meta: { traceparent: TRACEPARENT } });
    expect(created.resultType).toBe("task");
    const task = await c.task("later");
    await task.wait();
    for (;;) {
      const got = await c.request("tasks/get", { taskId: created.taskId });
      if (got.status === "completed") {
        expect(got.result).toMatchObject({ content: [{ text: TRACEPARENT }] });
        break;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    const calls = (await tracing.spans()).filter((span) => span.name === "tools/call later");
    const inner = (await tracing.spans()).filter((span) => span.name === "later.inner");
    expect(calls).toHaveLength(2);
    expect(inner).toHaveLength(2);
    const traced = calls.find((span) => span.spanContext().traceId === TRACE_ID);
    expect(traced?.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(inner.map((span) => span.parentSpanContext?.spanId).sort()).toEqual(
      calls.map((span) => span.spanContext().spanId).sort(),
    );
  });
});

describe("around the middleware", () => {
  it("a hook that throws changes nothing the client gets", async () => {
    const s = tracedServer(tracing.provider, {
      attributes: () => {
        throw new Error("hook bug");
      },
    });
    const c = await createTestClient(s);
    expect(await c.callTool("add", { a: 1, b: 2 })).toMatchObject({ content: [{ text: "3" }] });
    expect((await tracing.span("tools/call add")).attributes["gen_ai.tool.name"]).toBe("add");
  });

  it("the ambient span (an HTTP server span, say) is a link when _meta brings the parent, else the parent", async () => {
    const c = await createTestClient(tracedServer(tracing.provider));
    const outer = tracing.provider.getTracer("http").startSpan("POST /mcp");
    await context.with(trace.setSpan(context.active(), outer), () =>
      c.request("tools/call", { name: "add", arguments: { a: 1, b: 2 }, _meta: { traceparent: TRACEPARENT } }),
    );
    const linked = await tracing.span("tools/call add");
    expect(linked.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
    expect(linked.links.map((link) => link.context.spanId)).toEqual([outer.spanContext().spanId]);
    tracing.reset();
    await context.with(trace.setSpan(context.active(), outer), () => c.callTool("add", { a: 1, b: 2 }));
    const child = await tracing.span("tools/call add");
    expect(child.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(child.links).toEqual([]);
    outer.end();
  });

  it("uses the global tracer provider by default, even one registered after the middleware was made", async () => {
    const { openTelemetry } = await import("./open-telemetry.js");
    const { createServer } = await import("@toolsmith/core");
    const s = createServer({ name: "global", version: "1" });
    s.use(openTelemetry());
    s.tool({ name: "ping2", description: "Pings", handler: () => "pong" });
    expect(trace.setGlobalTracerProvider(tracing.provider)).toBe(true);
    try {
      const c = await createTestClient(s);
      await c.callTool("ping2");
      expect((await tracing.span("tools/call ping2")).kind).toBe(SpanKind.SERVER);
    } finally {
      trace.disable();
    }
  });
});
