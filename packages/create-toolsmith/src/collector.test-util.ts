import { once } from "node:events";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { until } from "../../../scripts/wait.js";

interface OtlpSpans {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: { stringValue?: string } }[] };
    scopeSpans?: { spans?: { name: string }[] }[];
  }[];
}

/** An OTLP/HTTP (JSON) endpoint, as a Collector's: the span names it received, by service name. */
export interface Collector {
  /** For OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Resolves once a span named `span` of `service` has arrived (WAIT_MS at most, then it fails naming it). */
  received(service: string, span: string): Promise<void>;
  /** Drop what `service` sent so far. */
  forget(service: string): void;
  close(): Promise<void>;
}

async function text(request: IncomingMessage): Promise<string> {
  let body = "";
  for await (const chunk of request) body += chunk;
  return body;
}

export async function startCollector(): Promise<Collector> {
  const spans = new Map<string, string[]>();
  const server = createServer(async (request, response) => {
    if (request.method === "POST" && request.url === "/v1/traces") {
      const { resourceSpans = [] } = JSON.parse(await text(request)) as OtlpSpans;
      for (const { resource, scopeSpans = [] } of resourceSpans) {
        const service = resource?.attributes?.find((attribute) => attribute.key === "service.name")?.value.stringValue;
        const names = scopeSpans.flatMap((scope) => (scope.spans ?? []).map((span) => span.name));
        spans.set(service ?? "", [...(spans.get(service ?? "") ?? []), ...names]);
      }
    }
    response.writeHead(200, { "content-type": "application/json" }).end("{}");
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received: (service, span) =>
      until(() => spans.get(service)?.includes(span), `the span "${span}" of ${service} at the collector`).then(
        () => {},
      ),
    forget: (service) => spans.delete(service),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
