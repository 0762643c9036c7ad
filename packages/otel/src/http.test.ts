import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { type Span, SpanKind, type Tracer } from "@opentelemetry/api";
import { createServer } from "@toolsmith/core";
import { MetaKey } from "@toolsmith/core/transport";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTelemetry } from "./open-telemetry.js";
import { CLIENT_SPAN, TRACE_ID, TRACEPARENT, tracedServer, useTracing } from "./tracing.test-util.js";

// Over HTTP, through the official client: the _meta.traceparent it sends parents the server's span, in both eras.

const tracing = useTracing();
let listener: HttpServer;

beforeAll(async () => {
  listener = await listen(tracedServer(tracing.provider), { port: 0, log: null });
});
afterAll(() => listener.close());

describe.each([
  ["2025-11-25 handshake", "legacy"],
  ["2026-07-28", { pin: "2026-07-28" }],
] as const)("the official client over HTTP, %s", (_era, mode) => {
  it("sends _meta.traceparent; the tools/call span is its child, the handler's span the span's", async () => {
    const client = new Client({ name: "otel-test", version: "1.0.0" }, { versionNegotiation: { mode } });
    await client.connect(new StreamableHTTPClientTransport(new URL(listener.url)));
    try {
      const result = await client.callTool({
        name: "add",
        arguments: { a: 20, b: 22 },
        _meta: { traceparent: TRACEPARENT },
      });
      expect(result.content).toEqual([{ type: "text", text: "42" }]);
      const span = await tracing.span("tools/call add");
      expect(span.kind).toBe(SpanKind.SERVER);
      expect(span.spanContext().traceId).toBe(TRACE_ID);
      expect(span.parentSpanContext?.spanId).toBe(CLIENT_SPAN);
      expect(span.attributes["mcp.protocol.version"]).toBe(mode === "legacy" ? "2025-11-25" : "2026-07-28");
      expect((await tracing.span("add.inner")).parentSpanContext?.spanId).toBe(span.spanContext().spanId);
    } finally {
      await client.close();
    }
  });
});

describe("over HTTP, a client that goes away", () => {
  it("2026-07-28: ends the span of a call whose handler never settles, as cancelled", async () => {
    let started!: () => void;
    const running = new Promise<void>((resolve) => {
      started = resolve;
    });
    let ended!: (span: Span) => void;
    const end = new Promise<Span>((resolve) => {
      ended = resolve;
    });
    const real = tracing.provider.getTracer("watched");
    // Tells when the span ends: the transport notices the closed socket on its own time.
    const watched = {
      startSpan: (...args: Parameters<Tracer["startSpan"]>) => {
        const span = real.startSpan(...args);
        const close = span.end.bind(span);
        span.end = (time) => {
          close(time);
          ended(span);
        };
        return span;
      },
    } as Tracer;
    const server = createServer({ name: "hang", version: "1" });
    server.use(openTelemetry({ tracer: watched }));
    server.tool({
      name: "hang",
      description: "Never answers",
      handler: () => {
        started();
        return new Promise<string>(() => {});
      },
    });
    const http = await listen(server, { port: 0, log: null });
    try {
      const abort = new AbortController();
      const meta = {
        [MetaKey.protocolVersion]: "2026-07-28",
        [MetaKey.clientCapabilities]: {},
        traceparent: TRACEPARENT,
      };
      const reply = fetch(http.url, {
        method: "POST",
        signal: abort.signal,
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": "tools/call",
          "mcp-name": "hang",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "hang", _meta: meta } }),
      }).catch((error: unknown) => error);
      await running;
      abort.abort();
      await reply;
      // Generous: the transport notices the closed socket within milliseconds; without an ending the test says so.
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("no span ended within 30 s of the client going away")), 30_000);
      });
      await Promise.race([end, deadline]).finally(() => clearTimeout(timer));
      const span = await tracing.span("tools/call hang");
      expect(span.attributes["error.type"]).toBe("cancelled");
      expect(span.spanContext().traceId).toBe(TRACE_ID);
    } finally {
      await http.close();
    }
  });
});
