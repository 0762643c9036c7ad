import { type AuthInfo, ErrorCode } from "@toolsmith/core";
import { createMemoryEngine } from "@toolsmith/core/engine";
import { attempt, defaultEngine, messageIdText } from "@toolsmith/core/internal";
import { declaredScopes, type Servable, serverScopes, toServer } from "@toolsmith/core/transport";
import { callerShare, StreamLimits } from "../checks/caller-limits.js";
import { postRefusal, tooLarge } from "../checks/post-checks.js";
import {
  type AuthorizeContext,
  type AuthUnavailable,
  authorize,
  hostOriginCheck,
  protectedResourceMetadata,
  scopeChallenge,
} from "../checks/protection.js";
import { eraOfPost, handshakeRefused, noEra, VERSION_HEADER } from "../checks/versions.js";
import { answer, type Incoming, isOutgoing, type Outgoing } from "../exchange/exchange.js";
import { refuse, shuttingDown } from "../exchange/refusals.js";
import { UserRoutes } from "../routes/routes.js";
import { fanOut } from "../sessions/fan-out.js";
import type { HttpSession, SessionsEngine } from "../sessions/http-session.js";
import { LiveSessions } from "../sessions/live-sessions.js";
import { SessionRequests } from "../sessions/session-requests.js";
import { StatelessRequests } from "../stateless/stateless.js";
import { startEngine } from "./engine-start.js";
import { checkOptions, type HttpOptions } from "./options.js";

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

/**
 * The MCP endpoint both front doors share, one Incoming in, one Outgoing out: the health route, the user's routes,
 * the checks, then each POST, GET and DELETE to its era's requests or its session (the server's engine keeps the
 * state; this decides where a request goes).
 */
export interface HttpDispatcher {
  serve(request: Incoming): Outgoing | Promise<Outgoing>;
  close(): void;
  /**
   * Serving a request failed (`serve` threw or rejected: a bug, not an outage): told through the server's log (its
   * logger and `onError`), once per error, as a front door answers it.
   */
  failed(error: unknown): void;
  /** Handshake-era sessions this process serves now (each with its live connection). */
  readonly sessions: number;
}

// What a thrown value is called in the log: String() of it, or its tag when it has no way to be one (a null prototype).
function said(error: unknown): string {
  try {
    return String(error);
  } catch {
    return Object.prototype.toString.call(error);
  }
}

// True for what a WeakSet can hold: an object or a function.
function isObject(value: unknown): value is object {
  return (typeof value === "object" && value !== null) || typeof value === "function";
}

