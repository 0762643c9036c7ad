import { type AuthInfo, ErrorCode, type MaybePromise } from "@toolsmith/core";
import { andThen, attempt } from "@toolsmith/core/internal";
import { callerKeyOf, type RemoteAddress, type StreamLimits } from "../checks/caller-limits.js";
import { accepts } from "../checks/post-checks.js";
import { SSE_HEADERS } from "../exchange/event-stream.js";
import type { Incoming, Outgoing } from "../exchange/exchange.js";
import { refuse } from "../exchange/refusals.js";
import type { HttpSession } from "./http-session.js";

/**
 * GET in `session`: a fresh stream for what belongs to no request, or a lost stream resumed from Last-Event-ID (on
 * any process), counted against the stream limits.
 */
export function getStream(
  request: Incoming,
  auth: AuthInfo | undefined,
  session: HttpSession,
  streams: StreamLimits,
  remoteAddress: RemoteAddress | undefined,
): MaybePromise<Outgoing> {
  if (!accepts(request, "text/event-stream")) {
    return refuse(406, null, ErrorCode.InvalidRequest, "Accept must list text/event-stream");
  }
  const lastEventId = request.header("last-event-id");
  if (lastEventId === null && session.get) {
    return refuse(409, null, ErrorCode.InvalidRequest, "This session already has a GET stream open");
  }
  const caller = callerKeyOf(request, auth, remoteAddress);
  const refused = streams.take(caller, null);
  if (refused) return refused;
  const stream = streams.open(caller);
  const opened: Outgoing = { status: 200, headers: { ...SSE_HEADERS, "mcp-session-id": session.id }, stream };
  const { engine } = session;
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
