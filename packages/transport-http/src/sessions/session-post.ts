import type { AuthInfo, MaybePromise } from "@toolsmith/core";
import { andThen, attempt, isPlainObject } from "@toolsmith/core/internal";
import { idText } from "@toolsmith/core/transport";
import { sessionVersionRefusal, VERSION_HEADER } from "../checks/versions.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { PostReply } from "../exchange/post-reply.js";
import { faultAnswer, isRequest } from "../exchange/refusals.js";
import type { HttpSession } from "./http-session.js";

// A POST in a handshake-era session: its reply on its own stream, and what the client says that another process of
// the session may be waiting for, told to them.

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

/** A POST in `session`: its reply is JSON, or an SSE stream kept (in the engine) for resumption. */
export function postInSession(
  request: Incoming,
  session: HttpSession,
  body: string,
  message: unknown,
  auth: AuthInfo | undefined,
): MaybePromise<Outgoing> {
  const refused = sessionVersionRefusal(request.header(VERSION_HEADER), session.version, message, body);
  if (refused) return refused;
  const needsAnswer = Array.isArray(message) ? message.some(isRequest) : isRequest(message);
  const reply = new PostReply(session.replies, message, body);
  // While they run, a cancellation kept for them (missed on the bus) is looked for (a shared engine's fan-out).
  const running = session.engine.shared ? requestIds(message) : [];
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
    // Accepted once kept: a `notifications/initialized` the engine could not keep is its outage (503, Retry-After).
    const told = andThen(done, () => tellOthers(session, body, message));
    const accepted = () => {
      reply.accept();
      return reply.answered();
    };
    if (told === undefined) return accepted();
    return attempt(() => andThen(told, accepted), faultAnswer(null));
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
function tellOthers(session: HttpSession, body: string, message: unknown): MaybePromise<void> | undefined {
  const { engine } = session;
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
