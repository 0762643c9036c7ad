import { DefinitionError, type Server } from "@toolsmith/core";
import { addressOf, type RemoteAddress } from "../checks/caller-limits.js";
import { BAD_HOST, type HostOriginCheck, isHostName } from "../checks/protection.js";
import { answer, type Incoming, type Outgoing } from "../exchange/exchange.js";

// The user's own routes beside the MCP endpoint: exact paths (or a `/*` prefix), web-standard handlers, checked
// once at definition, served without MCP or the engine.

/** A route's handler: the request (its body read whole, up to the route's limit) in, a Response out. */
export type RouteHandler = (request: Request, info: RouteInfo) => Response | Promise<Response>;

/** What the transport knows of a route's request beyond the request itself. */
export interface RouteInfo {
  /** The caller's address, as the server's `remoteAddress` option reads it (per-caller limits); undefined if unknown. */
  readonly remoteAddress: string | undefined;
}

/** A route with options. */
export interface RouteOptions {
  handler: RouteHandler;
  /**
   * Serve this route whatever the `Host` and `Origin` (skip the DNS-rebinding checks), for what is probed by address
   * or called cross-site on purpose (a webhook from a known sender). Default false: the checks run, as for `/mcp`.
   */
  anyHost?: boolean;
  /** Largest body this route reads (default the server's `maxBodyBytes`): larger is 413 and the handler never runs. */
  maxBodyBytes?: number;
}

/**
 * Routes keyed `"METHOD /path"`: `"GET /status"`, `"POST /hooks/github"`, or `"GET /static/*"` for every path under
 * `/static/`. A GET route answers HEAD too (without the body) unless a HEAD route is given.
 * @example
 * ```ts source="examples/http.ts#Routes"
 * const routes: Routes = {
 *   "GET /status": () => Response.json({ up: true }),
 *   "POST /hooks/github": { anyHost: true, handler: async (request) => new Response(await request.text()) },
 * };
 * ```
 */
export type Routes = Readonly<Record<string, RouteHandler | RouteOptions>>;

interface UserRoute {
  readonly key: string;
  readonly handler: RouteHandler;
  readonly anyHost: boolean;
  readonly maxBodyBytes: number;
}

// The methods at one path (or prefix); HEAD falls back to GET.
type Table = Map<string, UserRoute>;

