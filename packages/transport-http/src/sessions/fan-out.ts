import type { Server } from "@toolsmith/core";
import type { InitializedSession, StoredPrincipal } from "@toolsmith/core/engine";
import { isEngineUnavailable } from "@toolsmith/core/engine";
import { type Announcement, andThen, attempt, mayHear, mayRead, onAnnounce } from "@toolsmith/core/internal";
import { orphanedLine } from "../exchange/refusals.js";
import type { HttpSession, SessionsEngine } from "./http-session.js";
import type { LiveSessions } from "./live-sessions.js";

// What a process does for every session of its server, once however many HTTP handlers serve it here:
// - list changes and resource updates made on this process are told to every handshake-era session of the server,
//   wherever it lives: one append to its GET stream per session, kept for resumption (exactly once, even when no
//   GET stream is open; core tells no session connection itself);
// - a request whose process stopped (its lease lapsed) is answered on its stream, where a resuming client finds it;
// - the client's answers POSTed to another process are kept by the engine for this one: taken when a signal wakes it
//   and when the engine resumes (a signal missed while its subscriber was away is not lost), each to its session;
// - the client's cancellations POSTed to another process are kept by the engine with the session: the requests
//   running here are looked up in them on resume and periodically, so a missed one still stops its handler.

// How often a process looks for cancellations kept for the client requests it runs (as core does for its tasks).
const CANCEL_CHECK_MS = 10_000;

function lineOf(announcement: Announcement): string {
  if (announcement.type === "listChanged") {
    return JSON.stringify({ jsonrpc: "2.0", method: `notifications/${announcement.kind}/list_changed` });
  }
  const params = { uri: announcement.uri };
  return JSON.stringify({ jsonrpc: "2.0", method: "notifications/resources/updated", params });
}

interface Link {
  readonly caches: Set<LiveSessions>;
  readonly take: () => void;
  readonly stop: () => void;
}

const links = new WeakMap<Server, Link>();

function swallow(step: () => unknown, onError: (error: unknown) => void): void {
  const done = attempt(step as () => unknown, (error) => onError(error));
  if (done instanceof Promise) done.catch(onError);
}

function link(
  server: Server,
  engine: SessionsEngine,
  caches: Set<LiveSessions>,
  onError: (error: unknown) => void,
): Link {
  const stopAnnounce = onAnnounce(server, (announcement) => {
    const line = lineOf(announcement);
    const allowed = (principal: StoredPrincipal | undefined) =>
      announcement.type === "listChanged"
        ? mayHear(server, announcement.audience, principal)
        : mayRead(server, announcement.uri, principal);
    // Who hears it, with the principals its guards decide on, in one read of the engine that restarts no idle time.
    const each = (sessions: readonly InitializedSession[]) => {
      for (const { id, principal } of sessions) {
        swallow(() => (allowed(principal) ? engine.append(id, "get", line) : undefined), onError);
      }
    };
    const uri = announcement.type === "listChanged" ? undefined : announcement.uri;
    swallow(() => andThen(engine.initializedSessions(uri), each), onError);
  });
  const stopOrphans = engine.onOrphan((orphan) => {
    const line = orphanedLine(orphan.request);
    swallow(() => engine.append(orphan.session, orphan.stream, line), onError);
  });
  // One take at a time; a wake-up meanwhile takes again after it.
  let taking = false;
  let again = false;
  const take = (): void => {
    if (taking) {
      again = true;
      return;
    }
    taking = true;
    again = false;
    const done = () => {
      taking = false;
      if (again) take();
    };
    const taken = attempt(
      () =>
        andThen(engine.takeClientLines(), (lines) => {
          for (const { session, line } of lines) {
            let here: HttpSession | undefined;
            for (const cache of caches) here ??= cache.peek(session);
            // A session no longer served here took its questions with it.
            if (here) swallow(() => here.connection.receive(line), onError);
          }
        }),
      (error) => onError(error),
    );
    if (taken instanceof Promise) taken.then(done, done);
    else done();
  };
  // The client's requests running here that a kept cancellation names (one missed on the bus): one round trip for
  // all, when the engine resumes and every CANCEL_CHECK_MS while any runs; each cancellation found goes to its session.
  let checking = false;
  const check = (): void => {
    if (checking) return;
    const running: { session: string; request: string }[] = [];
    for (const cache of caches) {
      for (const id of cache.ids()) {
        for (const request of cache.peek(id)?.running ?? []) running.push({ session: id, request });
      }
    }
    if (running.length === 0) return;
    checking = true;
    const done = () => {
      checking = false;
    };
    const checked = attempt(
      () =>
        andThen(engine.takeCancels(running), (found) => {
          for (const { session, line } of found) {
            let here: HttpSession | undefined;
            for (const cache of caches) here ??= cache.peek(session);
            if (here) swallow(() => here.connection.receive(line), onError);
          }
        }),
      // The engine away: its resume checks again.
      (error) => (isEngineUnavailable(error) ? undefined : onError(error)),
    );
    if (checked instanceof Promise) checked.then(done, done);
    else done();
  };
  const resumed = () => {
    take();
    check();
  };
  const stopResume = engine.shared ? engine.onResume(resumed) : () => {};
  const checker = engine.shared ? setInterval(check, CANCEL_CHECK_MS) : undefined;
  (checker as { unref?: () => void } | undefined)?.unref?.();
  return {
    caches,
    take,
    stop() {
      stopAnnounce();
      void stopOrphans();
      void stopResume();
      if (checker !== undefined) clearInterval(checker);
    },
  };
}

/** Serve `server`'s sessions from this process (with `live`, the sessions one handler serves); stop with the function. */
export function fanOut(server: Server, engine: SessionsEngine, live: LiveSessions, onError: (error: unknown) => void) {
  let current = links.get(server);
  if (!current) {
    current = link(server, engine, new Set(), onError);
    links.set(server, current);
  }
  const held = current;
  held.caches.add(live);
  live.takeWith(held.take);
  return () => {
    held.caches.delete(live);
    if (held.caches.size > 0 || links.get(server) !== held) return;
    links.delete(server);
    held.stop();
  };
}
