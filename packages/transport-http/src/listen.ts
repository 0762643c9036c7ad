import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";
import type { Servable } from "@toolsmith/core";
import { createHttpHandler, type HttpHandler, type HttpOptions } from "./http-handler.js";

export interface ListenOptions extends HttpOptions {
  /** Default: `PORT` from the environment, else 3000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1: reachable from this machine only. */
  host?: string;
  /** Where the "listening on" line goes (default stderr; null for nowhere). */
  log?: NodeJS.WritableStream | null;
}

/** A running HTTP server. */
export interface HttpServer {
  /** The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`. */
  readonly url: string;
  readonly server: Server;
  readonly handler: HttpHandler;
  close(): Promise<void>;
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "::1"]);

function toRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const url = `http://${req.headers.host ?? "localhost"}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const item of value) headers.append(name, item);
    else if (value !== undefined) headers.set(name, value);
  }
  const hasBody = req.method !== "GET" && req.method !== "HEAD";
  return new Request(url, {
    method: req.method,
    headers,
    signal,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half" } : {}),
  } as RequestInit);
}

async function write(res: ServerResponse, response: Response): Promise<void> {
  res.statusCode = response.status;
  response.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  if (!response.body) {
    res.end();
    return;
  }
  if (response.headers.get("content-type")?.startsWith("text/event-stream")) res.flushHeaders();
  const body = Readable.fromWeb(response.body as import("node:stream/web").ReadableStream<Uint8Array>);
  body.on("error", () => res.destroy());
  res.on("close", () => body.destroy());
  body.pipe(res);
}

/** A node:http request listener for `handler`: mount it in an existing server, or Express (`app.all("/mcp", …)`). */
export function nodeListener(handler: HttpHandler): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const aborted = new AbortController();
    res.on("close", () => {
      if (!res.writableFinished) aborted.abort();
    });
    handler(toRequest(req, aborted.signal)).then(
      (response) => write(res, response),
      () => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      },
    );
  };
}

/**
 * Serve over Streamable HTTP on node:http, at `http://host:port/path`, and say so on stderr.
 * @example
 * await listen(new Notes(), { port: 3000 }); // http://127.0.0.1:3000/mcp
 */
export async function listen(servable: Servable, options: ListenOptions = {}): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  const path = options.path ?? "/mcp";
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  // Bound to loopback: only loopback names are accepted as Host (DNS rebinding protection).
  const allowedHosts =
    options.allowedHosts ??
    (LOOPBACK.has(host)
      ? ["localhost", "127.0.0.1", "[::1]"].flatMap((name) => [name, `${name}:${bound}`])
      : undefined);
  const handler = createHttpHandler(servable, { ...options, path, ...(allowedHosts ? { allowedHosts } : {}) });
  server.on("request", nodeListener(handler));
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}${path}`;
  const log = options.log === undefined ? process.stderr : options.log;
  log?.write(`MCP server (Streamable HTTP) listening on ${url}\n`);
  return {
    url,
    server,
    handler,
    // Sessions end and listen streams get their closing result; connections left after a grace period are cut.
    close: () =>
      new Promise<void>((resolve) => {
        handler.close();
        server.close(() => resolve());
        const idle = setInterval(() => server.closeIdleConnections(), 10);
        const cut = setTimeout(() => server.closeAllConnections(), 1000);
        server.once("close", () => {
          clearInterval(idle);
          clearTimeout(cut);
        });
      }),
  };
}
