import { readBounded } from "@toolsmith/core/internal";
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

const OWS = /^[ \t]+|[ \t]+$/g;
const isOws = (code: number) => code === 32 || code === 9;

// A field value without the whitespace around it (RFC 9110 §5.5), which workerd hands on as received; the regular
// expression only for a value that has some.
function fieldValue(value: string | null): string | null {
  if (value === null || value === "") return value;
  return isOws(value.charCodeAt(0)) || isOws(value.charCodeAt(value.length - 1)) ? value.replace(OWS, "") : value;
}

// The base of a request.url that is a path alone: Bun makes request.url of the Host header, and of one no URL can hold
// (empty, with a user: `evil@127.0.0.1`) gives the path alone, whose Host the checks then refuse as Node's door does.
const NO_HOST = "http://no-host.invalid";

// request.url parsed once (the usual case), else as a path alone.
function target(href: string): { url: URL; absolute: boolean } {
  try {
    return { url: new URL(href), absolute: true };
  } catch {
    return { url: new URL(URL.canParse(href, NO_HOST) ? href : "/", NO_HOST), absolute: false };
  }
}

function fromRequest(request: Request): Incoming {
  const { url, absolute } = target(request.url);
  return {
    method: request.method,
    path: url.pathname,
    // Read only for the protected-resource metadata, past the Host check: of a path alone, as Node's door makes it.
    origin: absolute ? url.origin : `http://${request.headers.get("host") ?? "localhost"}`,
    // A Request made in code may have no Host header: its URL says which host it was addressed to.
    header: (name) => fieldValue(request.headers.get(name)) ?? (name === "host" && absolute ? url.host : null),
    async text(limit) {
      const body = await readBounded(request.body, limit);
      return body === undefined ? undefined : new TextDecoder().decode(body);
    },
    body: (limit) => readBounded(request.body, limit),
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
