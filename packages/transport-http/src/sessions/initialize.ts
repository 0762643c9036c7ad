import { type AuthInfo, ErrorCode, type MaybePromise, type ProtocolVersion } from "@toolsmith/core";
import { keptCapabilities, keptClientInfo, type SessionLimits, type SessionRecord } from "@toolsmith/core/engine";
import { andThen, attempt, isPlainObject, messageIdText } from "@toolsmith/core/internal";
import type { Connection, Delivery } from "@toolsmith/core/transport";
import { callerKeyOf, type RemoteAddress } from "../checks/caller-limits.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { PostReply } from "../exchange/post-reply.js";
import { handshakeStatus, refuse, ShuttingDown } from "../exchange/refusals.js";
import { HttpSession, type SessionsEngine } from "./http-session.js";
import type { LiveSessions } from "./live-sessions.js";

// `initialize` over HTTP: what a new session keeps, and what it answers.

/** What opening a session needs of the handshake era's requests. */
export interface OpeningContext {
  readonly engine: SessionsEngine;
  readonly limits: SessionLimits;
  readonly live: LiveSessions;
  readonly remoteAddress: RemoteAddress | undefined;
  onError(error: unknown): void;
  /**
   * A connection of this process for session `id`: `send` gets its lines, what its client changes is kept in the
   * engine before its answer; `record`: the session as the engine keeps it. No credentials: each request brings its
   * own caller.
   */
  connect(id: string, send: (line: string, delivery: Delivery) => void, record?: SessionRecord): Connection;
}

/** A session being opened by `initialize`: its connection, what it said before being kept, and its end. */
interface Opening {
  readonly connection: Connection;
  readonly said: [string, Delivery][];
  session: HttpSession | undefined;
  readonly ended: () => void;
}

/**
 * The record of a session `initialize` opened: what it negotiated, and its principal as the engine keeps it
 * (subject, scopes, client id: never a token).
 */
function recordOf(
  id: string,
  caller: string | undefined,
  message: unknown,
  auth: AuthInfo | undefined,
  version: ProtocolVersion,
): SessionRecord {
  const params = isPlainObject(message) && isPlainObject(message.params) ? message.params : {};
  const principal = auth
    ? {
        subject: auth.subject,
        scopes: [...auth.scopes],
        ...(typeof auth.clientId === "string" ? { clientId: auth.clientId } : {}),
      }
    : undefined;
  return {
    id,
    principal,
    caller,
    version,
    // Bounded as the connection keeps them: a session's record is small whatever the client declared.
    clientInfo: keptClientInfo(params.clientInfo),
    clientCapabilities: keptCapabilities(params.capabilities),
    initialized: false,
    logLevel: undefined,
  };
}

/** Why the engine would not open one more session. */
function fullMessage(created: "full" | "full-for-caller", perCaller: number): string {
  return created === "full"
    ? "Too many open sessions; try again later"
    : `Too many open sessions for one caller (at most ${perCaller}); end one (DELETE) or try again later`;
}

/** The handshake's reply, from what its connection said (held until the session was kept). */
function initializeReply(said: readonly [string, Delivery][], id: string): MaybePromise<Outgoing> {
  const reply = new PostReply({ status: handshakeStatus, headers: { "mcp-session-id": id } });
  for (const [line, delivery] of said) reply.deliver(line, delivery);
  reply.accept();
  return reply.answered();
}

/**
 * `initialize` (the engine started): a new session, kept (in the engine, within its limits) only when the handshake
 * succeeds; its reply, or the 503 of a server full (or closing: `ShuttingDown` thrown).
 */
export function openSession(
  c: OpeningContext,
  request: Incoming,
  body: string,
  message: unknown,
  auth: AuthInfo | undefined,
): MaybePromise<Outgoing> {
  const id = crypto.randomUUID();
  const opening = openingOf(c, id);
  const { connection, said } = opening;
  const settle = (): MaybePromise<Outgoing> => {
    const version = connection.negotiatedVersion;
    // Only a successful initialize opens a session.
    if (version === undefined) {
      connection.close();
      return initializeReply(said, id);
    }
    const record = recordOf(id, callerKeyOf(request, auth, c.remoteAddress), message, auth, version);
    return attempt(
      () =>
        andThen(c.engine.createSession(record, c.limits), (created): MaybePromise<Outgoing> => {
          if (created !== "created") {
            connection.close();
            return refuse(
              503,
              messageIdText(message, body),
              ErrorCode.ServerError,
              fullMessage(created, c.limits.perCaller),
            );
          }
          const opened = new HttpSession(record, c.engine, c.onError);
          opened.wake = c.live.wake;
          opened.connection = connection;
          opening.session = opened;
          return andThen(opened.follow(opening.ended), () => {
            if (c.live.add(opened)) return initializeReply(said, id);
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
  // Until it is kept, what the connection says is held back (its reply first of all). The door chose its era.
  const options = auth
    ? { parsed: message, era: "handshake" as const, auth }
    : { parsed: message, era: "handshake" as const };
  const done = attempt(
    () => connection.receive(body, options),
    () => undefined,
  );
  return andThen(done, settle);
}

// What outlives an initialize (its connection's output, its end) is made here, apart from the request: a closure
// made in openSession would keep its whole body (up to maxBodyBytes) for the session's life.
function openingOf(c: OpeningContext, id: string): Opening {
  const live = c.live;
  // The handshake's own lines wait until the session is kept: its reply says whether it was.
  const said: [string, Delivery][] = [];
  const opening: { -readonly [K in keyof Opening]: Opening[K] } = {
    said,
    session: undefined,
    ended: () => live.drop(id, true),
    connection: c.connect(id, (line, delivery) =>
      opening.session ? opening.session.deliver(line, delivery) : void said.push([line, delivery]),
    ),
  };
  return opening;
}
