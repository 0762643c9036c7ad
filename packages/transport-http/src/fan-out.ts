import type { Engine, Server, SessionRecord, StoredPrincipal } from "@toolsmith/core";
import { type Announcement, mayHear, mayRead, onAnnounce } from "@toolsmith/core/internal";
import type { LiveSessions } from "./live-sessions.js";
import { andThen, attempt } from "./maybe.js";

// Handshake-era sessions hear of list changes and resource updates on their GET stream. The process where a change
// is made tells every session of the server, on whichever process it lives: one append per session, kept for
// resumption (exactly once, even when no GET stream is open). Core tells no session connection itself.

function lineOf(announcement: Announcement): string {
  if (announcement.type === "listChanged") {
    return JSON.stringify({ jsonrpc: "2.0", method: `notifications/${announcement.kind}/list_changed` });
  }
  const params = { uri: announcement.uri };
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params });
}

/** Tell the sessions of `engine` what `server` announces on this process; stop with the function returned. */
export function fanOut(server: Server, engine: Engine, live: LiveSessions, onError: (error: unknown) => void) {
  return onAnnounce(server, (announcement) => {
    const line = lineOf(announcement);
    const allowed = (principal: StoredPrincipal | undefined) =>
      announcement.type === "listChanged"
        ? mayHear(server, announcement.audience, principal)
        : mayRead(server, announcement.uri, principal);
    const tell = (id: string, record: Pick<SessionRecord, "initialized" | "principal"> | undefined) => {
      if (record?.initialized && allowed(record.principal)) return andThen(engine.append(id, "get", line), () => {});
    };
    const each = (ids: readonly string[]) => {
      for (const id of ids) {
        // A session served here and known initialized is told without loading (which would restart its idle time).
        const here = live.peek(id);
        const told = attempt(
          () => (here?.initialized ? tell(id, here) : andThen(engine.loadSession(id), (record) => tell(id, record))),
          onError,
        );
        if (told instanceof Promise) told.catch(onError);
      }
    };
    const ids = attempt(
      () =>
        andThen(announcement.type === "listChanged" ? engine.sessionIds() : engine.subscribers(announcement.uri), each),
      onError,
    );
    if (ids instanceof Promise) ids.catch(onError);
  });
}
