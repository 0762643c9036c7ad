import type { Servable } from "@toolsmith/core/transport";
import { createHttpDispatcher, type HttpDispatcher } from "../dispatch/dispatcher.js";
import type { HttpOptions } from "../dispatch/options.js";
import { webBody } from "../exchange/event-stream.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";

// The web-standard front door: a fetch Request in, a Response out (Bun, Deno, Hono, any `(Request) => Response`).

/** A web-standard MCP endpoint: mount it in node:http (`listen`), Hono, Express, Fastify, Bun or Deno. */
export interface HttpHandler {
  (request: Request): Promise<Response>;
  /** End every session and stream, and answer new MCP requests 503 with Retry-After (a server shutting down). */
  close(): void;
  /** Handshake-era sessions open now. */
  readonly sessions: number;
  /** The dispatcher behind it (what `nodeListener` serves without building Requests). */
  readonly dispatcher: HttpDispatcher;
}

// The body's bytes, read whole; undefined past `limit`.
async function readBody(request: Request, limit: number): Promise<Uint8Array | undefined> {
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
}

function fromRequest(request: Request): Incoming {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    origin: url.origin,
    // A Request made in code may have no Host header: its URL says which host it was addressed to.
    header: (name) => request.headers.get(name) ?? (name === "host" ? url.host : null),
    async text(limit) {
      const body = await readBody(request, limit);
      return body === undefined ? undefined : new TextDecoder().decode(body);
    },
    body: (limit) => readBody(request, limit),
    onAbort: (listener) => request.signal.addEventListener("abort", listener, { once: true }),
    request: () => request,
  };
}

function toResponse(outgoing: Outgoing): Response {
  if (outgoing.response) return outgoing.response;
  const body = outgoing.stream ? webBody(outgoing.stream) : (outgoing.body ?? null);
  return new Response(body, { status: outgoing.status, headers: outgoing.headers });
}

/**
 * Serve `servable` over Streamable HTTP, both protocol eras from one instance: a 2026-07-28 request is served
 * statelessly (nothing kept between requests), a handshake-era client gets a session from `initialize`.
 * @example
 * ```ts source="examples/http.ts#createHttpHandler"
 * const handle = createHttpHandler(notes);
 * Bun.serve({ port: 3000, fetch: handle });
 * ```
 */
export function createHttpHandler(servable: Servable, options: HttpOptions = {}): HttpHandler {
  const dispatcher = createHttpDispatcher(servable, options);
  const handler = (async (request: Request) => {
    try {
      return toResponse(await dispatcher.serve(fromRequest(request)));
    } catch (error) {
      // The host answers the rejection (a 500, as a rule); the server's log hears why.
      dispatcher.failed(error);
      throw error;
    }
  }) as HttpHandler;
  Object.defineProperties(handler, {
    close: { value: () => dispatcher.close() },
    sessions: { get: () => dispatcher.sessions },
    dispatcher: { value: dispatcher },
  });
  return handler;
}
