import {
  type ContextManager,
  context,
  propagation,
  ROOT_CONTEXT,
  type Span,
  SpanStatusCode,
  type TextMapPropagator,
  type Tracer,
} from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { createServer } from "@toolsmith/core";
import { type Middleware, rateLimit, timeout } from "@toolsmith/core/middleware";
import { createTestClient } from "@toolsmith/core/testing";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { openTelemetry } from "./open-telemetry.js";
import { TRACE_ID, TRACEPARENT, tracedServer, useTracing } from "./tracing.test-util.js";

// Tracing never changes what the client gets, whatever the tracer, propagator or hook does; and every operation's
// span ends exactly once, even when its handler never settles.

const tracing = useTracing();

function broken(): never {
  throw new Error("tracing bug");
}

// A span whose every method throws, as a buggy SDK's might.
const throwingSpan = new Proxy({} as Span, {
  get: (_target, key) => (key === "then" ? undefined : broken),
});

describe("a faulty tracing setup changes nothing the client gets", () => {
  const call = async (options: Parameters<typeof openTelemetry>[0]) => {
    const c = await createTestClient(tracedServer(tracing.provider, options));
    const params = { name: "add", arguments: { a: 1, b: 2 }, _meta: { traceparent: TRACEPARENT } };
    expect(await c.request("tools/call", params)).toMatchObject({ content: [{ text: "3" }], isError: false });
    expect(await c.callTool("broken")).toMatchObject({ isError: true });
    await expect(c.callTool("refusing")).rejects.toMatchObject({ code: -32001, message: "not today" });
    expect((await c.getPrompt("greet", { who: "x" })).messages).toHaveLength(1);
  };

  it("a tracer whose startSpan throws", async () => {
    await call({ tracer: { startSpan: broken, startActiveSpan: broken } as unknown as Tracer });
  });

  it("a tracer whose spans throw from every method", async () => {
    await call({ tracer: { startSpan: () => throwingSpan, startActiveSpan: broken } as unknown as Tracer });
  });

  it("a propagator whose extract throws", async () => {
    const faulty: TextMapPropagator = { extract: broken, inject: broken, fields: () => [] };
    propagation.disable();
    propagation.setGlobalPropagator(faulty);
    try {
      await call({});
    } finally {
      propagation.disable();
      propagation.setGlobalPropagator(
        new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
      );
    }
  });

  it("a context manager whose with throws", async () => {
    const faulty: ContextManager = {
      active: () => ROOT_CONTEXT,
      with: broken,
      bind: (_context, target) => target,
      enable() {
        return this;
      },
      disable() {
        return this;
      },
    };
    context.disable();
    context.setGlobalContextManager(faulty);
    try {
      await call({});
    } finally {
      context.disable();
      context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    }
  });

  it("a hook that answers something other than attributes", async () => {
    await call({ attributes: () => "oops" as never });
    expect(Object.keys((await tracing.span("tools/call add")).attributes)).not.toContain("0");
  });
});

// A server whose `hang` tool never settles, even when aborted; `started` resolves once its handler runs.
function hanging(use: Middleware[]) {
  const server = createServer({ name: "hang", version: "1" });
  for (const middleware of use) server.use(middleware);
  let started!: () => void;
  const running = new Promise<void>((resolve) => {
    started = resolve;
  });
  server.tool({
    name: "hang",
    description: "Never answers",
    handler: () => {
      started();
      return new Promise<string>(() => {});
    },
  });
  return { server, running };
}

describe("a handler that never settles: its span still ends, once", () => {
  const otel = () => openTelemetry({ tracerProvider: tracing.provider });

  it.each(["2026-07-28", "2025-11-25"] as const)("when the connection closes (%s)", async (protocolVersion) => {
    const { server, running } = hanging([otel()]);
    const c = await createTestClient(server, { protocolVersion });
    const reply = c.callTool("hang").catch((error: unknown) => error);
    await running;
    c.close();
    await reply;
    const span = await tracing.span("tools/call hang");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes["error.type"]).toBe("cancelled");
  });

  it("when the client cancels it", async () => {
    const { server, running } = hanging([otel()]);
    const c = await createTestClient(server);
    const abort = new AbortController();
    const reply = c.callTool("hang", {}, { signal: abort.signal }).catch((error: unknown) => error);
    await running;
    abort.abort();
    await reply;
    expect((await tracing.span("tools/call hang")).attributes["error.type"]).toBe("cancelled");
  });

  it("when an outer timeout answers for it; an inner timeout is the result the span records", async () => {
    const outer = hanging([timeout(1), otel()]);
    const c = await createTestClient(outer.server);
    expect(await c.callTool("hang")).toMatchObject({ isError: true });
    const span = await tracing.span("tools/call hang");
    expect(span.attributes["error.type"]).toBe("timeout");
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    tracing.reset();
    const inner = hanging([otel(), timeout(1)]);
    const d = await createTestClient(inner.server);
    expect(await d.callTool("hang")).toMatchObject({ isError: true });
    expect((await tracing.span("tools/call hang")).attributes["error.type"]).toBe("timeout");
  });

  it("ends once when the handler settles after its request was aborted", async () => {
    const ends: string[] = [];
    const real = tracing.provider.getTracer("counting");
    // Counts end() calls per span (the SDK itself ignores a second one, with only a diagnostic).
    const counting = {
      startSpan: (...args: Parameters<Tracer["startSpan"]>) => {
        const span = real.startSpan(...args);
        const end = span.end.bind(span);
        span.end = (time) => {
          ends.push(args[0]);
          end(time);
        };
        return span;
      },
    } as Tracer;
    const server = createServer({ name: "late", version: "1" });
    server.use(timeout(1));
    // Between the two: sees openTelemetry's promise settle, so its continuation has run.
    server.use((_operation, next) => {
      const result = next();
      if (result instanceof Promise) void result.then(() => settled("settled"));
      return result;
    });
    server.use(openTelemetry({ tracer: counting }));
    let finish!: () => void;
    const held = new Promise<void>((resolve) => {
      finish = resolve;
    });
    let settled!: (value: string) => void;
    const done = new Promise<string>((resolve) => {
      settled = resolve;
    });
    server.tool({
      name: "late",
      description: "Answers after its deadline",
      handler: async () => {
        await held;
        return "late";
      },
    });
    const c = await createTestClient(server);
    expect(await c.callTool("late")).toMatchObject({ isError: true });
    expect(ends).toEqual(["tools/call late"]);
    finish();
    await done;
    expect(ends).toEqual(["tools/call late"]);
  });
});

