import { Agent, createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What `startProxy` takes. */
export interface RoundRobinOptions {
  /** The backends' MCP endpoints (`http://127.0.0.1:3001/mcp`); the proxy keeps each request's own path. */
  readonly backends: readonly string[];
  /** Default 0: a free port. */
  readonly port?: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
}

/** One request as the proxy routed it. */
export interface Routed {
  /** The backend's index in `backends`. */
  readonly backend: number;
  /** GET, POST or DELETE. */
  readonly method: string;
  /** The request's `Mcp-Method` header (2026-07-28 clients send it), when there is one. */
  readonly mcpMethod: string | undefined;
  /** The request's `Mcp-Name` header (the tool, prompt or resource a 2026-07-28 request names). */
  readonly mcpName: string | undefined;
}

/** A running proxy. */
export interface RoundRobinProxy {
  /** The MCP endpoint clients use: `http://127.0.0.1:<port>/mcp`. */
  readonly url: string;
  /** Every request so far, in the order it came. */
  readonly routed: readonly Routed[];
  /** The backend the next request goes to (undefined: none in rotation). */
  peek(): number | undefined;
  /** Route nothing more to backend `index` (as a load balancer's failed health check does), or again. */
  rotate(index: number, inRotation: boolean): void;
  /** Send backend `index`'s share to another address from now on (a process restarted on a new port). */
  replace(index: number, url: string): void;
  /** Stop listening and cut every connection, streams included. */
  close(): Promise<void>;
}

// The request's hop-by-hop headers are the connection's own, not the message's (RFC 9110 §7.6.1).
const HOP_BY_HOP = new Set(["connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "te"]);

function forwarded(headers: IncomingMessage["headers"], backend: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) out[name] = value;
  }
  // The backend accepts only its own Host (DNS rebinding protection); the client's goes on as X-Forwarded-Host.
  if (headers.host !== undefined) out["x-forwarded-host"] = headers.host;
  out.host = backend.host;
  return out;
}

/**
 * A round-robin reverse proxy with no affinity: request i goes to the i-th backend in rotation, whatever its session.
 * Bodies stream both ways unbuffered, so SSE events reach the client as the backend writes them.
 * @example
 * const proxy = await startProxy({ backends: ["http://127.0.0.1:3001/mcp", "http://127.0.0.1:3002/mcp"] });
 * console.log(proxy.url);
 */
export async function startProxy(options: RoundRobinOptions): Promise<RoundRobinProxy> {
  const backends = options.backends.map((url) => new URL(url));
  if (backends.length === 0) throw new Error("startProxy needs at least one backend");
  const out = new Set<number>();
  const routed: Routed[] = [];
  const agent = new Agent({ keepAlive: true });
  let next = 0;

  const pick = (advance: boolean): number | undefined => {
    for (let tried = 0; tried < backends.length; tried++) {
      const index = (next + tried) % backends.length;
      if (out.has(index)) continue;
      if (advance) next += tried + 1;
      return index;
    }
    return undefined;
  };
  const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);

  const serve = (req: IncomingMessage, res: ServerResponse) => {
    const index = pick(true);
    if (index === undefined) {
      res.writeHead(503, { "content-type": "text/plain", "retry-after": "1" }).end("no backend in rotation\n");
      return;
    }
    const backend = backends[index] as URL;
    routed.push({
      backend: index,
      method: req.method ?? "GET",
      mcpMethod: header(req.headers["mcp-method"]),
      mcpName: header(req.headers["mcp-name"]),
    });
    const upstream = request(
      {
        agent,
        host: backend.hostname,
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: forwarded(req.headers, backend),
      },
      (answer) => {
        const headers: Record<string, string | string[]> = {};
        for (const [name, value] of Object.entries(answer.headers)) {
          if (value !== undefined && !HOP_BY_HOP.has(name)) headers[name] = value;
        }
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, headers);
        // Headers now, not with the first chunk: an SSE stream may stay quiet for a long time.
        res.flushHeaders();
        answer.on("data", (chunk: Buffer) => res.write(chunk));
        answer.once("end", () => res.end());
        // A backend that died mid-stream: the client sees its stream cut, as it would without a proxy.
        answer.once("error", () => res.destroy());
        answer.once("aborted", () => res.destroy());
      },
    );
    upstream.once("error", () => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end("backend unreachable\n");
      else res.destroy();
    });
    // The client went away: so does the request to the backend (a stream is given up, a call cancelled).
    res.once("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const server = createServer(serve);
  const host = options.host ?? "127.0.0.1";
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host}:${port}/mcp`,
    routed,
    peek: () => pick(false),
    rotate(index, inRotation) {
      if (inRotation) out.delete(index);
      else out.add(index);
    },
    replace(index, url) {
      backends[index] = new URL(url);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        agent.destroy();
      }),
  };
}
