/**
 * `src/tracing.ts` (`--otel`): @toolsmith/otel's README set-up, word for word but the service name (a test checks),
 * which its own test installs from npm and runs.
 */
export function tracingSource(name: string): string {
  return `// src/tracing.ts: your entry point imports it (\`import { shutdownTracing } from "./tracing.js";\`).
import { context, propagation, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";

// OTLP over HTTP to $OTEL_EXPORTER_OTLP_ENDPOINT (default http://localhost:4318), e.g. a Collector or Jaeger.
const provider = new TracerProvider({
  resource: resourceFromAttributes({ "service.name": process.env.OTEL_SERVICE_NAME ?? ${JSON.stringify(name)} }),
  spanProcessors: [new BatchSpanProcessor({ exporter: new OTLPTraceExporter() })],
});
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
propagation.setGlobalPropagator(
  new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
);

/** Send the spans still buffered and stop; await it before the process exits. It never throws. */
export async function shutdownTracing(): Promise<void> {
  // A collector that is down would hold the exit for the exporter's retries, then reject: give up after 2 s.
  const late = new Promise<never>((_, reject) => setTimeout(reject, 2000, new Error("no answer within 2 s")).unref());
  try {
    await Promise.race([provider.shutdown(), late]);
  } catch (error) {
    console.error(\`tracing: the last spans were not sent (\${(error as Error).message})\`);
  }
}
`;
}
