import {
  type AuthInfo,
  type Connection,
  ErrorCode,
  errorLine,
  featuresOf,
  HANDSHAKE_VERSIONS,
  httpStatusOf,
  idText,
  LATEST_STATELESS_VERSION,
  McpError,
  MetaKey,
  type RevisionFeatures,
  type Route,
  type Servable,
  STATELESS_VERSIONS,
  type Tool,
  toServer,
} from "@toolsmith/core";
import { CallerCounts, callerShare } from "./caller-limits.js";
import { EventStream, SSE_HEADERS, webBody } from "./event-stream.js";
import { answer, type Incoming, type Outgoing } from "./exchange.js";
import { isPlainObject } from "./json.js";
import {
  type AuthOptions,
  authorize,
  type Guard,
  guard,
  type ProtectionOptions,
  protectedResourceMetadata,
} from "./protection.js";
import { Reply } from "./reply.js";
import { paramMismatch, routingMismatch } from "./routing-headers.js";
import { HttpSession, SessionStore } from "./sessions.js";

export interface HttpOptions extends ProtectionOptions, AuthOptions {
  /** The MCP endpoint's path (default `/mcp`); other paths are 404, but for the protected-resource metadata. */
  path?: string;
  /** Largest accepted request body in bytes (default 4 MiB): larger is 413. */
  maxBodyBytes?: number;
  /** Handshake-era sessions open at once (default 1000): more is 503. */
  maxSessions?: number;
  /** Handshake-era sessions one caller may hold (default a quarter of `maxSessions`): more is 503. */
  maxSessionsPerCaller?: number;
  /** Long-lived SSE streams open at once (GET streams and 2026-07-28 listen streams; default 1000): more is 503. */
  maxStreams?: number;
  /** Long-lived SSE streams one caller may hold open (default a quarter of `maxStreams`): more is 503. */
  maxStreamsPerCaller?: number;
  /**
   * The caller's address, which keys the per-caller limits of a caller `authenticate` does not name (a subject
   * keys them otherwise). node:http's peer address by default; the web-standard handler knows none, so without
   * this such callers share the global limits alone. Behind a proxy, read the address it forwards.
   */
  remoteAddress?: (request: Request) => string | undefined;
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
  /** The engine behind it (what `nodeListener` serves without building Requests). */
  readonly engine: HttpEngine;
}

const SESSION_HEADER = "mcp-session-id";
const VERSION_HEADER = "mcp-protocol-version";
const STATELESS: readonly string[] = STATELESS_VERSIONS;
const HANDSHAKE: readonly string[] = HANDSHAKE_VERSIONS;
// The revisions whose sessions accept JSON-RPC batches, as the revision table says (for the refusal's message).
const BATCH_VERSIONS = HANDSHAKE_VERSIONS.filter((version) => featuresOf(version).batches).join(", ");

// What a session's negotiated revision does over HTTP (nothing before initialize has settled it).
function revisionOf(session: HttpSession): RevisionFeatures | undefined {
  return session.version === undefined ? undefined : featuresOf(session.version);
}

// `id` is the JSON text of the request's id (`idOf`), null when there is none to echo.
function refuse(status: number, id: string | null, code: number, message: string, data?: unknown): Outgoing {
  return answer(status, errorLine(id ?? "null", data === undefined ? { code, message } : { code, message, data }));
}

const statelessStatus = (code: number | undefined) => httpStatusOf(code, "stateless");
const handshakeStatus = (code: number | undefined) => httpStatusOf(code, "handshake");

// The media types an Accept header lists (lower case, no parameters).
function accepted(header: string | null): string[] {
  if (header === null) return [];
  return header.split(",").map((part) => (part.split(";")[0] ?? "").trim().toLowerCase());
}

function allows(types: readonly string[], type: string): boolean {
  return types.some((media) => media === type || media === "*/*" || media === `${type.split("/")[0]}/*`);
}

const TOO_LARGE = (limit: number) => refuse(413, null, ErrorCode.InvalidRequest, `Request body over ${limit} bytes`);

