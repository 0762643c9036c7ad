import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { isLogLevel, textLogger } from "@toolsmith/core";
import { isEngineUnavailable } from "@toolsmith/core/engine";
import { type Servable, toServer } from "@toolsmith/core/transport";
import { forwardedFor, trustedProxies, trustSaid } from "../checks/forwarded-for.js";
import { isLoopbackHost } from "../checks/protection.js";
import { createHttpDispatcher, type HttpDispatcher } from "../dispatch/dispatcher.js";
import { checkOptions, type HttpOptions } from "../dispatch/options.js";
import { UserRoutes } from "../routes/routes.js";
import { nodeListener } from "./node-listener.js";

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
  /** The MCP endpoint it serves (what `close()` closes first). */
  readonly dispatcher: HttpDispatcher;
  close(): Promise<void>;
}

// The Host values a client of this machine sends to a server on `port`: loopback names, bare or with that port.
function loopbackHosts(port: number, bound: string): string[] {
  const names = ["localhost", "127.0.0.1", "[::1]"];
  if (bound.startsWith("127.") && !names.includes(bound)) names.push(bound);
  return names.flatMap((name) => [name, `${name}:${port}`]);
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
  const { reserved } = checkOptions(options);
  const path = reserved.path;
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
  const dispatcher = createHttpDispatcher(servable, {
    ...options,
    path,
    allowedHosts,
    ...(remoteAddress ? { remoteAddress } : {}),
  });
  server.on("request", nodeListener(dispatcher));
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${bound}${path}`;
  const log = options.log === undefined ? process.stderr : options.log;
  log?.write(`MCP server (Streamable HTTP) listening on ${url}\n`);
  if (hops > 0) log?.write(trustSaid(hops));
  return {
    url,
    server,
    dispatcher,
    // Sessions end and listen streams get their closing result; connections left after a grace period are cut.
    close: () =>
      new Promise<void>((resolve) => {
        dispatcher.close();
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
