import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { isLogLevel, type Servable, textLogger, toServer } from "@toolsmith/core";
import { isEngineUnavailable } from "@toolsmith/core/internal";
import { createHttpEngine, type HttpEngine, type HttpOptions } from "./engine.js";
import type { Incoming, Outgoing } from "./exchange.js";
import { forwardedFor, trustedProxies, trustSaid } from "./forwarded-for.js";
import { checkLimits } from "./option-checks.js";
import { isLoopbackHost } from "./protection.js";
import { bodyLimit, reservedPaths, UserRoutes } from "./routes.js";
import { writeResponse } from "./write-response.js";

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
  readonly engine: HttpEngine;
  close(): Promise<void>;
}

// After a body over the limit, what more is read (and dropped) before the connection is cut: reading on lets the
// 413 reach a client still sending, where closing with unread data would reset the connection under it.
const DRAIN_BYTES = 1024 * 1024;

// The Host values a client of this machine sends to a server on `port`: loopback names, bare or with that port.
function loopbackHosts(port: number, bound: string): string[] {
  const names = ["localhost", "127.0.0.1", "[::1]"];
  if (bound.startsWith("127.") && !names.includes(bound)) names.push(bound);
  return names.flatMap((name) => [name, `${name}:${port}`]);
}

// A request target in absolute form ("http://host/mcp?x", which RFC 9112 says a server must accept) as its path and
// query; the usual origin form ("/mcp?x") as it is.
function target(url: string): string {
  if (url.charCodeAt(0) === 47 || url === "*") return url;
  const authority = url.indexOf("//");
  if (authority < 0) return url;
  const path = url.slice(authority + 2).search(/[/?]/);
  if (path < 0) return "/";
  const rest = url.slice(authority + 2 + path);
  return rest.startsWith("?") ? `/${rest}` : rest;
}

// A body as text; a leading byte order mark is dropped, as the web-standard front door's TextDecoder does.
function utf8(body: Buffer): string {
  const bom = body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf;
  return body.toString("utf8", bom ? 3 : 0);
}

// node:http's request as the engine reads it: no Request, no web streams, the body collected from its chunks. A
// class: its methods are shared, where an object literal made five closures per request.
class NodeIncoming implements Incoming {
  readonly method: string;
  readonly path: string;
  // A plain field: a getter in an object literal made every Incoming a slow object (a third of HTTP throughput).
  // The socket caches its peer's address, so a keep-alive connection looks it up once.
  readonly remoteAddress: string | undefined;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse;
  // The target in origin form: path and query.
  readonly #url: string;

  constructor(req: IncomingMessage, res: ServerResponse) {
    const url = target(req.url ?? "/");
    const query = url.indexOf("?");
    this.method = req.method ?? "GET";
    this.path = query < 0 ? url : url.slice(0, query);
    this.#url = url;
    this.remoteAddress = req.socket.remoteAddress;
    this.#req = req;
    this.#res = res;
  }

  // Read only for the protected-resource metadata: made on demand.
  get origin(): string {
    return `http://${this.#req.headers.host ?? "localhost"}`;
  }

  header(name: string): string | null {
    const value = this.#req.headers[name];
    return value === undefined ? null : Array.isArray(value) ? value.join(", ") : value;
  }

  text(limit: number): Promise<string | undefined> {
    return this.#read(limit, utf8);
  }

  body(limit: number): Promise<Buffer | undefined> {
    return this.#read(limit, (body) => body);
  }

  // The body collected from its chunks, bounded: undefined past `limit`, as the 413 goes out.
  #read<T>(limit: number, done: (body: Buffer) => T): Promise<T | undefined> {
    const req = this.#req;
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      let over = false;
      req.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (over) {
          if (size > limit + DRAIN_BYTES) req.destroy();
        } else if (size > limit) {
          // The 413 goes out now; the rest of the body is read and dropped (bounded), never kept.
          over = true;
          chunks.length = 0;
          resolve(undefined);
        } else chunks.push(chunk);
      });
      req.on("end", () => {
        if (!over) resolve(done(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
      });
      req.on("error", reject);
    });
  }

  onAbort(listener: () => void): void {
    const res = this.#res;
    res.once("close", () => {
      if (!res.writableFinished) listener();
    });
  }

  request(): Request {
    const req = this.#req;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const item of value) headers.append(name, item);
      else if (value !== undefined) headers.set(name, value);
    }
    return new Request(`${this.origin}${this.#url}`, { method: this.method, headers });
  }
}

function write(res: ServerResponse, outgoing: Outgoing): void {
  const { stream, body, response } = outgoing;
  if (response) {
    writeResponse(res, response);
    return;
  }
  if (body !== undefined) {
    // One writeHead with every header (Content-Length included) and one end: node:http's cheapest way to answer.
    const head: string[] = [];
    for (const name in outgoing.headers) head.push(name, outgoing.headers[name] as string);
    head.push("content-length", String(Buffer.byteLength(body)));
    res.writeHead(outgoing.status, head).end(body);
    return;
  }
  res.statusCode = outgoing.status;
  for (const name in outgoing.headers) res.setHeader(name, outgoing.headers[name] as string);
  if (!stream) {
    res.end();
    return;
  }
  res.flushHeaders();
  res.once("close", () => stream.cancel());
  stream.attach({
    write: (text) => void res.write(text),
    end: () => res.end(),
    unread: () => res.writableLength,
    abort: () => res.destroy(),
  });
}