const KEY = /^([A-Z]+) (\/[^\s?#]*)$/;
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

// A "." or ".." segment, maybe percent-encoded, or a backslash (a "/" to URL parsing): what URL parsing resolves.
const DOT_SEGMENT = /[/\\](?:\.|%2e)|\\/i;

const TEXT = { "content-type": "text/plain; charset=utf-8" };

/** The paths a user route may not shadow: the MCP endpoint, the health route, the protected-resource metadata. */
export interface Reserved {
  readonly path: string;
  readonly health: string | false;
  readonly metadata: boolean;
}

/** What the options reserve (their defaults as the engine applies them); a DefinitionError for paths that clash. */
export function reservedPaths(options: {
  path?: string;
  healthPath?: string | false;
  resourceMetadata?: unknown;
}): Reserved {
  const path = options.path ?? "/mcp";
  const health = options.healthPath === undefined ? "/healthz" : options.healthPath;
  for (const [name, value] of [
    ["path", path],
    ["healthPath", health],
  ] as const) {
    if (value !== false && (typeof value !== "string" || !value.startsWith("/"))) {
      throw new DefinitionError(`${name} must be a path starting with "/" (got ${JSON.stringify(value)})`);
    }
    // A request's path never holds them (they start its query or fragment): such a path would never match.
    if (value !== false && /[?#]/.test(value)) {
      throw new DefinitionError(
        `${name} ${JSON.stringify(value)} holds "?" or "#", which no request path does: give the path alone`,
      );
    }
  }
  if (health === path) {
    throw new DefinitionError(`healthPath and path are both ${path}: give the health route another path, or false`);
  }
  return { path, health, metadata: options.resourceMetadata !== undefined };
}

/**
 * The server's `maxBodyBytes` (default 4 MiB), or a DefinitionError for what is no whole number of bytes (NaN, -1,
 * 1.5, Infinity), which would refuse every body or none.
 */
export function bodyLimit(limit: number | undefined, route?: string): number {
  if (limit === undefined) return 4 * 1024 * 1024;
  if (Number.isSafeInteger(limit) && limit >= 0) return limit;
  const where = route === undefined ? "" : `Route "${route}": `;
  throw new DefinitionError(`${where}maxBodyBytes must be a whole number of bytes, not ${String(limit)}`);
}

function shadows(reserved: Reserved, path: string, prefix: boolean): string | undefined {
  const taken = [reserved.path, ...(reserved.health === false ? [] : [reserved.health])];
  if (reserved.metadata)
    taken.push("/.well-known/oauth-protected-resource", `/.well-known/oauth-protected-resource${reserved.path}`);
  return taken.find((used) => (prefix ? used.startsWith(`${path}/`) : used === path));
}

/** The user's routes, compiled: `serve` answers a request for one of them, or undefined for any other path. */
export class UserRoutes {
  readonly #exact = new Map<string, Table>();
  // Longest prefix first: the most specific route wins.
  readonly #prefixes: [string, Table][] = [];
  readonly #server: Server | undefined;
  readonly #remoteAddress: RemoteAddress | undefined;

  constructor(
    routes: Routes,
    reserved: Reserved,
    maxBodyBytes: number,
    server?: Server,
    remoteAddress?: RemoteAddress,
  ) {
    this.#server = server;
    this.#remoteAddress = remoteAddress;
    const prefixes = new Map<string, Table>();
    for (const [key, value] of Object.entries(routes)) {
      const match = KEY.exec(key);
      const method = match?.[1];
      const written = match?.[2] ?? "";
      const prefix = written.endsWith("/*");
      // "/static/*": every path under /static/ ("/*": every path).
      const path = prefix ? written.slice(0, -2) : written;
      if (!match || !method || !METHODS.has(method) || path.includes("*")) {
        throw new DefinitionError(
          `Route "${key}": write it "METHOD /path" (GET, HEAD, POST, PUT, PATCH, DELETE or OPTIONS; a path without query or spaces, optionally ending in /* for a prefix), e.g. "GET /status"`,
        );
      }
      // Requests are matched with dot segments and backslashes resolved: a key written with them is never matched.
      const read = DOT_SEGMENT.test(path) ? new URL(path, "http://h").pathname : path;
      if (read !== path) {
        throw new DefinitionError(`Route "${key}": write the path as a URL reads it (${read}), or it is never matched`);
      }
      const taken = shadows(reserved, path, prefix);
      if (taken !== undefined) {
        throw new DefinitionError(
          `Route "${key}" would shadow ${taken}, which the server answers itself: choose another path`,
        );
      }
      const route = typeof value === "function" ? { handler: value } : value;
      if (typeof route?.handler !== "function") {
        throw new DefinitionError(`Route "${key}": give a handler, (request: Request) => Response`);
      }
      const limit = route.maxBodyBytes === undefined ? maxBodyBytes : bodyLimit(route.maxBodyBytes, key);
      const tables = prefix ? prefixes : this.#exact;
      const table = tables.get(path) ?? new Map<string, UserRoute>();
      tables.set(path, table);
      table.set(method, {
        key,
        handler: route.handler,
        anyHost: route.anyHost === true,
        maxBodyBytes: limit,
      });
    }
    this.#prefixes = [...prefixes].sort(([a], [b]) => b.length - a.length);
  }

  /** The answer for a request to one of the routes' paths, or undefined for another path. */
  serve(incoming: Incoming, hostOrigin: HostOriginCheck): Promise<Outgoing> | Outgoing | undefined {
    // Matched as the handler's request.url will read it: "/static/../mcp" is "/mcp", not under /static/.
    const path = DOT_SEGMENT.test(incoming.path) ? new URL(incoming.path, "http://h").pathname : incoming.path;
    const table = this.#exact.get(path) ?? this.#prefixes.find(([prefix]) => path.startsWith(`${prefix}/`))?.[1];
    if (!table) return undefined;
    const method = incoming.method;
    const route = table.get(method) ?? (method === "HEAD" ? table.get("GET") : undefined);
    // The checks run unless the route (or, for a 405, every route at the path) opted out.
    const open = route ? route.anyHost : [...table.values()].every((each) => each.anyHost);
    const refused = open ? undefined : hostOrigin(incoming);
    if (refused) return refused;
    if (!route) {
      const allow = [...table.keys()];
      if (table.has("GET") && !table.has("HEAD")) allow.push("HEAD");
      return answer(405, undefined, { allow: allow.join(", ") });
    }
    return this.#run(incoming, route);
  }

  async #run(incoming: Incoming, route: UserRoute): Promise<Outgoing> {
    const head = incoming.method === "HEAD";
    let request: Request | undefined;
    // A Host that is no host name ("a b", "user@host", "x/../etc#" that would move the handler's URL), RFC 9112: 400.
    const host = incoming.header("host");
    if (host === null || isHostName(host)) {
      try {
        request = incoming.request();
      } catch {
        // No URL could be made of it after all.
      }
    }
    if (request === undefined) return answer(400, `${BAD_HOST}\n`, TEXT);
    // The handler's request.signal aborts when its client goes away (or the server closes the connection).
    const aborted = new AbortController();
    incoming.onAbort(() => aborted.abort());
    let body: Uint8Array | undefined;
    if (incoming.method !== "GET" && !head) {
      const declared = Number(incoming.header("content-length") ?? Number.NaN);
      body = declared > route.maxBodyBytes ? undefined : await incoming.body(route.maxBodyBytes);
      if (body === undefined) return answer(413, `Request body over ${route.maxBodyBytes} bytes\n`, TEXT);
    }
    request = new Request(request, { signal: aborted.signal, body: body as Uint8Array<ArrayBuffer> | undefined });
    let response: unknown;
    try {
      response = await route.handler(request, { remoteAddress: addressOf(incoming, this.#remoteAddress)() });
      if (!(response instanceof Response))
        throw new TypeError(`the handler returned ${typeof response}, not a Response`);
      // Neither can be sent: an error Response has status 0, a read body has nothing left.
      if (response.type === "error") throw new TypeError("the handler returned Response.error()");
      if (response.bodyUsed || response.body?.locked)
        throw new TypeError("the handler returned a Response whose body was read");
    } catch (error) {
      this.#failed(route, error, "failed (answered 500)");
      return answer(500, "Internal Server Error\n", TEXT);
    }
    if (!response.body) return { status: response.status, headers: {}, response };
    if (head) {
      // HEAD: the GET's status and headers, never its body (cancelled, not awaited: a cancel that never settles).
      response.body.cancel().catch(() => undefined);
      return { status: response.status, headers: {}, response: new Response(null, response) };
    }
    return { status: response.status, headers: {}, response: this.#watched(route, response, aborted.signal) };
  }

  // The body as it is, but a failure midway (the status is sent: the connection is cut) is logged, as a throw is;
  // not a cancel because the client left.
  #watched(route: UserRoute, response: Response, left: AbortSignal): Response {
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    (response.body as ReadableStream<Uint8Array>).pipeTo(writable).catch((error: unknown) => {
      if (!left.aborted) this.#failed(route, error, "failed midway through its body (connection cut)");
    });
    return new Response(readable, response);
  }

  #failed(route: UserRoute, error: unknown, what: string): void {
    // Through the server's own log (its logger and its onError hook), which never throws; the logger adds the stack.
    this.#server?.log({
      level: "error",
      message: `Route "${route.key}" ${what}: ${String(error)}`,
      error,
      method: route.key,
    });
  }
}
