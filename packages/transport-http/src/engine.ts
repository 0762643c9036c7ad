import {
  type AuthInfo,
  createMemoryEngine,
  EngineUnavailable,
  ErrorCode,
  type MaybePromise,
  type Servable,
  toServer,
} from "@toolsmith/core";
import { defaultEngine, isEngineUnavailable } from "@toolsmith/core/internal";
import { callerShare, type RemoteAddress } from "./caller-limits.js";
import { answer, type Incoming, isOutgoing, type Outgoing } from "./exchange.js";
import { fanOut } from "./fan-out.js";
import { shuttingDown } from "./faults.js";
import { LiveSessions } from "./live-sessions.js";
import { attempt } from "./maybe.js";
import { idOf } from "./messages.js";
import { checkLimits } from "./option-checks.js";
import { postRefusal, tooLarge } from "./post-checks.js";
import {
  type AuthOptions,
  authorize,
  type Guard,
  guard,
  type ProtectionOptions,
  protectedResourceMetadata,
} from "./protection.js";
import { refuse } from "./refusals.js";
import { bodyLimit, type Routes, reservedPaths, UserRoutes } from "./routes.js";
import { SessionRequests } from "./session-requests.js";
import type { HttpSession } from "./sessions.js";
import { StatelessRequests } from "./stateless.js";
import { StreamLimits } from "./stream-limits.js";
import { eraOf, noEra, VERSION_HEADER } from "./versions.js";

export interface HttpOptions extends ProtectionOptions, AuthOptions {
  /**
   * The MCP endpoint's path (default `/mcp`); other paths are 404, but for the protected-resource metadata. Holding
   * `?` or `#` (never matched): DefinitionError.
   */
  path?: string;
  /**
   * The health route (default `/healthz`; false: none): GET and HEAD answer 200 "ok" without touching MCP, before the
   * Host/Origin checks (a load balancer probes by address; the answer reveals nothing), and 503 once `close()` has
   * begun (a draining process leaves the rotation); other methods are 405.
   */
  healthPath?: string | false;
  /**
   * The user's own routes beside the MCP endpoint, keyed `"METHOD /path"` (`"GET /status"`, `"POST /hooks/github"`,
   * `"GET /static/*"` for a prefix): web-standard handlers, behind the Host/Origin checks unless `anyHost`, their
   * body read whole up to `maxBodyBytes`; never MCP, never the engine. A route shadowing `path`, the health route or
   * the protected-resource metadata is a DefinitionError.
   */
  routes?: Routes;
  /** Largest accepted request body in bytes (default 4 MiB): larger is 413. Not a whole number: DefinitionError. */
  maxBodyBytes?: number;
  /** Handshake-era sessions open at once, across every process of the server (default 1000): more is 503. */
  maxSessions?: number;
  /**
   * Handshake-era sessions one caller may hold, across every process (default a quarter of `maxSessions`): more is
   * 503.
   */
  maxSessionsPerCaller?: number;
  /** Long-lived SSE streams open at once (GET streams and 2026-07-28 listen streams; default 1000): more is 503. */
  maxStreams?: number;
  /** Long-lived SSE streams one caller may hold open (default a quarter of `maxStreams`): more is 503. */
  maxStreamsPerCaller?: number;
  /**
   * The caller's address, which keys the per-caller limits (the server's task limits too) of a caller `authenticate`
   * does not name (a subject keys them otherwise). node:http's peer address by default; the web-standard handler
   * knows none, so without this such callers share the global limits alone (and one caller's task limits). Behind a
   * proxy, read the address it forwards: `forwardedFor()`. It is given the request and the socket's address (`peer`,
   * undefined in the web-standard handler).
   */
  remoteAddress?: RemoteAddress;
  /** A handshake-era session unused this long ends (default 30 minutes); the server's engine ends it. */
  sessionIdleMs?: number;
  /**
   * SSE events kept per session for resumption with Last-Event-ID (default 512), when the server has no engine of
   * its own: the default memory engine's `eventsPerSession`. A configured engine keeps its own count (the Redis
   * engine's `eventsPerSession`).
   */
  eventBufferSize?: number;
}

