import { type AuthInfo, type Connection, ErrorCode, type Route, type Server } from "@toolsmith/core";
import { callerOf } from "./caller-limits.js";
import { SSE_HEADERS } from "./event-stream.js";
import { answer, type Incoming, isOutgoing, type Outgoing } from "./exchange.js";
import { idOf, isRequest } from "./messages.js";
import { accepts } from "./post-checks.js";
import { handshakeStatus, refuse } from "./refusals.js";
import { Reply } from "./reply.js";
import { HttpSession, type SessionStore } from "./sessions.js";
import type { StreamLimits } from "./stream-limits.js";
import { isHandshakeHeader, sessionVersionRefusal, VERSION_HEADER } from "./versions.js";

// The header carrying a handshake-era session's id (written as a literal key where a header object is built).
const SESSION_HEADER = "mcp-session-id";

// A session's line goes to the POST it belongs to while that is open, else to the session's GET stream.
function deliver(session: HttpSession | undefined, initializing: Reply, line: string, route: Route): void {
  const reply = (route.tag as Reply | undefined) ?? initializing;
  if (reply.deliver(line, route)) return;
  session?.unrelated(line);
}

/** The handshake era over HTTP: `initialize` opens a session, later POSTs, a GET stream and DELETE use it. */
export class SessionRequests {
  readonly #server: Server;
  readonly #store: SessionStore;
  readonly #streams: StreamLimits;
  readonly #keep: number;
  readonly #remoteAddress: ((request: Request) => string | undefined) | undefined;

  /** `keep`: SSE events kept per session for resumption. */
  constructor(
    server: Server,
    store: SessionStore,
    streams: StreamLimits,
    keep: number,
    remoteAddress: ((request: Request) => string | undefined) | undefined,
  ) {
    this.#server = server;
    this.#store = store;
    this.#streams = streams;
    this.#keep = keep;
    this.#remoteAddress = remoteAddress;
  }

  /**
   * The session the request names: undefined when it names none, the 404 when it is unknown or another caller's.
   * `message` and `body`: a POST's, whose id the refusal echoes.
   */
  find(
    request: Incoming,
    auth: AuthInfo | undefined,
    message?: unknown,
    body = "",
  ): HttpSession | Outgoing | undefined {
    const id = request.header(SESSION_HEADER);
    if (id === null) return undefined;
    const session = this.#store.get(id);
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

  /** `initialize`: a new session, kept only when the handshake succeeds. */
  initialize(
    request: Incoming,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    const sessions = this.#store;
    if (sessions.full) {
      return refuse(503, idOf(message, body), ErrorCode.ServerError, "Too many open sessions; try again later");
    }
    const caller = callerOf(request, auth, this.#remoteAddress);
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
    const connection: Connection = this.#server.connect({
      send: (line, route) => deliver(session, reply, line, route),
      ...(auth ? { auth } : {}),
    });
    session = new HttpSession(id, connection, auth?.subject, this.#keep);
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

  /** A POST in `session`: its reply is JSON, or an SSE stream kept for resumption. */
  post(
    request: Incoming,
    session: HttpSession,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): Promise<Outgoing> | Outgoing {
    const refused = sessionVersionRefusal(request.header(VERSION_HEADER), session.version, message, body);
    if (refused) return refused;
    const needsAnswer = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    const reply = new Reply(session.replies);
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

  /** GET: the session's stream for what belongs to no request, or a lost stream resumed from Last-Event-ID. */
  get(request: Incoming, auth: AuthInfo | undefined): Outgoing {
    const session = this.find(request, auth);
    if (isOutgoing(session)) return session;
    if (!session) {
      if (isHandshakeHeader(request.header(VERSION_HEADER))) {
        return refuse(400, null, ErrorCode.ServerError, "Bad Request: no MCP-Session-Id; send initialize first");
      }
      return answer(405, undefined, { allow: "POST" });
    }
    if (!accepts(request, "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
    }
    const lastEventId = request.header("last-event-id");
    if (lastEventId === null && session.get && !session.get.closed) {
      return refuse(409, null, ErrorCode.InvalidRequest, "This session already has a GET stream open");
    }
    const caller = callerOf(request, auth, this.#remoteAddress);
    const refused = this.#streams.take(caller, null);
    if (refused) return refused;
    const stream = this.#streams.open(caller);
    if (lastEventId !== null) {
      const resumed = session.resume(lastEventId, stream);
      if (!resumed) {
        stream.close();
        return refuse(400, null, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
      }
    } else {
      session.get = stream;
      if (session.priming) stream.prime(session.record("get", ""));
    }
    return { status: 200, headers: { ...SSE_HEADERS, "mcp-session-id": session.id }, stream };
  }

  /** DELETE: the session ends. */
  remove(request: Incoming, auth: AuthInfo | undefined): Outgoing {
    const session = this.find(request, auth);
    if (isOutgoing(session)) return session;
    if (!session) return answer(405, undefined, { allow: "POST" });
    this.#store.delete(session.id);
    return answer(204, undefined, {});
  }
}
