import {
  type AuthInfo,
  type Connection,
  type Engine,
  ErrorCode,
  idText,
  type MaybePromise,
  type Route,
  type Server,
  type SessionLimits,
  type SessionRecord,
} from "@toolsmith/core";
import { isEngineUnavailable, isPlainObject } from "@toolsmith/core/internal";
import { callerOf, type RemoteAddress } from "./caller-limits.js";
import { SSE_HEADERS } from "./event-stream.js";
import { answer, type Incoming, isOutgoing, type Outgoing } from "./exchange.js";
import { ShuttingDown, shuttingDown, unavailable } from "./faults.js";
import type { LiveSessions } from "./live-sessions.js";
import { andThen, attempt } from "./maybe.js";
import { idOf, isRequest } from "./messages.js";
import { accepts } from "./post-checks.js";
import { refuse } from "./refusals.js";
import { Reply } from "./reply.js";
import { fullMessage, handshakeReply, recordOf } from "./session-record.js";
import { HttpSession, ownedBy } from "./sessions.js";
import type { StreamLimits } from "./stream-limits.js";
import { isHandshakeHeader, sessionVersionRefusal, VERSION_HEADER } from "./versions.js";

// The header carrying a handshake-era session's id (written as a literal key where a header object is built).
const SESSION_HEADER = "mcp-session-id";

// A session's line goes to the POST it belongs to while that is open, else to the session's GET stream.
function deliver(session: HttpSession, line: string, route: Route): void {
  const reply = route.tag as Reply | undefined;
  if (reply?.deliver(line, route)) return;
  session.unrelated(line);
}

// The process that made a server request's id: `<node>-<connection>-<n>` (the connection's outboundIds, then core's n).
const ASKER = /^(.+)-\d+-\d+$/;

// The ids of the client's requests in a POSTed message or batch, as a cancellation names them (`cancelled`): a number
// beyond the safe integers by its nearest double on both sides.
function requestIds(message: unknown): string[] {
  return (Array.isArray(message) ? message : [message]).filter(isRequest).map((item) => idText(item.id));
}

// The request a cancellation names (its id's JSON text), when it names one.
function cancelled(message: { method?: unknown; params?: unknown }): string | undefined {
  if (message.method !== "notifications/cancelled") return undefined;
  const id = isPlainObject(message.params) ? message.params.requestId : undefined;
  return typeof id === "string" || typeof id === "number" ? idText(id) : undefined;
}

// What the client says that another process may be waiting for: its answer to a server request, a cancellation.
function forOthers(message: unknown): boolean {
  if (!isPlainObject(message)) return false;
  if (message.method === undefined) return message.id !== undefined;
  return message.method === "notifications/cancelled";
}

/** What a transport needs around the sessions: the engine, started, and where its errors are told. */
export interface SessionContext {
  readonly server: Server;
  readonly engine: Engine;
  readonly limits: SessionLimits;
  readonly streams: StreamLimits;
  readonly live: LiveSessions;
  readonly remoteAddress: RemoteAddress | undefined;
  /** The engine started (once; later calls are free). */
  ready(): MaybePromise<void>;
  /** True once it has. */
  started(): boolean;
  onError(error: unknown): void;
}

/** A session being opened by `initialize`: its connection, what it said before being kept, and its end. */
interface Opening {
  readonly connection: Connection;
  readonly said: [string, Route][];
  session: HttpSession | undefined;
  readonly ended: () => void;
}

/** The handshake era over HTTP: `initialize` opens a session, later POSTs, a GET stream and DELETE use it. */
export class SessionRequests {
  readonly #c: SessionContext;
  // Live sessions being made here from their records (a shared engine answers later): made once.
  readonly #making = new Map<string, Promise<HttpSession | undefined>>();
  #connections = 0;

  constructor(context: SessionContext) {
    this.#c = context;
  }