/**
 * A node:http request listener for a handler or engine: `http.createServer(nodeListener(handler))`, or in Express
 * `app.all("/mcp", nodeListener(handler))` (before any body-parsing middleware). It reads and writes node:http's own
 * objects, skipping the web Request and Response.
 */
export function nodeListener(
  target: HttpEngine | { readonly engine: HttpEngine },
): (req: IncomingMessage, res: ServerResponse) => void {
  const engine = "engine" in target ? target.engine : target;
  return (req, res) => {
    let served: Outgoing | Promise<Outgoing>;
    try {
      served = engine.serve(new NodeIncoming(req, res));
    } catch {
      res.statusCode = 500;
      res.end();
      return;
    }
    if (!(served instanceof Promise)) {
      write(res, served);
      return;
    }
    served.then(
      (outgoing) => write(res, outgoing),
      () => {
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      },
    );
  };
}

// The server's own log, when it has none: on the log stream, or stderr (never stdout), from TOOLSMITH_LOG's level
// (default warning). So what a request cannot say to its client (a misconfigured authenticate hook, a bug) is heard.
function installLogger(servable: Servable, log: NodeJS.WritableStream | null | undefined): void {
  const server = toServer(servable);
  if (server.logger || server.errorHook) return;
  const stream = log && log !== process.stdout ? log : process.stderr;
  const asked = process.env.TOOLSMITH_LOG;
  server.setLogger(textLogger((line) => stream.write(line), isLogLevel(asked) ? asked : "warning"));
}

/**
 * Serve over Streamable HTTP on node:http, at `http://host:port/path`, and say so on stderr.
 * @example
 * ```ts source="examples/http.ts#listen"
 * await listen(notes, { port: 3000 }); // http://127.0.0.1:3000/mcp
 * ```
 */
export async function listen(servable: Servable, options: ListenOptions = {}): Promise<HttpServer> {
  const host = options.host ?? "127.0.0.1";
  const port = options.port ?? Number(process.env.PORT ?? 3000);
  // Paths that clash (a route shadowing the MCP endpoint) are refused before anything starts or binds.
  const reserved = reservedPaths(options);
  const path = reserved.path;
  bodyLimit(options.maxBodyBytes);
  checkLimits(options);
  // Behind proxies the operator vouches for (TOOLSMITH_TRUST_PROXY), the client's address is read where they write it.
  const hops = options.remoteAddress ? 0 : trustedProxies(process.env.TOOLSMITH_TRUST_PROXY);
  const remoteAddress = hops > 0 ? forwardedFor({ hops }) : options.remoteAddress;
  if (options.routes) new UserRoutes(options.routes, reserved, 0);
  // Before the engine starts: what it says of its store (a Redis that may evict its keys) reaches the log.
  installLogger(servable, options.log);
  // The engine (sessions, events, the bus) is ready before the first request: a shared one connects here. One that
  // cannot be reached yet does not stop the process: it serves, 503 for what needs the engine, until it can.
  let unavailable: unknown;
  try {
    await toServer(servable).startEngine();
  } catch (error) {
    if (!isEngineUnavailable(error)) throw error;
    unavailable = error;
  }
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const bound = (server.address() as AddressInfo).port;
  // By default only loopback Host names with this port are accepted (DNS rebinding protection), whatever the host.
  const allowedHosts = options.allowedHosts ?? loopbackHosts(bound, host);
  if (options.allowedHosts === undefined && !isLoopbackHost(host.includes(":") ? `[${host}]` : host)) {
    toServer(servable).log({
      level: "warning",
      message: `listening on ${host}, but only loopback Host names are accepted (DNS rebinding protection): set allowedHosts to the names clients use (allowedHosts: ["mcp.example.com"]), or allowedHosts: "any" when a proxy in front checks Host`,
    });
  }
  if (unavailable !== undefined) {
    toServer(servable).log({
      level: "warning",
      message: `the engine could not start (${(unavailable as Error).message}): serving anyway; requests that need it are answered 503 with Retry-After until it starts, which is tried again by itself`,
    });
  }
  const engine = createHttpEngine(servable, {
    ...options,
    path,
    allowedHosts,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  server.on("request", nodeListener(engine));
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}${path}`;
  const log = options.log === undefined ? process.stderr : options.log;
  log?.write(`MCP server (Streamable HTTP) listening on ${url}\n`);
  if (hops > 0) log?.write(trustSaid(hops));
  return {
    url,
    server,
    engine,
    // Sessions end and listen streams get their closing result; connections left after a grace period are cut.
    close: () =>
      new Promise<void>((resolve) => {
        engine.close();
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
