import type { IncomingMessage, ServerResponse } from "node:http";
import type { HttpDispatcher } from "../dispatch/dispatcher.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { writeResponse } from "./write-response.js";

// The node:http front door: node's own request and response objects, no web Request or Response on the hot path.

// After a body over the limit, what more is read (and dropped) before the connection is cut: reading on lets the
// 413 reach a client still sending, where closing with unread data would reset the connection under it.
const DRAIN_BYTES = 1024 * 1024;

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

// node:http's request as the dispatcher reads it: no Request, no web streams, the body collected from its chunks. A
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
 * A node:http request listener for a handler or its dispatcher: `http.createServer(nodeListener(handler))`, or in Express
 * `app.all("/mcp", nodeListener(handler))` (before any body-parsing middleware). It reads and writes node:http's own
 * objects, skipping the web Request and Response.
 */
export function nodeListener(
  target: HttpDispatcher | { readonly dispatcher: HttpDispatcher },
): (req: IncomingMessage, res: ServerResponse) => void {
  const dispatcher = "dispatcher" in target ? target.dispatcher : target;
  return (req, res) => {
    let served: Outgoing | Promise<Outgoing>;
    try {
      served = dispatcher.serve(new NodeIncoming(req, res));
    } catch (error) {
      dispatcher.failed(error);
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
      (error: unknown) => {
        // A bug, not an outage (that is a 503 with Retry-After): the client gets a bare 500, the server's log why.
        dispatcher.failed(error);
        if (!res.headersSent) res.statusCode = 500;
        res.end();
      },
    );
  };
}
