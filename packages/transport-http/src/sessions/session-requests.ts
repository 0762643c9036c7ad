import { type AuthInfo, ErrorCode, type MaybePromise, type Server } from "@toolsmith/core";
import type { SessionRecord } from "@toolsmith/core/engine";
import { andThen, attempt, isHandshakeVersion, messageIdText } from "@toolsmith/core/internal";
import type { Connection, Delivery } from "@toolsmith/core/transport";
import type { StreamLimits } from "../checks/caller-limits.js";
import { VERSION_HEADER } from "../checks/versions.js";
import { answer, type Incoming, isOutgoing, type Outgoing } from "../exchange/exchange.js";
import { faultAnswer, refuse, shuttingDown } from "../exchange/refusals.js";
import { getStream } from "./get-stream.js";
import { HttpSession, ownedBy } from "./http-session.js";
import { type OpeningContext, openSession } from "./initialize.js";
import { postInSession } from "./session-post.js";

// The header carrying a handshake-era session's id (written as a literal key where a header object is built).
const SESSION_HEADER = "mcp-session-id";

/** What a transport needs around the sessions: the engine, started, and where its errors are told. */
export interface SessionContext extends Omit<OpeningContext, "connect"> {
  readonly server: Server;
  readonly streams: StreamLimits;
  /** The engine started (once; later calls are free). */
  ready(): MaybePromise<void>;
  /** True once it has. */
  started(): boolean;
}

/** The handshake era over HTTP: `initialize` opens a session, later POSTs, a GET stream and DELETE use it. */
export class SessionRequests {
  readonly #c: SessionContext;
  // Live sessions being made here from their records (a shared engine answers later): made once.
  readonly #making = new Map<string, Promise<HttpSession | undefined>>();
  #connections = 0;

  // What `initialize` needs: the context, and this process's connections.
  readonly #opening: OpeningContext;

  constructor(context: SessionContext) {
    this.#c = context;
    const { engine, limits, live, remoteAddress, onError } = context;
    this.#opening = { engine, limits, live, remoteAddress, onError, connect: this.#connect.bind(this) };
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
  ): MaybePromise<HttpSession | Outgoing | undefined> {
    const id = request.header(SESSION_HEADER);
    if (id === null) return undefined;
    const c = this.#c;
    // The engine's trouble is answered with the request's id, read only then.
    const fault = (error: unknown) => faultAnswer(message === undefined ? null : messageIdText(message, body))(error);
    if (!c.started()) {
      return attempt(
        () =>
          andThen(c.ready(), () =>
            andThen(c.engine.loadSession(id), (record) => this.#found(id, record, auth, message, body)),
          ),
        fault,
      );
    }
    // Started (every request but the first few): no closure or promise unless the engine answers later.
    let loaded: MaybePromise<SessionRecord | undefined>;
    try {
      loaded = c.engine.loadSession(id);
    } catch (error) {
      return fault(error);
    }
    if (loaded instanceof Promise) return loaded.then((record) => this.#found(id, record, auth, message, body), fault);
    return this.#found(id, loaded, auth, message, body);
  }

  #found(
    id: string,
    record: SessionRecord | undefined,
    auth: AuthInfo | undefined,
    message: unknown,
    body: string,
  ): MaybePromise<HttpSession | Outgoing> {
    const c = this.#c;
    // A session is its creator's: another caller gets the same answer as for an unknown one.
    if (!record || !ownedBy(record, auth)) {
      if (!record) c.live.drop(id, true);
      return refuse(
        404,
        messageIdText(message, body),
        ErrorCode.SessionNotFound,
        "Session not found: it ended or expired; send initialize to start a new one",
      );
    }
    const live = c.live.get(id);
    if (live === undefined) {
      // Rare (a session first served here): the engine failing the revival is an outage, as a failed load is.
      const id_ = () => messageIdText(message, body);
      return attempt(
        () => andThen(this.#revive(record), (revived) => revived ?? shuttingDown(id_())),
        (error) => faultAnswer(id_())(error),
      );
    }
    // The record is the session's authority: another process may have kept its initialized or log level since.
    live.connection.sessionKept(record);
    return live;
  }

  // A connection of this process for a session: what its client changes is kept in the engine before its answer. It
  // holds no credentials: each request brings its caller (the lines other processes relay build no context).
  #connect(id: string, send: (line: string, delivery: Delivery) => void, record?: SessionRecord): Connection {
    const { engine } = this.#c;
    return this.#c.server.connect({
      send,
      onSessionChange: (change) => engine.changeSession(id, change),
      outboundIds: `${engine.node}-${++this.#connections}`,
      hearsChanges: false,
      sessionId: id,
      ...(record ? { session: record } : {}),
    });
  }

  // The session's live connection here, made from its record (another process opened it, or this one let it go).
  #revive(record: SessionRecord): MaybePromise<HttpSession | undefined> {
    const making = this.#making.get(record.id);
    if (making) return making;
    const c = this.#c;
    const session = new HttpSession(record, c.engine, c.onError);
    session.wake = c.live.wake;
    session.connection = this.#connect(record.id, (line, delivery) => session.deliver(line, delivery), record);
    const followed = attempt(
      () => session.follow(() => c.live.drop(session.id, true)),
      (error) => {
        session.close(false);
        throw error;
      },
    );
    const made = andThen(followed, () => {
      // Revived as close() ran: not kept (undefined), and the request is refused like any other after it.
      return c.live.add(session) ? session : undefined;
    });
    if (made instanceof Promise) {
      this.#making.set(record.id, made);
      const done = () => this.#making.delete(record.id);
      made.then(done, done);
    }
    return made;
  }

  /** `initialize`: a new session, kept (in the engine, within its limits) only when the handshake succeeds. */
  initialize(request: Incoming, body: string, message: unknown, auth: AuthInfo | undefined): MaybePromise<Outgoing> {
    return attempt(
      () => andThen(this.#c.ready(), () => openSession(this.#opening, request, body, message, auth)),
      faultAnswer(messageIdText(message, body)),
    );
  }

  /** A POST in `session`: its reply is JSON, or an SSE stream kept (in the engine) for resumption. */
  post(
    request: Incoming,
    session: HttpSession,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): MaybePromise<Outgoing> {
    return postInSession(request, session, body, message, auth);
  }

  /** GET: the session's stream for what belongs to no request, or a lost stream resumed from Last-Event-ID. */
  get(request: Incoming, auth: AuthInfo | undefined): MaybePromise<Outgoing> {
    return andThen(this.find(request, auth), (session) => {
      if (isOutgoing(session)) return session;
      if (!session) {
        if (isHandshakeVersion(request.header(VERSION_HEADER))) {
          return refuse(400, null, ErrorCode.ServerError, "Bad Request: no MCP-Session-Id; send initialize first");
        }
        return answer(405, undefined, { allow: "POST" });
      }
      const { streams, remoteAddress } = this.#c;
      return attempt(() => getStream(request, auth, session, streams, remoteAddress), faultAnswer(null));
    });
  }

  /** DELETE: the session ends, on every process. */
  remove(request: Incoming, auth: AuthInfo | undefined): MaybePromise<Outgoing> {
    return andThen(this.find(request, auth), (session) => {
      if (isOutgoing(session)) return session;
      if (!session) return answer(405, undefined, { allow: "POST" });
      const { engine, live } = this.#c;
      return attempt(
        () =>
          andThen(engine.deleteSession(session.id), () => {
            live.drop(session.id, true);
            return answer(204, undefined, {});
          }),
        faultAnswer(null),
      );
    });
  }
}