/** Build the dispatcher that serves `servable`; `createHttpHandler` and `listen` put a front door on it. */
export function createHttpDispatcher(servable: Servable, options: HttpOptions = {}): HttpDispatcher {
  const server = toServer(servable);
  // Before anything starts: paths that clash (a route shadowing /mcp) throw here, leaving nothing running.
  const { reserved, maxBodyBytes } = checkOptions(options);
  const { path, health } = reserved;
  const routes =
    options.routes && new UserRoutes(options.routes, reserved, maxBodyBytes, server, options.remoteAddress);
  const handshake = options.handshake ?? true;
  const maxStreams = options.maxStreams ?? 1000;
  const maxSessions = options.maxSessions ?? 1000;
  const idleMs = options.sessionIdleMs ?? 30 * 60_000;
  const limits = { max: maxSessions, perCaller: options.maxSessionsPerCaller ?? callerShare(maxSessions), idleMs };
  // The memory engine's event buffer, when no engine was configured: the option kept its meaning.
  const keep = options.eventBufferSize;
  const engine: SessionsEngine =
    keep === undefined ? server.engine : defaultEngine(server, () => createMemoryEngine({ eventsPerSession: keep }));
  // Through the server's own log (its logger and its onError hook), which never throws.
  const onError = (error: unknown) => {
    server.log({ level: "error", message: `HTTP transport: the engine failed: ${said(error)}`, error });
  };
  const live = new LiveSessions(maxSessions, idleMs, engine, onError);
  const streams = new StreamLimits(maxStreams, options.maxStreamsPerCaller ?? callerShare(maxStreams));
  const stateless = new StatelessRequests(server, streams, options.remoteAddress, handshake);
  let closed = false;
  const start = startEngine(server, onError);
  const sessions = new SessionRequests({
    server,
    engine,
    limits,
    streams,
    live,
    remoteAddress: options.remoteAddress,
    ready: start.ready,
    started: () => start.started,
    onError,
  });
  const stopFanOut = fanOut(server, engine, live, onError);
  const hostOrigin = hostOriginCheck(options);
  // What serving a request failed with, once told (an authenticate hook's throw is told where it is caught). A thrown
  // string or null cannot be marked: the hook's are counted, each skipped once by the front door's `failed`.
  const told = new WeakSet<object>();
  const toldValues = new Map<unknown, number>();
  const tell = (message: string, error: unknown) => {
    if (isObject(error)) {
      if (told.has(error)) return;
      told.add(error);
    }
    server.log({ level: "error", message: `${message}: ${said(error)}`, error });
  };
  // True for a string or null the hook threw, told already: counted off once.
  const toldValue = (error: unknown) => {
    const waiting = toldValues.get(error);
    if (waiting === undefined) return false;
    if (waiting > 1) toldValues.set(error, waiting - 1);
    else toldValues.delete(error);
    return true;
  };
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

  // An identity provider that cannot be reached: told once per outage (the first 503); the outage ends with an answer
  // the hook took its time over (one at once came from its memory, not from the provider).
  let outage = false;
  const unavailable = (error: AuthUnavailable | undefined) => {
    if (error === undefined || outage) {
      outage = error !== undefined;
      return;
    }
    outage = true;
    server.log({
      level: "warning",
      message: `HTTP transport: answering 503 until sign-in recovers: ${error.message}`,
      error,
    });
  };

  const authorizing: AuthorizeContext = {
    options,
    path,
    misconfigured: noSubject,
    unavailable,
    scopes: () => serverScopes(server),
  };

  function serve(request: Incoming): Outgoing | Promise<Outgoing> {
    // Before the Host/Origin checks: load balancers probe by address, and the answer reveals nothing.
    if (request.path === health) return healthy(request.method, closed);
    if (routes !== undefined && request.path !== path) {
      const served = routes.serve(request, hostOrigin);
      if (served !== undefined) return served;
    }
    const refused = hostOrigin(request);
    if (refused) return refused;
    if (request.path !== path) {
      const metadata = protectedResourceMetadata(options, request, path, () => declaredScopes(server));
      if (metadata && request.method === "GET") return metadata;
      return answer(404, "Not found", { "content-type": "text/plain" });
    }
    if (!options.authenticate) return route(request, undefined);
    let auth: ReturnType<typeof authorize>;
    try {
      auth = authorize(authorizing, request);
    } catch (error) {
      hookFailed(error);
    }
    // A remembered token is answered at once: the request then waits on nothing more than without a hook.
    if (auth instanceof Promise) return auth.then((settled) => authorized(request, settled), hookFailed);
    return authorized(request, auth);
  }

  function authorized(request: Incoming, auth: AuthInfo | undefined | Outgoing): Outgoing | Promise<Outgoing> {
    return isOutgoing(auth) ? auth : route(request, auth);
  }

  // The hook's own failure (not an AuthError): the request fails, and the server's log (onError too) hears why.
  function hookFailed(error: unknown): never {
    tell("HTTP transport: the authenticate hook threw", error);
    // Bounded: a dispatcher served by a door of one's own that never calls `failed` keeps no more than this.
    if (!isObject(error) && toldValues.size < 1000) toldValues.set(error, (toldValues.get(error) ?? 0) + 1);
    throw error;
  }

  function route(request: Incoming, auth: AuthInfo | undefined): Outgoing | Promise<Outgoing> {
    // Without sessions only 2026-07-28 is served, whose transport is POST alone.
    if (!handshake && request.method !== "POST") return answer(405, undefined, { allow: "POST" });
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

  // A 403 core wrote for want of scopes gets its challenge here, where the metadata's URL is known (RFC 6750 §3.1).
  function challenged(request: Incoming, outgoing: Outgoing): Outgoing {
    const { scopes } = outgoing;
    if (scopes === undefined) return outgoing;
    const challenge = scopeChallenge(options, request, path, scopes);
    return {
      status: outgoing.status,
      headers: { ...outgoing.headers, "www-authenticate": challenge },
      body: outgoing.body,
    };
  }

  // A POST goes to the session it names, else to the era it chose: initialize, or a 2026-07-28 request.
  async function post(request: Incoming, auth: AuthInfo | undefined): Promise<Outgoing> {
    const refused = postRefusal(request, maxBodyBytes);
    if (refused) return refused;
    let body: string | undefined;
    try {
      body = await request.text(maxBodyBytes);
    } catch {
      // The client went away before its body ended (each runtime says so its own way): no bug, so nothing is logged.
      return refuse(400, null, ErrorCode.InvalidRequest, "Bad Request: the body ended before it was whole");
    }
    if (body === undefined) return tooLarge(maxBodyBytes);
    let message: unknown;
    try {
      message = JSON.parse(body);
    } catch {
      return refuse(400, null, ErrorCode.ParseError, "Parse error: the body is not valid JSON");
    }
    if (closed) return shuttingDown(messageIdText(message, body));
    if (!handshake || request.header("mcp-session-id") === null) {
      // The era is decided here, once: each era's requests hand it to the connection that serves them.
      const era = eraOfPost(request.header(VERSION_HEADER), message);
      // No sessions: what is not a 2026-07-28 request is told which versions are served.
      if (era !== "stateless" && !handshake) return handshakeRefused(request.header(VERSION_HEADER), message, body);
      if (era === "handshake") return challenged(request, await sessions.initialize(request, body, message, auth));
      if (era === "stateless") {
        // Never waits for the engine (a 2026-07-28 request needs nothing of it), but starts it for listen streams.
        if (!start.started) void attempt(start.ready, onError);
        return challenged(request, await stateless.serve(request, body, message, auth));
      }
      return noEra(messageIdText(message, body));
    }
    const found = sessions.find(request, auth, message, body);
    const serve = (session: HttpSession | Outgoing | undefined) =>
      isOutgoing(session) || !session ? (session as Outgoing) : sessions.post(request, session, body, message, auth);
    return challenged(request, await (found instanceof Promise ? found.then(serve) : serve(found)));
  }

  return {
    serve,
    close() {
      closed = true;
      start.stop();
      // One process alone: closing it ends its sessions. Shared: they live on, for the other processes.
      const ids = live.ids();
      live.closeAll();
      if (!engine.shared) for (const id of ids) void attempt<unknown>(() => engine.deleteSession(id), onError);
      stopFanOut();
      stateless.close();
    },
    failed(error) {
      if (!isObject(error) && toldValue(error)) return;
      tell("HTTP transport: a request failed", error);
    },
    get sessions() {
      return live.size;
    },
  };
}
