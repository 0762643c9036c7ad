import { context, propagation } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { createServer, McpError } from "@toolsmith/core";
import type { Middleware } from "@toolsmith/core/middleware";
import { afterAll, beforeAll, beforeEach } from "vitest";
import { z } from "zod";
import { type OpenTelemetryOptions, openTelemetry } from "./open-telemetry.js";

/** The client's span, as a traceparent: its trace and its span id. */
export const TRACE_ID = "0af7651916cd43dd8448eb211c80319c";
export const CLIENT_SPAN = "b7ad6b7169203331";
export const TRACEPARENT = `00-${TRACE_ID}-${CLIENT_SPAN}-01`;

/** Spans kept in memory, a provider writing there, W3C propagation and async context for the file's tests. */
export function useTracing() {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    propagation.setGlobalPropagator(
      new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
    );
  });
  afterAll(async () => {
    await provider.shutdown();
    context.disable();
    propagation.disable();
  });
  beforeEach(() => exporter.reset());
  return {
    provider,
    /** The finished spans, in the order they ended (each export settled first: the processor exports async). */
    async spans(): Promise<ReadableSpan[]> {
      await provider.forceFlush();
      return exporter.getFinishedSpans();
    },
    /** Forget the spans so far. */
    reset: () => exporter.reset(),
    /** The one span named `name`. */
    async span(name: string): Promise<ReadableSpan> {
      await provider.forceFlush();
      const found = exporter.getFinishedSpans().filter((span) => span.name === name);
      if (found.length !== 1) {
        throw new Error(`${found.length} spans named ${name}: ${exporter.getFinishedSpans().map((s) => s.name)}`);
      }
      return found[0] as ReadableSpan;
    },
  };
}

/** A server traced by `openTelemetry(options)`, with a tool whose handler makes a span of its own. */
export function tracedServer(provider: TracerProvider, options: OpenTelemetryOptions = {}, inner: Middleware[] = []) {
  const server = createServer({ name: "traced", version: "1" });
  server.use(openTelemetry({ tracerProvider: provider, ...options }));
  for (const middleware of inner) server.use(middleware);
  const user = provider.getTracer("user");
  server.tool({
    name: "add",
    description: "Adds, in a span of its own",
    input: { a: z.number(), b: z.number() },
    handler: async ({ a, b }) => {
      // After an await: the active context is still the operation's span.
      await Promise.resolve();
      user.startSpan("add.inner").end();
      return String(a + b);
    },
  });
  server.tool({
    name: "later",
    description: "A task, in a span of its own",
    task: "optional",
    handler: async (_args, ctx) => {
      await Promise.resolve();
      user.startSpan("later.inner").end();
      return ctx.trace?.traceparent ?? "none";
    },
  });
  server.tool({
    name: "broken",
    description: "Throws: an isError result",
    handler: () => {
      throw new Error("the disk is full");
    },
  });
  server.tool({
    name: "refusing",
    description: "Throws an McpError: a JSON-RPC error",
    handler: () => {
      throw new McpError(-32001, "not today");
    },
  });
  server.resource({ uri: "file:///notes/secret.txt", handler: () => "s3cret" });
  server.prompt({ name: "greet", description: "Greets", args: { who: z.string() }, handler: ({ who }) => `Hi ${who}` });
  return server;
}
