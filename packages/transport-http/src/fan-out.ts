import { type Engine, ErrorCode, errorLine, type Server, type StoredPrincipal } from "@toolsmith/core";
import { type Announcement, mayHear, mayRead, onAnnounce } from "@toolsmith/core/internal";
import type { LiveSessions } from "./live-sessions.js";
import { andThen, attempt } from "./maybe.js";

// What a process does for every session of its server, once however many HTTP handlers serve it here:
// - list changes and resource updates made on this process are told to every handshake-era session of the server,
//   wherever it lives: one append to its GET stream per session, kept for resumption (exactly once, even when no
//   GET stream is open; core tells no session connection itself);
// - a request whose process stopped (its lease lapsed) is answered on its stream, where a resuming client finds it.

/** What a request running on a process that stopped is answered with, by another process. */
export const ORPHANED =
  "Internal error: the server process serving this request stopped before it answered; send it again";

function lineOf(announcement: Announcement): string {
  if (announcement.type === "listChanged") {
    return JSON.stringify({ jsonrpc: "2.0", method: `notifications/${announcement.kind}/list_changed` });
  }
  const params = { uri: announcement.uri };
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params });
}

interface Link {
  readonly caches: Set<LiveSessions>;
  readonly stop: () => void;
}

const links = new WeakMap<Server, Link>();

function swallow(step: () => unknown, onError: (error: unknown) => void): void {
  const done = attempt(step as () => unknown, (error) => onError(error));
  if (done instanceof Promise) done.catch(onError);
}

function link(server: Server, engine: Engine, caches: Set<LiveSessions>, onError: (error: unknown) => void): Link {
  const stopAnnounce = onAnnounce(server, (announcement) => {
    const line = lineOf(announcement);
    const allowed = (principal: StoredPrincipal | undefined) =>
      announcement.type === "listChanged"
        ? mayHear(server, announcement.audience, principal)
        : mayRead(server, announcement.uri, principal);
    const tell = (id: string, initialized: boolean, principal: StoredPrincipal | undefined) => {
      if (initialized && allowed(principal)) return andThen(engine.append(id, "get", line), () => {});
    };
    const each = (ids: readonly string[]) => {
      for (const id of ids) {
        // A session served here and known initialized is told without loading (which would restart its idle time).
        let here: { initialized: boolean; principal: StoredPrincipal | undefined } | undefined;
        for (const cache of caches) here ??= cache.peek(id);
        swallow(
          () =>
            here?.initialized
              ? tell(id, true, here.principal)
              : andThen(engine.loadSession(id), (record) => record && tell(id, record.initialized, record.principal)),
          onError,
        );
      }
    };
    swallow(
      () =>
        andThen(announcement.type === "listChanged" ? engine.sessionIds() : engine.subscribers(announcement.uri), each),
      onError,
    );
  });
  const stopOrphans = engine.onOrphan((orphan) => {
    const line = errorLine(orphan.request, { code: ErrorCode.InternalError, message: ORPHANED });
    swallow(() => engine.append(orphan.session, orphan.stream, line), onError);
  });
  return {
    caches,
    stop() {
      stopAnnounce();
      void stopOrphans();
    },
  };
}

/** Serve `server`'s sessions from this process (with `live`, the sessions one handler serves); stop with the function. */
export function fanOut(server: Server, engine: Engine, live: LiveSessions, onError: (error: unknown) => void) {
  let current = links.get(server);
  if (!current) {
    current = link(server, engine, new Set(), onError);
    links.set(server, current);
  }
  const held = current;
  held.caches.add(live);
  return () => {
    held.caches.delete(live);
    if (held.caches.size > 0 || links.get(server) !== held) return;
    links.delete(server);
    held.stop();
  };
}
