import {
  type AuthInfo,
  type Connection,
  ErrorCode,
  HANDSHAKE_VERSIONS,
  MetaKey,
  type Route,
  type Servable,
  STATELESS_VERSIONS,
  toServer,
} from "@toolsmith/core";
import { EventStream, SSE_HEADERS } from "./event-stream.js";
import { errorBody, isPlainObject } from "./json.js";
import {
  type AuthOptions,
  authorize,
  type Guard,
  guard,
  type ProtectionOptions,
  protectedResourceMetadata,
} from "./protection.js";
import { Reply } from "./reply.js";
import { routingMismatch } from "./routing-headers.js";
import { HttpSession, SessionStore } from "./sessions.js";

export interface HttpOptions extends ProtectionOptions, AuthOptions {
  /** The MCP endpoint's path (default `/mcp`); other paths are 404, but for the protected-resource metadata. */
  path?: string;
  /** Largest accepted request body in bytes (default 4 MiB): larger is 413. */
  maxBodyBytes?: number;
  /** Handshake-era sessions open at once (default 1000): more is 503. */
  maxSessions?: number;
  /** Long-lived SSE streams open at once (GET streams and 2026-07-28 listen streams; default 1000): more is 503. */
  maxStreams?: number;
  /** A handshake-era session unused this long ends (default 30 minutes). */
  sessionIdleMs?: number;
  /** SSE events kept per session for resumption with Last-Event-ID (default 512). */
  eventBufferSize?: number;
}

/** A web-standard MCP endpoint: mount it in node:http (`listen`), Hono, Express, Fastify, Bun or Deno. */
export interface HttpHandler {
  (request: Request): Promise<Response>;
  /** End every session and stream (a server shutting down). */
  close(): void;
  /** Handshake-era sessions open now. */
  readonly sessions: number;
}

const SESSION_HEADER = "mcp-session-id";
const VERSION_HEADER = "mcp-protocol-version";
const STATELESS: readonly string[] = STATELESS_VERSIONS;
const HANDSHAKE: readonly string[] = HANDSHAKE_VERSIONS;

function json(status: number, body: string, headers: Record<string, string> = {}): Response {
  return new Response(body, { status, headers: { "content-type": "application/json", ...headers } });
}

function refuse(status: number, id: unknown, code: number, message: string, data?: unknown): Response {
  return json(status, errorBody(id, code, message, data));
}

// 2026-07-28 says which status each refusal has; a handler's own errors are answers, sent with 200.
function statelessStatus(error: number | undefined): number {
  switch (error) {
    case undefined:
      return 200;
    case ErrorCode.MethodNotFound:
      return 404;
    case ErrorCode.ParseError:
    case ErrorCode.InvalidRequest:
    case ErrorCode.InvalidParams:
    case ErrorCode.HeaderMismatch:
    case ErrorCode.MissingRequiredClientCapability:
    case ErrorCode.UnsupportedProtocolVersion:
      return 400;
    case ErrorCode.InternalError:
      return 500;
    default:
      return 200;
  }
}

function handshakeStatus(error: number | undefined): number {
  return error === ErrorCode.ParseError || error === ErrorCode.InvalidRequest ? 400 : 200;
}

function accepts(request: Request, type: string): boolean {
  const accept = request.headers.get("accept");
  if (accept === null) return false;
  return accept.split(",").some((part) => {
    const media = (part.split(";")[0] ?? "").trim().toLowerCase();
    return media === type || media === "*/*" || media === `${type.split("/")[0]}/*`;
  });
}

