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

/** Export the spans still buffered: await it before the process exits. */
export function shutdownTracing(): Promise<void> {
  return provider.shutdown();
}
`;
}