  /** The engine's trouble as the 503 that answers a request (`id`: its id's JSON text); anything else rethrown. */
  #fault(id: string | null): (error: unknown) => Outgoing {
    return (error) => {
      if (isEngineUnavailable(error)) return unavailable(id, error);
      if (error instanceof ShuttingDown) return shuttingDown(id);
      throw error;
    };
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
    const fault = (error: unknown) => this.#fault(message === undefined ? null : idOf(message, body))(error);
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
        idOf(message, body),
        ErrorCode.SessionNotFound,
        "Session not found: it ended or expired; send initialize to start a new one",
      );
    }
    const live = c.live.get(id);
    if (live === undefined) {
      // Rare (a session first served here): the engine failing the revival is an outage, as a failed load is.
      const id_ = () => idOf(message, body);
      return attempt(
        () => andThen(this.#revive(record, auth), (revived) => revived ?? shuttingDown(id_())),
        (error) => this.#fault(id_())(error),
      );
    }
    // Another process may have served the session's logging/setLevel since this one last did.
    if (live.connection.logLevel !== record.logLevel) live.connection.sessionKept(record);
    return live;
  }

  // A connection of this process for a session: what its client changes is kept in the engine before its answer.
  #connect(
    id: string,
    send: (line: string, route: Route) => void,
    auth: AuthInfo | undefined,
    initialized: () => void,
    record?: SessionRecord,
  ): Connection {
    const { engine } = this.#c;
    return this.#c.server.connect({
      send,
      onSessionChange: (change) =>
        andThen(engine.changeSession(id, change), () => {
          if (change.kind === "initialized") initialized();
        }),
      outboundIds: `${engine.node}-${++this.#connections}`,
      hearsChanges: false,
      ...(record ? { session: record } : {}),
      ...(auth ? { auth } : {}),
    });
  }

  // The session's live connection here, made from its record (another process opened it, or this one let it go).
  #revive(record: SessionRecord, auth: AuthInfo | undefined): MaybePromise<HttpSession | undefined> {
    const making = this.#making.get(record.id);
    if (making) return making;
    const c = this.#c;
    const session = new HttpSession(record, c.engine, c.onError);
    session.wake = c.live.wake;
    session.connection = this.#connect(
      record.id,
      (line, route) => deliver(session, line, route),
      auth,
      () => {
        session.initialized = true;
      },
      record,
    );
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
      () => andThen(this.#c.ready(), () => this.#initialize(request, body, message, auth)),
      this.#fault(idOf(message, body)),
    );
  }

  #initialize(request: Incoming, body: string, message: unknown, auth: AuthInfo | undefined): MaybePromise<Outgoing> {
    const c = this.#c;
    const id = crypto.randomUUID();
    const opening = this.#opening(id, auth);
    const { connection, said } = opening;
    const settle = (): MaybePromise<Outgoing> => {
      const version = connection.negotiatedVersion;
      // Only a successful initialize opens a session.
      if (version === undefined) {
        connection.close();
        return handshakeReply(said, id);
      }
      const record = recordOf(id, callerOf(request, auth, c.remoteAddress), message, auth, version);
      return attempt(
        () =>
          andThen(c.engine.createSession(record, c.limits), (created): MaybePromise<Outgoing> => {
            if (created !== "created") {
              connection.close();
              return refuse(503, idOf(message, body), ErrorCode.ServerError, fullMessage(created, c.limits.perCaller));
            }
            const opened = new HttpSession(record, c.engine, c.onError);
            opened.wake = c.live.wake;
            opened.connection = connection;
            opening.session = opened;
            return andThen(opened.follow(opening.ended), () => {
              if (c.live.add(opened)) return handshakeReply(said, id);
              // Made as close() ran: no client knows its id, so it ends at once and the initialize is refused.
              return andThen(c.engine.deleteSession(id), () => {
                throw new ShuttingDown();
              });
            });
          }),
        (error) => {
          connection.close();
          throw error;
        },
      );
    };
    // Until it is kept, what the connection says is held back (its reply first of all).
    const done = attempt(
      () => connection.receive(body, { parsed: message }),
      () => undefined,
    );
    return andThen(done, settle);
  }

  // What outlives an initialize (its connection's output, its end) is made here, apart from the request: a closure
  // made in #initialize would keep its whole body (up to maxBodyBytes) for the session's life.
  #opening(id: string, auth: AuthInfo | undefined): Opening {
    const live = this.#c.live;
    // The handshake's own lines wait until the session is kept: its reply says whether it was.
    const said: [string, Route][] = [];
    const opening: { -readonly [K in keyof Opening]: Opening[K] } = {
      said,
      session: undefined,
      ended: () => live.drop(id, true),
      connection: this.#connect(
        id,
        (line, route) => (opening.session ? deliver(opening.session, line, route) : void said.push([line, route])),
        auth,
        () => {
          if (opening.session) opening.session.initialized = true;
        },
      ),
    };
    return opening;
  }

  /** A POST in `session`: its reply is JSON, or an SSE stream kept (in the engine) for resumption. */
  post(
    request: Incoming,
    session: HttpSession,
    body: string,
    message: unknown,
    auth: AuthInfo | undefined,
  ): MaybePromise<Outgoing> {
    const refused = sessionVersionRefusal(request.header(VERSION_HEADER), session.version, message, body);
    if (refused) return refused;
    const needsAnswer = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
    const reply = new Reply(session.replies, message, body);
    // While they run, a cancellation kept for them (missed on the bus) is looked for (a shared engine's fan-out).
    const running = this.#c.engine.shared ? requestIds(message) : [];
    for (const id of running) session.running.add(id);
    const done = session.connection.receive(
      body,
      auth ? { auth, tag: reply, parsed: message } : { tag: reply, parsed: message },
    );
    if (running.length > 0) {
      const over = () => {
        for (const id of running) session.running.delete(id);
      };
      if (done === undefined) over();
      else done.then(over, over);
    }
    if (!needsAnswer) {
      const told = this.#tellOthers(session, body, message);
      reply.accept();
      if (told === undefined) return reply.answered();
      return attempt(() => andThen(told, () => reply.answered()), this.#fault(null));
    }
    if (done !== undefined)
      done.then(
        () => reply.accept(),
        () => reply.accept(),
      );
    else reply.accept();
    return reply.answered();
  }

  // The client's answers and cancellations also go to the other processes following the session: the one that
  // asked (or runs the request) acts on it, the rest drop it. One process alone tells nobody.
  #tellOthers(session: HttpSession, body: string, message: unknown): MaybePromise<void> | undefined {
    const { engine } = this.#c;
    if (!engine.shared) return undefined;
    const lines = Array.isArray(message)
      ? message.filter(forOthers).map((item) => JSON.stringify(item))
      : forOthers(message)
        ? [body]
        : [];
    if (lines.length === 0) return undefined;
    const tell = (line: string) => {
      // An answer is kept for the process that asked (when another): it takes it even if it misses the signal.
      const parsed = JSON.parse(line) as { id?: unknown; method?: unknown; params?: unknown };
      const id = parsed.id;
      const asker = typeof id === "string" ? ASKER.exec(id)?.[1] : undefined;
      const to = asker !== undefined && asker !== engine.node ? { to: asker } : {};
      // A cancellation is kept with the session for whichever process runs the request (none here knows which),
      // unless this one runs it (its connection has it already).
      const request = cancelled(parsed);
      const cancels = request === undefined || session.running.has(request) ? {} : { cancels: request };
      return engine.signal(session.id, { type: "client", line, from: engine.node, ...to, ...cancels });
    };
    return lines.reduce<MaybePromise<void>>((told, line) => andThen(told, () => tell(line)), undefined);
  }

  /** GET: the session's stream for what belongs to no request, or a lost stream resumed from Last-Event-ID. */
  get(request: Incoming, auth: AuthInfo | undefined): MaybePromise<Outgoing> {
    return andThen(this.find(request, auth), (session) => {
      if (isOutgoing(session)) return session;
      if (!session) {
        if (isHandshakeHeader(request.header(VERSION_HEADER))) {
          return refuse(400, null, ErrorCode.ServerError, "Bad Request: no MCP-Session-Id; send initialize first");
        }
        return answer(405, undefined, { allow: "POST" });
      }
      return attempt(() => this.#stream(request, auth, session), this.#fault(null));
    });
  }

  #stream(request: Incoming, auth: AuthInfo | undefined, session: HttpSession): MaybePromise<Outgoing> {
    if (!accepts(request, "text/event-stream")) {
      return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
    }
    const lastEventId = request.header("last-event-id");
    if (lastEventId === null && session.get) {
      return refuse(409, null, ErrorCode.InvalidRequest, "This session already has a GET stream open");
    }
    const c = this.#c;
    const caller = callerOf(request, auth, c.remoteAddress);
    const refused = c.streams.take(caller, null);
    if (refused) return refused;
    const stream = c.streams.open(caller);
    const opened: Outgoing = { status: 200, headers: { ...SSE_HEADERS, "mcp-session-id": session.id }, stream };
    const { engine } = c;
    // Whoever held this stream elsewhere lets go of it (the client has moved here).
    const take = (key: string, holder: string): MaybePromise<void> =>
      engine.shared ? engine.signal(session.id, { type: "taken", stream: key, holder }) : undefined;
    const failed = (error: unknown): never => {
      stream.close();
      throw error;
    };
    if (lastEventId === null) {
      const token = session.holdGet(stream);
      const primed = session.priming ? andThen(engine.append(session.id, "get", ""), () => undefined) : undefined;
      return attempt(() => andThen(primed, () => andThen(take("get", token), () => opened)), failed);
    }
    return attempt(
      () =>
        andThen(engine.replay(session.id, lastEventId), (replayed): MaybePromise<Outgoing> => {
          if (!replayed) {
            stream.close();
            return refuse(400, null, ErrorCode.InvalidRequest, `Unknown Last-Event-ID: ${lastEventId}`);
          }
          const token = session.resume(replayed.stream, replayed.events, stream);
          return andThen(take(replayed.stream, token), () => opened);
        }),
      failed,
    );
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
        this.#fault(null),
      );
    });
  }
}