async function readBody(request: Request, limit: number): Promise<string | Response> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > limit) return refuse(413, null, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return refuse(413, null, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
}

function idOf(message: unknown): unknown {
  return isPlainObject(message) ? message.id : undefined;
}

function isRequest(message: unknown): message is Record<string, unknown> & { method: string } {
  return isPlainObject(message) && typeof message.method === "string" && message.id !== undefined;
}

/**
 * Serve `servable` over Streamable HTTP, both protocol eras from one instance: a 2026-07-28 request is served
 * statelessly (nothing kept between requests), a handshake-era client gets a session from `initialize`.
 * @example
 * const handle = createHttpHandler(new Notes());
 * Bun.serve({ port: 3000, fetch: handle });
 */
export function createHttpHandler(servable: Servable, options: HttpOptions = {}): HttpHandler {
  const server = toServer(servable);
  const path = options.path ?? "/mcp";
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxStreams = options.maxStreams ?? 1000;
  const sessions = new SessionStore(options.maxSessions ?? 1000, options.sessionIdleMs ?? 30 * 60_000);
  const keep = options.eventBufferSize ?? 512;
  const checks: Guard = guard(options);
  let streams = 0;
  // 2026-07-28 listen streams open now: ended with their closing result when the handler closes.
  const listening = new Set<Connection>();

  const toolSchema = (name: string) => {
    const described = server.registered("tool", name)?.describe();
    return isPlainObject(described?.inputSchema) ? described.inputSchema : undefined;
  };

  // Long-lived streams (GET, listen) are counted while open.
  function openStream(): EventStream | undefined {
    if (streams >= maxStreams) return undefined;
    streams++;
    let open = true;
    const release = () => {
      if (open) streams--;
      open = false;
    };
    const stream = new EventStream(release);
    const close = stream.close.bind(stream);
    stream.close = () => {
      release();
      close();
    };
    return stream;
  }

  async function handle(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const refused = checks(request);
    if (refused) return refused;
    if (url.pathname !== path) {
      const metadata = protectedResourceMetadata(options, url, path);
      if (metadata && request.method === "GET") return metadata;
      return new Response("Not found", { status: 404 });
    }
    const auth = await authorize(options, request, url, path);
    if (auth instanceof Response) return auth;
    switch (request.method) {
      case "POST":
        return post(request, auth);
      case "GET":
        return get(request, auth);
      case "DELETE":
        return remove(request, auth);
      default:
        return new Response(null, { status: 405, headers: { allow: "POST, GET, DELETE" } });
    }
  }

  function sessionOf(request: Request, auth: AuthInfo | undefined): HttpSession | Response | undefined {
    const id = request.headers.get(SESSION_HEADER);
    if (id === null) return undefined;
    const session = sessions.get(id);
    // A session is its creator's: another caller gets the same answer as for an unknown one.
    if (!session || session.subject !== auth?.subject) {
      return refuse(404, null, -32001, "Session not found: it ended or expired; send initialize to start a new one");
    }
    return session;
  }

  async function post(request: Request, auth: AuthInfo | undefined): Promise<Response> {
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\b/i.test(type)) {
      return refuse(415, null, ErrorCode.InvalidRequest, "Content-Type must be application/json");
    }
    if (!accepts(request, "application/json") || !accepts(request, "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list application/json and text/event-stream");
    }
    const body = await readBody(request, maxBodyBytes);
    if (body instanceof Response) return body;
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return refuse(400, null, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    const session = sessionOf(request, auth);
    if (session instanceof Response) return session;
    if (session) return inSession(request, session, body, message, auth);
    const header = request.headers.get(VERSION_HEADER);
    if (isRequest(message) && message.method === "initialize" && (header === null || HANDSHAKE.includes(header))) {
      return initialize(body, message, auth);
    }
    const meta = isPlainObject(message) && isPlainObject(message.params) ? message.params._meta : undefined;
    if ((header !== null && STATELESS.includes(header)) || (isPlainObject(meta) && MetaKey.protocolVersion in meta)) {
      return stateless(request, body, message, auth);
    }
    return refuse(
      400,
      idOf(message),
      -32000,
      "Bad Request: no MCP-Session-Id; a handshake-era client sends initialize first, a 2026-07-28 request carries MCP-Protocol-Version and _meta",
    );
  }

  // ── 2026-07-28: every request stands alone ──

  function stateless(
    request: Request,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Response> | Response {
    const id = idOf(message);
    if (!isPlainObject(message) || typeof message.method !== "string") {
      return refuse(
        400,
        id,
        ErrorCode.InvalidRequest,
        "Invalid request: one JSON-RPC request or notification per POST",
      );
    }
    const header = request.headers.get(VERSION_HEADER);
    const meta = isPlainObject(message.params) && isPlainObject(message.params._meta) ? message.params._meta : {};
    const inBody = meta[MetaKey.protocolVersion];
    if (header === null) {
      return refuse(
        400,
        id,
        ErrorCode.HeaderMismatch,
        "The MCP-Protocol-Version header is missing; it must equal _meta's",
      );
    }
    if (inBody !== undefined && inBody !== header) {
      return refuse(
        400,
        id,
        ErrorCode.HeaderMismatch,
        `MCP-Protocol-Version (${header}) does not match _meta (${String(inBody)})`,
      );
    }
    if (message.id !== undefined) {
      // initialize exists only in the handshake era, which a 2026-07-28 request did not choose.
      if (message.method === "initialize") {
        return refuse(
          404,
          id,
          ErrorCode.MethodNotFound,
          "Method not found: initialize (removed in protocol revision 2026-07-28)",
        );
      }
      const mismatch = routingMismatch(request.headers, message, toolSchema);
      if (mismatch) return refuse(400, id, ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    const listens = message.method === "subscriptions/listen";
    if (listens && streams >= maxStreams) return refuse(503, id, -32000, "Too many open streams; try again later");
    if (listens) streams++;
    // One connection for this request alone: nothing outlives it. Closing the stream cancels the request.
    const reply: Reply = new Reply({ status: statelessStatus, headers: {}, onCancel: () => connection.close() });
    const connection = server.connect({ send: (line, route) => void reply.deliver(line, route) });
    request.signal?.addEventListener("abort", () => connection.close(), { once: true });
    if (listens) listening.add(connection);
    const finish = () => {
      if (listens) {
        streams--;
        listening.delete(connection);
      }
      reply.accept();
      connection.close();
    };
    const done = connection.receive(body, auth ? { auth, tag: reply } : { tag: reply });
    if (done === undefined) finish();
    else done.then(finish, finish);
    return reply.response;
  }

  // ── Handshake era: sessions ──

  function initialize(
    body: string,
    message: Record<string, unknown>,
    auth: AuthInfo | undefined,
  ): Promise<Response> | Response {
    if (sessions.full) return refuse(503, message.id, -32000, "Too many open sessions; try again later");
    const id = crypto.randomUUID();
    let session: HttpSession | undefined;
    const reply = new Reply({ status: handshakeStatus, headers: { "mcp-session-id": id } });
    const connection: Connection = server.connect({
      send: (line, route) => deliver(session, reply, line, route),
      ...(auth ? { auth } : {}),
    });
    session = new HttpSession(id, connection, auth?.subject, keep);
    const done = connection.receive(body, { tag: reply });
    const settle = () => {
      // Only a successful initialize opens a session.
      if (connection.negotiatedVersion !== undefined && session) {
        session.version = connection.negotiatedVersion;
        sessions.add(session);
      }
    };
    if (done === undefined) settle();
    else done.then(settle, settle);
    return reply.response;
  }

  // A session's line goes to the POST it belongs to while that is open, else to the session's GET stream.
  function deliver(session: HttpSession | undefined, initializing: Reply, line: string, route: Route): void {
    const reply = (route.tag as Reply | undefined) ?? initializing;
    if (reply.deliver(line, route)) return;
    session?.unrelated(line);
  }

  function inSession(
    request: Request,
    session: HttpSession,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Response> | Response {
    const header = request.headers.get(VERSION_HEADER);
    if (header !== null && header !== session.version) {
      return refuse(
        400,
        idOf(message),
        ErrorCode.InvalidRequest,
        `MCP-Protocol-Version ${header} is not this session's (${session.version})`,
      );
    }
    if (Array.isArray(message) && session.version !== "2025-03-26") {
      return refuse(
        400,
        null,
        ErrorCode.InvalidRequest,
        "Invalid request: JSON-RPC batches are accepted only in a 2025-03-26 session",
      );
    }
    const needsAnswer = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    const key = session.nextKey();
    const reply = new Reply({
      status: handshakeStatus,
      headers: { "mcp-session-id": session.id },
      log: { key, events: session, prime: session.version === "2025-11-25" },
    });
    const done = session.connection.receive(body, auth ? { auth, tag: reply } : { tag: reply });
    if (!needsAnswer) {
      reply.accept();
      return reply.response;
    }
    if (done !== undefined)
      done.then(
        () => reply.accept(),
        () => reply.accept(),
      );
    else reply.accept();
    return reply.response;
  }

  function get(request: Request, auth: AuthInfo | undefined): Response {
    const session = sessionOf(request, auth);
    if (session instanceof Response) return session;
    if (!session) {
      const header = request.headers.get(VERSION_HEADER);
      if (header !== null && HANDSHAKE.includes(header)) {
        return refuse(400, null, -32000, "Bad Request: no MCP-Session-Id; send initialize first");
      }
      return new Response(null, { status: 405, headers: { allow: "POST" } });
    }
    if (!accepts(request, "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
    }
    const lastEventId = request.headers.get("last-event-id");
    if (lastEventId === null && session.get && !session.get.closed) {
      return refuse(409, null, ErrorCode.InvalidRequest, "This session already has a GET stream open");
    }
    const stream = openStream();
    if (!stream) return refuse(503, null, -32000, "Too many open streams; try again later");
    if (lastEventId !== null) {
      const resumed = session.resume(lastEventId, stream);
      if (!resumed) {
        stream.close();
        return refuse(400, null, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
      }
    } else {
      session.get = stream;
      if (session.version === "2025-11-25") stream.prime(session.record("get", ""));
    }
    return new Response(stream.body, { status: 200, headers: { ...SSE_HEADERS, "mcp-session-id": session.id } });
  }

  function remove(request: Request, auth: AuthInfo | undefined): Response {
    const session = sessionOf(request, auth);
    if (session instanceof Response) return session;
    if (!session) return new Response(null, { status: 405, headers: { allow: "POST" } });
    sessions.delete(session.id);
    return new Response(null, { status: 204 });
  }

  const handler = handle as HttpHandler;
  Object.defineProperties(handler, {
    close: {
      value: () => {
        sessions.closeAll();
        for (const connection of [...listening]) connection.endSubscriptions();
      },
    },
    sessions: { get: () => sessions.size },
  });
  return handler;
}
