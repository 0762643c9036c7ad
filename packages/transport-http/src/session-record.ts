import type { AuthInfo, MaybePromise, ProtocolVersion, Route, SessionRecord } from "@toolsmith/core";
import { isPlainObject, keptCapabilities, keptClientInfo } from "@toolsmith/core/internal";
import type { Outgoing } from "./exchange.js";
import { handshakeStatus } from "./refusals.js";
import { Reply } from "./reply.js";

// What `initialize` keeps of a new session, and what it answers.

/**
 * The record of a session `initialize` opened: what it negotiated, and its principal as the engine keeps it
 * (subject, scopes, client id: never a token).
 */
export function recordOf(
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
export function fullMessage(created: "full" | "full-for-caller", perCaller: number): string {
  return created === "full"
    ? "Too many open sessions; try again later"
    : `Too many open sessions for one caller (at most ${perCaller}); end one (DELETE) or try again later`;
}

/** The handshake's reply, from what its connection said (held until the session was kept). */
export function handshakeReply(said: readonly [string, Route][], id: string): MaybePromise<Outgoing> {
  const reply = new Reply({ status: handshakeStatus, headers: { "mcp-session-id": id } });
  for (const [line, route] of said) reply.deliver(line, route);
  reply.accept();
  return reply.answered();
}
