import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SpanKind } from "@opentelemetry/api";
import { type HttpServer, listen } from "@toolsmith/transport-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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