describe("spans per round and beside the kit", () => {
  const otel = () => openTelemetry({ tracerProvider: tracing.provider });

  it("2026-07-28: each input_required round is a span of its own, none an error", async () => {
    const server = createServer({ name: "ask", version: "1" });
    server.use(otel());
    server.tool({
      name: "ask",
      description: "Asks twice",
      handler: async (_args, ctx) => {
        const first = await ctx.elicit({ message: "one?", schema: { a: z.string() } });
        const second = await ctx.elicit({ message: "two?", schema: { b: z.string() } });
        return `${first.action} ${second.action}`;
      },
    });
    const c = await createTestClient(server, { elicit: () => ({ action: "decline" }) });
    const params = { name: "ask", arguments: {}, _meta: { traceparent: TRACEPARENT } };
    expect(await c.request("tools/call", params)).toMatchObject({ content: [{ text: "decline decline" }] });
    const rounds = (await tracing.spans()).filter((span) => span.name === "tools/call ask");
    expect(rounds).toHaveLength(3);
    expect(rounds.map((span) => span.status.code)).toEqual([
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
      SpanStatusCode.UNSET,
    ]);
    expect(rounds.every((span) => span.spanContext().traceId === TRACE_ID)).toBe(true);
  });

  it.each(["outside", "inside"] as const)("a rate limit %s it: a refusal is one span, with its code", async (where) => {
    const server = createServer({ name: "limited", version: "1" });
    const limit = rateLimit({ capacity: 1, perSecond: 0.001 });
    for (const middleware of where === "outside" ? [limit, otel()] : [otel(), limit]) server.use(middleware);
    server.tool({ name: "ping", description: "Pings", handler: () => "pong" });
    const c = await createTestClient(server);
    await c.callTool("ping");
    const refused = await c.callTool("ping").catch((error: { code: number }) => error);
    const spans = (await tracing.spans()).filter((span) => span.name === "tools/call ping");
    // Outside, the refused call never reaches the middleware: one span; inside, the refusal is the second's outcome.
    expect(spans).toHaveLength(where === "outside" ? 1 : 2);
    if (where === "inside") {
      const code = String((refused as { code: number }).code);
      expect(spans[1]?.attributes["error.type"]).toBe(code);
    }
  });
});

describe.each(["2026-07-28", "2025-11-25"] as const)("hostile trace _meta in %s", (protocolVersion) => {
  const valid = TRACEPARENT;
  const hostile: Record<string, unknown>[] = [
    { traceparent: [valid] },
    { traceparent: { valid } },
    { traceparent: 7 },
    { traceparent: `${valid}${"0".repeat(1_000_000)}` },
    { traceparent: valid.toUpperCase() },
    { traceparent: `ff-${valid.slice(3)}` },
    { traceparent: `00-${"0".repeat(32)}-${valid.slice(36)}` },
    { traceparent: valid.replace("0af7", "0áf7") },
    { traceparent: "\u0000".repeat(55) },
    { traceparent: valid, tracestate: Array.from({ length: 5000 }, (_, i) => `k${i}=v`).join(",") },
    { traceparent: valid, tracestate: ["a=b"] },
    { traceparent: valid, baggage: "k=v\u0000\r\nx: y" },
    { baggage: Array.from({ length: 3000 }, (_, i) => `k${i}=v`).join(",") },
  ];

  it("never changes the reply; the span continues the trace only from a well-formed traceparent", async () => {
    const c = await createTestClient(tracedServer(tracing.provider), { protocolVersion });
    for (const meta of hostile) {
      tracing.reset();
      const result = await c.request("tools/call", { name: "add", arguments: { a: 1, b: 2 }, _meta: meta });
      expect(result).toMatchObject({ content: [{ type: "text", text: "3" }], isError: false });
      const span = await tracing.span("tools/call add");
      const continued = meta.traceparent === valid;
      expect(span.spanContext().traceId === TRACE_ID, JSON.stringify(meta).slice(0, 80)).toBe(continued);
      // A tracestate over W3C's bound is dropped whole, never passed on in part.
      if (continued) expect(span.spanContext().traceState?.serialize() ?? "").toBe("");
    }
  });
});