const HEALTH_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/plain; charset=utf-8",
  "cache-control": "no-store",
};

// The health route's answer: the process serves HTTP (nothing else is checked, so nothing else is told). Once
// closing, 503: a load balancer takes a draining process out of rotation.
function healthy(method: string, closing: boolean): Outgoing {
  if (method !== "GET" && method !== "HEAD") return answer(405, undefined, { allow: "GET, HEAD" });
  const [status, body] = closing ? [503, "closing\n"] : [200, "ok\n"];
  return answer(status, method === "GET" ? body : undefined, HEALTH_HEADERS);
}

/** The engine both front doors share: one Incoming in, one Outgoing out. */
export interface HttpEngine {
  serve(request: Incoming): Outgoing | Promise<Outgoing>;
  close(): void;
  /** Handshake-era sessions this process serves now (each with its live connection). */
  readonly sessions: number;
}

/** Build the engine that serves `servable`; `createHttpHandler` and `listen` put a front door on it. */
export function createHttpEngine(servable: Servable, options: HttpOptions = {}): HttpEngine {
  const server = toServer(servable);
  // Before anything starts: paths that clash (a route shadowing /mcp) throw here, leaving nothing running.
  const reserved = reservedPaths(options);
  const { path, health } = reserved;
  const maxBodyBytes = bodyLimit(options.maxBodyBytes);
  checkLimits(options);
  const routes = options.routes && new UserRoutes(options.routes, reserved, maxBodyBytes, server);
  const maxStreams = options.maxStreams ?? 1000;
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const limits = { max: maxSessions, perCaller: options.maxSessionsPerCaller ?? callerShare(maxSessions), idleMs };
  // The memory engine's event buffer, when no engine was configured: the option kept its meaning.
  const keep = options.eventBufferSize;
  const engine =
    keep === undefined ? server.engine : defaultEngine(server, () => createMemoryEngine({ eventsPerSession: keep }));
  // Through the server's own log (its logger and its onError hook), which never throws.
  const onError = (error: unknown) => {
    server.log({ level: "error", message: `HTTP transport: the engine failed: ${String(error)}`, error });
  };
  const live = new LiveSessions(maxSessions, idleMs, engine, onError);
  const streams = new StreamLimits(maxStreams, options.maxStreamsPerCaller ?? callerShare(maxStreams));
  const stateless = new StatelessRequests(server, streams, options.remoteAddress);
  // The engine starts once (`listen` starts it before serving). A failed start is tried again by the next request,
  // and by itself after a while (up to every 10 s), so a process started while Redis was down recovers unasked.
  let started = false;
  let starting: Promise<void> | undefined;
  let retry: ReturnType<typeof setTimeout> | undefined;
  let retries = 0;
  let closed = false;
  const again = () => {
    if (retry !== undefined || closed) return;
    retry = setTimeout(
      () => {
        retry = undefined;
        void attempt(ready, () => undefined);
      },
      Math.min(10_000, 500 * 2 ** retries++),
    );
    (retry as { unref?: () => void }).unref?.();
  };
  // A start refused for another reason than reach (a Redis that may evict its keys, say) is said once, and answered
  // as an engine away (503 + Retry-After, tried again), never as a bare 500: it may be fixed while the process runs.
  let toldRefusal: string | undefined;
  const told = new WeakSet<object>();
  const unstarted = (error: unknown): unknown => {
    if (isEngineUnavailable(error)) return error;
    const message = error instanceof Error ? error.message : String(error);
    if (message !== toldRefusal) {
      toldRefusal = message;
      onError(error);
    }
    const away = new EngineUnavailable(`The engine could not start: ${message}`, { cause: error });
    told.add(away);
    return away;
  };
  const ready = (): MaybePromise<void> => {
    if (started) return;
    if (starting) return starting;
    const start = server.startEngine();
    if (!(start instanceof Promise)) {
      started = true;
      return;
    }
    starting = start.then(
      () => {
        started = true;
        starting = undefined;
        if (retry !== undefined) clearTimeout(retry);
        retry = undefined;
      },
      (error: unknown) => {
        starting = undefined;
        again();
        throw unstarted(error);
      },
    );
    return starting;
  };
  // Started now, so what this process announces reaches the other processes before it serves anything; a request
  // that needs the engine waits for it.
  void attempt(ready, (error) => {
    if (!told.has(error as object)) onError(error);
  });
  const sessions = new SessionRequests({
    server,
    engine,
    limits,
    streams,
    live,
    remoteAddress: options.remoteAddress,
    ready,
    started: () => started,
    onError,
  });
  const stopFanOut = fanOut(server, engine, live, onError);
  const checks: Guard = guard(options);
  // A principal without a subject is the authenticate hook's bug: told once, not on every request it refuses.
  let toldNoSubject = false;
  const noSubject = () => {
    if (toldNoSubject) return;
    toldNoSubject = true;
    const message = `The authenticate hook returned a principal without a subject; every such request is answered 401. Return { subject: "<non-empty caller id>", scopes } from authenticate`;
    // An error, so a server with only onError hears it too; its stack is transport-http's, not the hook's: left out.
    const error = new Error(message);
    delete error.stack;
    server.log({ level: "error", message, error });
  };

  function serve(request: Incoming): Outgoing | Promise<Outgoing> {
    // Before the Host/Origin checks: load balancers probe by address, and the answer reveals nothing.
    if (request.path === health) return healthy(request.method, closed);
    if (routes !== undefined && request.path !== path) {
      const served = routes.serve(request, checks);
      if (served !== undefined) return served;
    }
    const refused = checks(request);
    if (refused) return refused;
    if (request.path !== path) {
      const metadata = protectedResourceMetadata(options, request, path);
      if (metadata && request.method === "GET") return metadata;
      return answer(404, "Not found", { "content-type": "text/plain" });
    }
    if (!options.authenticate) return route(request, undefined);
    return authorize(options, request, path, noSubject).then((auth) =>
      isOutgoing(auth) ? auth : route(request, auth),
    );
  }

  function route(request: Incoming, auth: AuthInfo | undefined): Outgoing | Promise<Outgoing> {
    switch (request.method) {
      case "POST":
        return post(request, auth);
      // Once closing, nothing new starts here (a session made now would outlive close): 503, to retry elsewhere.
      case "GET":
        return closed ? shuttingDown(null) : sessions.get(request, auth);
      case "DELETE":
        return closed ? shuttingDown(null) : sessions.remove(request, auth);
      default:
        return answer(405, undefined, { allow: "POST, GET, DELETE" });
    }
  }

  // A POST goes to the session it names, else to the era it chose: initialize, or a 2026-07-28 request.
  async function post(request: Incoming, auth: AuthInfo | undefined): Promise<Outgoing> {
    const refused = postRefusal(request, maxBodyBytes);
    if (refused) return refused;
    const body = await request.text(maxBodyBytes);
    if (body === undefined) return tooLarge(maxBodyBytes);
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return refuse(400, null, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    if (closed) return shuttingDown(idOf(message, body));
    if (request.header("mcp-session-id") === null) {
      const era = eraOf(request.header(VERSION_HEADER), message);
      if (era === "handshake") return sessions.initialize(request, body, message, auth);
      if (era === "stateless") {
        // Never waits for the engine (a 2026-07-28 request needs nothing of it), but starts it for listen streams.
        if (!started) void attempt(ready, onError);
        return stateless.serve(request, body, message, auth);
      }
      return noEra(idOf(message, body));
    }
    const found = sessions.find(request, auth, message, body);
    const serve = (session: HttpSession | Outgoing | undefined) =>
      isOutgoing(session) || !session ? (session as Outgoing) : sessions.post(request, session, body, message, auth);
    return found instanceof Promise ? found.then(serve) : serve(found);
  }

  return {
    serve,
    close() {
      closed = true;
      if (retry !== undefined) clearTimeout(retry);
      // One process alone: closing it ends its sessions. Shared: they live on, for the other processes.
      const ids = live.ids();
      live.closeAll();
      if (!engine.shared) for (const id of ids) void attempt<unknown>(() => engine.deleteSession(id), onError);
      stopFanOut();
      stateless.close();
    },
    get sessions() {
      return live.size;
    },
  };
}
