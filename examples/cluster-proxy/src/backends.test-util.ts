import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach } from "vitest";
import { type RoundRobinOptions, type RoundRobinProxy, startProxy } from "./round-robin.js";

// Backends in the test's process that say who they are; an SSE one writes an event and waits for the test to end it.
const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((thing) => thing.close()));
});

/** A node:http backend the test steers. */
export interface Backend {
  url: string;
  server: Server;
  /** The SSE responses it holds open. */
  streams: ServerResponse[];
  /** The requests it got, but for health probes. */
  seen: IncomingMessage[];
  /** What its health route answers now; `probes` counts them. */
  healthz: { status: number; body: string; probes: number };
  /** When set, a request (not a probe) is read whole, then its connection cut with no answer. */
  dieOnRequest: boolean;
  /** When set, nothing more is answered, probes included (a stopped process): connections stay open. */
  hung: boolean;
  /** Stop listening and cut every connection. */
  stop(): Promise<void>;
}

/** Start a backend named `name` on `port` (default a free one), stopped after the test. */
export async function backend(name: string, port = 0): Promise<Backend> {
  const server = createServer((req, res) => {
    if (self.hung) {
      if (req.url !== "/healthz") self.seen.push(req);
      return void req.resume();
    }
    if (req.url === "/healthz") {
      self.healthz.probes++;
      res.writeHead(self.healthz.status, { "content-type": "text/plain" }).end(`${self.healthz.body}\n`);
      return;
    }
    self.seen.push(req);
    if (req.headers.accept === "text/event-stream" || req.headers.accept?.includes("text/event-stream")) {
      req.resume();
      res.writeHead(200, { "content-type": "text/event-stream", "mcp-session-id": name });
      res.write(`id: 1\ndata: from ${name}\n\n`);
      self.streams.push(res);
      return;
    }
    let body = "";
    req.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    req.on("end", () => {
      if (self.dieOnRequest) req.socket.destroy();
      else res.writeHead(200, { "x-backend": name }).end(`${name}:${body}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  const stop = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  const self: Backend = {
    url: `http://127.0.0.1:${bound}/mcp`,
    server,
    streams: [],
    seen: [],
    healthz: { status: 200, body: "ok", probes: 0 },
    dieOnRequest: false,
    hung: false,
    stop,
  };
  open.push({ close: () => (server.listening ? stop() : Promise.resolve()) });
  return self;
}

/** A proxy in front of `backends` (probing each every 20 ms unless told otherwise), closed after the test. */
export async function proxyFor(
  backends: readonly { url: string }[],
  options: Partial<RoundRobinOptions> = {},
): Promise<RoundRobinProxy> {
  const proxy = await startProxy({ healthIntervalMs: 20, ...options, backends: backends.map((b) => b.url) });
  open.unshift(proxy);
  return proxy;
}

/** POST `body` through the proxy; the answer's status, text and the backend that wrote it. */
export async function post(url: string, body: string, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: "POST", body, headers: { "mcp-method": "tools/call", ...headers } });
  return { status: response.status, text: await response.text(), backend: response.headers.get("x-backend") };
}