// The id as the body carries it (exact past 2^53; the last of duplicate keys, as JSON.parse reads it).
function idOf(message: unknown, body: string): string {
  return isPlainObject(message) ? idText(message.id, body) : "null";
}

function isRequest(message: unknown): message is Record<string, unknown> & { method: string } {
  return isPlainObject(message) && typeof message.method === "string" && message.id !== undefined;
}

// The Mcp-Param-* check of a 2026-07-28 tools/call: core asks it only of a tool this caller may use, so a hidden
// tool's headers are never looked at (it answers as unknown, like a tool that does not exist).
function paramCheck(request: Incoming, message: Record<string, unknown>): (tool: Tool) => void {
  const args = isPlainObject(message.params) ? message.params.arguments : undefined;
  return (tool) => {
    const mismatch = paramMismatch(request, args, tool.inputSchema);
    if (mismatch) throw new McpError(ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
  };
}

/** The engine both front doors share: one Incoming in, one Outgoing out. */
export interface HttpEngine {
  serve(request: Incoming): Outgoing | Promise<Outgoing>;
  close(): void;
  readonly sessions: number;
}

/** Build the engine that serves `servable`; `createHttpHandler` and `listen` put a front door on it. */
export function createHttpEngine(servable: Servable, options: HttpOptions = {}): HttpEngine {
  const server = toServer(servable);
  const path = options.path ?? "/mcp";
  const maxBodyBytes = options.maxBodyBytes ?? 4 * 1024 * 1024;
  const maxStreams = options.maxStreams ?? 1000;
  const maxSessions = options.maxSessions ?? 1000;
  const sessions = new SessionStore(
    maxSessions,
    options.sessionIdleMs ?? 30 * 60_000,
    options.maxSessionsPerCaller ?? callerShare(maxSessions),
  );
  const streamsHeld = new CallerCounts(options.maxStreamsPerCaller ?? callerShare(maxStreams));
  const keep = options.eventBufferSize ?? 512;
  const checks: Guard = guard(options);
  let streams = 0;
  // A principal without a subject is the authenticate hook's bug: told once, not on every request it refuses.
  let toldNoSubject = false;
  const noSubject = () => {
    if (toldNoSubject) return;
    toldNoSubject = true;
    const message = `The authenticate hook returned a principal without a subject; every such request is answered 401. Return { subject: "<non-empty caller id>", scopes } from authenticate`;
    try {
      server.logger?.({ level: "error", message });
    } catch {
      // A failing logger must not take a request down with it.
    }
  };
  // 2026-07-28 listen streams open now: ended with their closing result when the handler closes.
  const listening = new Set<Connection>();

  // Who holds a session or stream, for the per-caller limits: the authenticated subject, else the address.
  function callerOf(request: Incoming, auth: AuthInfo | undefined): string | undefined {
    if (auth?.subject !== undefined) return `subject ${auth.subject}`;
    const address = options.remoteAddress ? options.remoteAddress(request.request()) : request.remoteAddress;
    return address === undefined ? undefined : `address ${address}`;
  }

  // Long-lived streams (GET, listen) are counted while open, in all and per caller; undefined when taken.
  function takeStream(caller: string | undefined, id: string | null): Outgoing | undefined {
    if (streams >= maxStreams) return refuse(503, id, ErrorCode.ServerError, "Too many open streams; try again later");
    if (!streamsHeld.take(caller)) {
      return refuse(
        503,
        id,
        ErrorCode.ServerError,
        `Too many open streams for one caller (at most ${streamsHeld.limit}); close one or try again later`,
      );
    }
    streams++;
    return undefined;
  }

  function releaseStream(caller: string | undefined): void {
    streams--;
    streamsHeld.release(caller);
  }

  // A GET stream, released once when it closes or its client goes away.
  function openStream(caller: string | undefined): EventStream {
    let open = true;
    const release = () => {
      if (open) releaseStream(caller);
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

  function serve(request: Incoming): Outgoing | Promise<Outgoing> {
    const refused = checks(request);
    if (refused) return refused;
    if (request.path !== path) {
      const metadata = protectedResourceMetadata(options, request, path);
      if (metadata && request.method === "GET") return metadata;
      return answer(404, "Not found", { "content-type": "text/plain" });
    }
    if (!options.authenticate) return route(request, undefined);
    return authorize(options, request, path, noSubject).then((auth) =>
      isOutgoing(auth) ? auth : route(request, auth),
    );
  }

  function route(request: Incoming, auth: AuthInfo | undefined): Outgoing | Promise<Outgoing> {
    switch (request.method) {
      case "POST":
        return post(request, auth);
      case "GET":
        return get(request, auth);
      case "DELETE":
        return remove(request, auth);
      default:
        return answer(405, undefined, { allow: "POST, GET, DELETE" });
    }
  }

  // `message` and `body`: a POST's, whose id the refusal echoes.
  function sessionOf(
    request: Incoming,
    auth: AuthInfo | undefined,
    message?: unknown,
    body = "",
  ): HttpSession | Outgoing | undefined {
    const id = request.header(SESSION_HEADER);
    if (id === null) return undefined;
    const session = sessions.get(id);
    // A session is its creator's: another caller gets the same answer as for an unknown one.
    if (!session?.ownedBy(auth)) {
      return refuse(
        404,
        idOf(message, body),
        ErrorCode.SessionNotFound,
        "Session not found: it ended or expired; send initialize to start a new one",
      );
    }
    return session;
  }

  async function post(request: Incoming, auth: AuthInfo | undefined): Promise<Outgoing> {
    const type = request.header("content-type") ?? "";
    if (!/^application\/json\b/i.test(type)) {
      return refuse(415, null, ErrorCode.InvalidRequest, "Content-Type must be application/json");
    }
    const types = accepted(request.header("accept"));
    if (!allows(types, "application/json") || !allows(types, "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list application/json and text/event-stream");
    }
    const encoding = request.header("content-encoding");
    if (encoding !== null && encoding.trim().toLowerCase() !== "identity") {
      // A compressed body would only fail to parse: say what is wrong (and never inflate a client's bytes).
      return refuse(
        415,
        null,
        ErrorCode.InvalidRequest,
        `Content-Encoding ${encoding} is not accepted; send the body uncompressed`,
      );
    }
    const declared = Number(request.header("content-length") ?? Number.NaN);
    if (declared > maxBodyBytes) return TOO_LARGE(maxBodyBytes);
    const body = await request.text(maxBodyBytes);
    if (body === undefined) return TOO_LARGE(maxBodyBytes);
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return refuse(400, null, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    const session = sessionOf(request, auth, message, body);
    if (isOutgoing(session)) return session;
    if (session) return inSession(request, session, body, message, auth);
    const header = request.header(VERSION_HEADER);
    if (isRequest(message) && message.method === "initialize" && (header === null || HANDSHAKE.includes(header))) {
      return initialize(request, body, message, auth);
    }
    const meta = isPlainObject(message) && isPlainObject(message.params) ? message.params._meta : undefined;
    if ((header !== null && STATELESS.includes(header)) || (isPlainObject(meta) && MetaKey.protocolVersion in meta)) {
      return stateless(request, body, message, auth);
    }
    return refuse(
      400,
      idOf(message, body),
      ErrorCode.ServerError,
      `Bad Request: no MCP-Session-Id; a handshake-era client sends initialize first, a ${LATEST_STATELESS_VERSION} request carries MCP-Protocol-Version and _meta`,
    );
  }

  // ── 2026-07-28: every request stands alone ──

  function stateless(
    request: Incoming,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    const id = idOf(message, body);
    if (!isPlainObject(message) || typeof message.method !== "string") {
      return refuse(
        400,
        id,
        ErrorCode.InvalidRequest,
        "Invalid request: one JSON-RPC request or notification per POST",
      );
    }
    const header = request.header(VERSION_HEADER);
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
        // Never the body's value itself when it is not a string: it may nest too deep to turn into text.
        `MCP-Protocol-Version (${header}) does not match _meta (${typeof inBody === "string" ? inBody : `not a string: ${Array.isArray(inBody) ? "an array" : typeof inBody}`})`,
      );
    }
    if (message.id !== undefined) {
      // initialize exists only in the handshake era, which a 2026-07-28 request did not choose.
      if (message.method === "initialize") {
        return refuse(
          404,
          id,
          ErrorCode.MethodNotFound,
          `Method not found: initialize (removed in protocol revision ${LATEST_STATELESS_VERSION})`,
        );
      }
      const mismatch = routingMismatch(request, message);
      if (mismatch) return refuse(400, id, ErrorCode.HeaderMismatch, `Header mismatch: ${mismatch}`);
    }
    const checkTool = message.method === "tools/call" ? paramCheck(request, message) : undefined;
    const listens = message.method === "subscriptions/listen";
    let caller: string | undefined;
    if (listens) {
      caller = callerOf(request, auth);
      const refused = takeStream(caller, id);
      if (refused) return refused;
    }
    // A listen stream's place is given back once: when it ends, or at once when its client closes it.
    let held = listens;
    const release = listens
      ? () => {
          if (!held) return;
          held = false;
          releaseStream(caller);
          listening.delete(connection);
        }
      : undefined;
    // One connection for this request alone: nothing outlives it. Closing the stream cancels the request.
    const reply: Reply = new Reply({
      status: statelessStatus,
      headers: {},
      onCancel: () => {
        release?.();
        connection.close();
      },
    });
    const connection = server.connect({ send: (line, route) => void reply.deliver(line, route) });
    request.onAbort(() => connection.close());
    if (listens) listening.add(connection);
    const finish = () => {
      release?.();
      reply.accept();
      connection.close();
    };
    const done = connection.receive(body, {
      tag: reply,
      parsed: message,
      ...(auth ? { auth } : {}),
      ...(checkTool ? { checkTool } : {}),
    });
    if (done === undefined) finish();
    else done.then(finish, finish);
    return reply.answered();
  }

  // ── Handshake era: sessions ──

  function initialize(
    request: Incoming,
    body: string,
    message: Record<string, unknown>,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    if (sessions.full)
      return refuse(503, idOf(message, body), ErrorCode.ServerError, "Too many open sessions; try again later");
    const caller = callerOf(request, auth);
    if (sessions.fullFor(caller)) {
      return refuse(
        503,
        idOf(message, body),
        ErrorCode.ServerError,
        `Too many open sessions for one caller (at most ${sessions.perCaller}); end one (DELETE) or try again later`,
      );
    }
    const id = crypto.randomUUID();
    let session: HttpSession | undefined;
    const reply = new Reply({ status: handshakeStatus, headers: { "mcp-session-id": id } });
    const connection: Connection = server.connect({
      send: (line, route) => deliver(session, reply, line, route),
      ...(auth ? { auth } : {}),
    });
    session = new HttpSession(id, connection, auth?.subject, keep);
    const done = connection.receive(body, { tag: reply, parsed: message });
    const settle = () => {
      // Only a successful initialize opens a session.
      if (connection.negotiatedVersion !== undefined && session) {
        session.version = connection.negotiatedVersion;
        sessions.add(session, caller);
      }
    };
    if (done === undefined) settle();
    else done.then(settle, settle);
    return reply.answered();
  }

  // A session's line goes to the POST it belongs to while that is open, else to the session's GET stream.
  function deliver(session: HttpSession | undefined, initializing: Reply, line: string, route: Route): void {
    const reply = (route.tag as Reply | undefined) ?? initializing;
    if (reply.deliver(line, route)) return;
    session?.unrelated(line);
  }

  function inSession(
    request: Incoming,
    session: HttpSession,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    const header = request.header(VERSION_HEADER);
    if (header !== null && header !== session.version) {
      return refuse(
        400,
        idOf(message, body),
        ErrorCode.InvalidRequest,
        `MCP-Protocol-Version ${header} is not this session's (${session.version})`,
      );
    }
    if (Array.isArray(message) && revisionOf(session)?.batches !== true) {
      return refuse(
        400,
        null,
        ErrorCode.InvalidRequest,
        `Invalid request: JSON-RPC batches are accepted only in a ${BATCH_VERSIONS} session`,
      );
    }
    const needsAnswer = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    const key = session.nextKey();
    const reply = new Reply({
      status: handshakeStatus,
      headers: { "mcp-session-id": session.id },
      log: { key, events: session, prime: revisionOf(session)?.ssePriming === true },
    });
    const done = session.connection.receive(
      body,
      auth ? { auth, tag: reply, parsed: message } : { tag: reply, parsed: message },
    );
    if (!needsAnswer) {
      reply.accept();
      return reply.answered();
    }
    if (done !== undefined)
      done.then(
        () => reply.accept(),
        () => reply.accept(),
      );
    else reply.accept();
    return reply.answered();
  }

  function get(request: Incoming, auth: AuthInfo | undefined): Outgoing {
    const session = sessionOf(request, auth);
    if (isOutgoing(session)) return session;
    if (!session) {
      const header = request.header(VERSION_HEADER);
      if (header !== null && HANDSHAKE.includes(header)) {
        return refuse(400, null, ErrorCode.ServerError, "Bad Request: no MCP-Session-Id; send initialize first");
      }
      return answer(405, undefined, { allow: "POST" });
    }
    if (!allows(accepted(request.header("accept")), "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
    }
    const lastEventId = request.header("last-event-id");
    if (lastEventId === null && session.get && !session.get.closed) {
      return refuse(409, null, ErrorCode.InvalidRequest, "This session already has a GET stream open");
    }
    const caller = callerOf(request, auth);
    const refused = takeStream(caller, null);
    if (refused) return refused;
    const stream = openStream(caller);
    if (lastEventId !== null) {
      const resumed = session.resume(lastEventId, stream);
      if (!resumed) {
        stream.close();
        return refuse(400, null, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
      }
    } else {
      session.get = stream;
      if (revisionOf(session)?.ssePriming) stream.prime(session.record("get", ""));
    }
    return { status: 200, headers: { ...SSE_HEADERS, "mcp-session-id": session.id }, stream };
  }

  function remove(request: Incoming, auth: AuthInfo | undefined): Outgoing {
    const session = sessionOf(request, auth);
    if (isOutgoing(session)) return session;
    if (!session) return answer(405, undefined, { allow: "POST" });
    sessions.delete(session.id);
    return answer(204, undefined, {});
  }

  return {
    serve,
    close() {
      sessions.closeAll();
      for (const connection of [...listening]) connection.endSubscriptions();
    },
    get sessions() {
      return sessions.size;
    },
  };
}

function isOutgoing(value: unknown): value is Outgoing {
  return (
    typeof value === "object" && value !== null && typeof (value as Outgoing).status === "number" && "headers" in value
  );
}

// ── The web-standard front door ──

function fromRequest(request: Request): Incoming {
  const url = new URL(request.url);
  return {
    method: request.method,
    path: url.pathname,
    origin: url.origin,
    // A Request made in code may have no Host header: its URL says which host it was addressed to.
    header: (name) => request.headers.get(name) ?? (name === "host" ? url.host : null),
    async text(limit) {
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
          return undefined;
        }
        chunks.push(value);
      }
      return new TextDecoder().decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    },
    onAbort: (listener) => request.signal.addEventListener("abort", listener, { once: true }),
    request: () => request,
  };
}

function toResponse(outgoing: Outgoing): Response {
  const body = outgoing.stream ? webBody(outgoing.stream) : (outgoing.body ?? null);
  return new Response(body, { status: outgoing.status, headers: outgoing.headers });
}

/**
 * Serve `servable` over Streamable HTTP, both protocol eras from one instance: a 2026-07-28 request is served
 * statelessly (nothing kept between requests), a handshake-era client gets a session from `initialize`.
 * @example
 * const handle = createHttpHandler(new Notes());
 * Bun.serve({ port: 3000, fetch: handle });
 */
export function createHttpHandler(servable: Servable, options: HttpOptions = {}): HttpHandler {
  const engine = createHttpEngine(servable, options);
  const handler = (async (request: Request) => toResponse(await engine.serve(fromRequest(request)))) as HttpHandler;
  Object.defineProperties(handler, {
    close: { value: () => engine.close() },
    sessions: { get: () => engine.sessions },
    engine: { value: engine },
  });
  return handler;
}
