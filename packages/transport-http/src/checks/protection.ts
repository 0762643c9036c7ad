import { type AuthInfo, ErrorCode, type MaybePromise } from "@toolsmith/core";
import { errorLine } from "@toolsmith/core/transport";
import { answer, type Incoming, type Outgoing } from "../exchange/exchange.js";
import { refuse } from "../exchange/refusals.js";

export interface ProtectionOptions {
  /**
   * Origins a browser may call from (`https://app.example.com`), or "any". By default a request with an `Origin`
   * is accepted only from a loopback origin, the server's own, or one of `allowedHosts` (DNS rebinding protection):
   * else 403.
   */
  allowedOrigins?: readonly string[] | "any";
  /**
   * `Host` values accepted (`mcp.example.com`, `localhost:3000`; compared whole), or "any" for a deployment whose
   * proxy checks `Host` itself. By default only loopback names are: `localhost`, `127.0.0.0/8` and `[::1]`, on any
   * port (`listen`: its own port), which is DNS rebinding protection. Else 403.
   */
  allowedHosts?: readonly string[] | "any";
}

/**
 * Refuse a request with a status, a message, and (401/403) what to send in `WWW-Authenticate`; `scopes`, for a 403,
 * every scope the request needs (its `scope` parameter, which a client steps up with).
 */
export class AuthError extends Error {
  override readonly name = "AuthError";
  constructor(
    readonly status: 401 | 403,
    message: string,
    readonly error: "invalid_token" | "insufficient_scope" | "invalid_request" = status === 403
      ? "insufficient_scope"
      : "invalid_token",
    readonly scopes?: readonly string[],
  ) {
    super(message);
  }
}

/**
 * Thrown by an `authenticate` hook that cannot tell (its identity provider is down, slow or answers garbage): the
 * request is answered 503 with `Retry-After`, never 401, so a client keeps a token that may well be good.
 */
export class AuthUnavailable extends Error {
  override readonly name = "AuthUnavailable";
  /** Whole seconds a client should wait before retrying (at least 1), sent as `Retry-After`. */
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 5, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfterSeconds = Math.max(1, Math.ceil(Number.isFinite(retryAfterSeconds) ? retryAfterSeconds : 5));
  }
}

/**
 * Who is calling, from a request: the principal, or undefined for 401. A hook that reads nothing of the request but
 * its `Authorization` header may say so with `fromAuthorization`: it is then given that header alone, and no web
 * Request is made for it (what `@toolsmith/auth`'s verifiers do, so checking a token costs no more than that).
 */
export type AuthenticateHook = ((request: Request) => MaybePromise<AuthInfo | undefined>) & {
  readonly fromAuthorization?: (authorization: string | null) => MaybePromise<AuthInfo | undefined>;
};

export interface AuthOptions {
  /**
   * Who is calling: the principal (it reaches handlers as `ctx.auth`), or undefined for 401. Throw an `AuthError`
   * for 403 (a token without the scope) or a 401 with your own message. Sessions and `requestState` are bound to
   * the principal's `subject`, which must be a non-empty string: a principal without one is a configuration
   * error, answered 401 and logged once through the server's logger. Throw an `AuthUnavailable` when the hook
   * cannot tell (its identity provider is unreachable): 503 with `Retry-After`.
   */
  authenticate?: AuthenticateHook;
  /** RFC 9728 protected-resource metadata, served at `/.well-known/oauth-protected-resource<path>`. */
  resourceMetadata?: {
    /** The authorization servers' issuers; a function is given the origin the request was addressed to. */
    authorizationServers: readonly string[] | ((origin: string) => readonly string[]);
    /**
     * `scopes_supported`; by default every scope the server uses, as it is now: its own (`createServer({ scopes })`)
     * and those of each tool, resource, template and prompt no guard hides, sorted.
     */
    scopesSupported?: readonly string[];
    resourceName?: string;
    resourceDocumentation?: string;
  };
}

// A loopback name, with or without a port: localhost, 127.0.0.0/8, [::1].
const LOOPBACK_HOST = /^(?:localhost|127(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}|\[::1\])(?::\d{1,5})?$/i;

/** True for a `Host` value that names this machine's loopback interface. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOST.test(host);
}

// A host name or bracketed IP literal with an optional port: nothing ("/", "?", "#", "@", a space) that would move
// into the path, query or user info of a URL made from it.
const HOST_NAME = /^(?:[a-z0-9\-._~]+|\[[0-9a-f:.]+\])(?::\d{0,5})?$/i;
// The last Host checked, and its verdict: a client sends the same one on every request.
let lastHost = "";
let lastHostOk = false;

/**
 * True for a `Host` value a URL can be made of without it changing the path: `http://${host}${target}` keeps the
 * request's own path and query (`evil/../x#` would not), and parses (`1.2.3.999` would not).
 */
export function isHostName(host: string): boolean {
  if (host === lastHost) return lastHostOk;
  lastHost = host;
  lastHostOk = HOST_NAME.test(host) && URL.canParse(`http://${host}/`);
  return lastHostOk;
}

/** The 400 of a `Host` that is no host name (RFC 9112), in JSON-RPC as the MCP endpoint answers. */
export const BAD_HOST = "Bad Request: the Host header is not a host name";

function forbidden(message: string): Outgoing {
  return refuse(403, null, ErrorCode.ServerError, message);
}

/** The Host and Origin check of a request: undefined when it passes, else the refusal. */
export type HostOriginCheck = (request: Incoming) => Outgoing | undefined;

/** The checks every request passes first: Host (loopback names unless `allowedHosts` says otherwise) and Origin. */
export function hostOriginCheck(options: ProtectionOptions): HostOriginCheck {
  const allowed = options.allowedHosts;
  const hosts = typeof allowed === "object" ? new Set(allowed.map((host) => host.toLowerCase())) : undefined;
  const anyHost = allowed === "any";
  const origins = options.allowedOrigins;
  return (request) => {
    const host = request.header("host");
    // Not checked against a list, so checked for what a URL is made of (the authenticate hook's, a route's).
    if (anyHost && host !== null && !isHostName(host)) return refuse(400, null, ErrorCode.InvalidRequest, BAD_HOST);
    if (!anyHost && (host === null || !(hosts ? hosts.has(host.toLowerCase()) : LOOPBACK_HOST.test(host)))) {
      return forbidden(
        `Host not allowed: ${host ?? "(none)"}. Set the allowedHosts option to the names clients use (by default only loopback names are accepted: DNS rebinding protection), or to "any" when a proxy in front checks Host`,
      );
    }
    const origin = request.header("origin");
    if (origin === null || origins === "any") return undefined;
    const refused = () =>
      forbidden(`Origin not allowed: ${origin}; set the allowedOrigins option to the origins a browser may call from`);
    if (origins) return origins.includes(origin) ? undefined : refused();
    let from: string;
    try {
      from = new URL(origin).host.toLowerCase();
    } catch {
      return refused();
    }
    const own = host !== null && from === host.toLowerCase();
    return own || LOOPBACK_HOST.test(from) || hosts?.has(from) ? undefined : refused();
  };
}

function metadataUrl(request: Incoming, path: string): string {
  return `${request.origin}/.well-known/oauth-protected-resource${path}`;
}

/**
 * A `WWW-Authenticate: Bearer` value, always in one order: where the metadata is, the scopes to ask for, then the
 * error and its description (none for a request that carried no credentials, RFC 6750 §3.1).
 */
function bearerChallenge(
  metadata: string | undefined,
  scopes: readonly string[] | undefined,
  error?: string,
  description?: string,
): string {
  const parts: string[] = [];
  if (metadata !== undefined) parts.push(`resource_metadata="${metadata}"`);
  if (scopes?.length) parts.push(`scope="${scopes.join(" ").replace(/["\\]/g, "")}"`);
  if (error !== undefined && description !== undefined) {
    parts.push(`error="${error}"`, `error_description="${description.replace(/["\\]/g, "")}"`);
  }
  return parts.length === 0 ? "Bearer" : `Bearer ${parts.join(", ")}`;
}

/**
 * The `WWW-Authenticate` value of a 403 for want of `scopes` (RFC 6750 §3.1, MCP's scope challenge): every scope the
 * operation needs, and where the metadata is, so a client can step up and retry.
 */
export function scopeChallenge(
  options: AuthOptions,
  request: Incoming,
  path: string,
  scopes: readonly string[],
): string {
  const metadata = options.resourceMetadata ? metadataUrl(request, path) : undefined;
  return bearerChallenge(metadata, scopes, "insufficient_scope", `This operation needs the scopes ${scopes.join(" ")}`);
}

/**
 * The RFC 9728 document for this endpoint, when asked for at its well-known path; `declared`: every scope the server
 * uses, its `scopes_supported` unless the options name them.
 */
export function protectedResourceMetadata(
  options: AuthOptions,
  request: Incoming,
  path: string,
  declared: () => readonly string[] = () => [],
): Outgoing | undefined {
  const metadata = options.resourceMetadata;
  if (!metadata) return undefined;
  if (
    request.path !== `/.well-known/oauth-protected-resource${path}` &&
    request.path !== "/.well-known/oauth-protected-resource"
  ) {
    return undefined;
  }
  const body: Record<string, unknown> = {
    resource: `${request.origin}${path}`,
    authorization_servers:
      typeof metadata.authorizationServers === "function"
        ? metadata.authorizationServers(request.origin)
        : metadata.authorizationServers,
    bearer_methods_supported: ["header"],
  };
  const scopes = metadata.scopesSupported ?? declared();
  if (scopes.length > 0) body.scopes_supported = scopes;
  if (metadata.resourceName) body.resource_name = metadata.resourceName;
  if (metadata.resourceDocumentation) body.resource_documentation = metadata.resourceDocumentation;
  return answer(200, JSON.stringify(body));
}

// What a caller is told when `authenticate` gave a principal without a subject.
const NO_SUBJECT =
  "Unauthorized: the server's authenticate hook returned a principal without a subject (a non-empty string is required)";

// True for what `await` would wait on: a hook may answer with any thenable.
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T> | null)?.then === "function";
}

/** What `authorize` is told besides the request: where the endpoint is, the server's scopes, and whom to tell. */
export interface AuthorizeContext {
  readonly options: AuthOptions;
  /** The MCP endpoint's path (the metadata URL is made of it). */
  readonly path: string;
  /** Told of a principal without a subject: it could not be told from another. */
  readonly misconfigured: () => void;
  /**
   * Told of each `AuthUnavailable` (503), and of each answer that came later (undefined): an outage's start and end.
   * An answer at once (from the hook's memory) tells neither.
   */
  readonly unavailable?: (error: AuthUnavailable | undefined) => void;
  /** The server's own scopes, which every request needs: what a 401 names as the scopes to ask for. */
  readonly scopes: () => readonly string[];
}

/**
 * The caller, or the 401/403 that refuses them (503 when the hook throws `AuthUnavailable`). Without an
 * `authenticate` hook everyone is anonymous. A principal without a subject is refused with 401 and reported
 * through `misconfigured`. Answered at once when the hook answers at once (a verifier's remembered token), so an
 * accepted request costs no promise more than without a hook; throws (or rejects with) what the hook throws that
 * is neither an `AuthError` nor an `AuthUnavailable`.
 */
export function authorize(context: AuthorizeContext, request: Incoming): MaybePromise<AuthInfo | undefined | Outgoing> {
  const hook = context.options.authenticate;
  if (!hook) return undefined;
  let principal: MaybePromise<AuthInfo | undefined | null>;
  try {
    principal = hook.fromAuthorization
      ? hook.fromAuthorization(request.header("authorization"))
      : hook(request.request());
  } catch (error) {
    return refusedFor(context, request, error);
  }
  if (isThenable(principal)) {
    return Promise.resolve(principal).then(
      (settled) => {
        // An answer that took its time may have asked the identity provider: an outage is over.
        context.unavailable?.(undefined);
        return decided(context, request, settled);
      },
      (error: unknown) => refusedFor(context, request, error),
    );
  }
  // An answer at once came from the hook's memory (a remembered token): it says nothing of an outage, which goes on.
  return decided(context, request, principal);
}

// The hook's answer: its principal, or the 401 of none (or of one without a subject).
function decided(context: AuthorizeContext, request: Incoming, principal: AuthInfo | undefined | null) {
  if (principal !== undefined && principal !== null) {
    if (typeof principal.subject === "string" && principal.subject.trim() !== "") return principal;
    context.misconfigured();
    return refusal(context, request, 401, "invalid_token", NO_SUBJECT);
  }
  // RFC 6750 §3.1: a request that carried no credentials is told where to get some, without an error code.
  if (request.header("authorization") === null) return refusal(context, request, 401, undefined, "Unauthorized");
  return refusal(context, request, 401, "invalid_token", "Unauthorized");
}

// What the hook threw: an `AuthError`'s refusal, an `AuthUnavailable`'s 503; anything else is thrown on.
function refusedFor(context: AuthorizeContext, request: Incoming, error: unknown): Outgoing {
  if (error instanceof AuthUnavailable) {
    context.unavailable?.(error);
    return answer(503, errorLine("null", { code: ErrorCode.ServerError, message: error.message }), {
      "content-type": "application/json",
      "retry-after": String(error.retryAfterSeconds),
    });
  }
  if (!(error instanceof AuthError)) throw error;
  return refusal(context, request, error.status, error.error, error.message, error.scopes);
}

// A 401 or 403 with its challenge: a 403 names what its refusal needs, a 401 the server's own scopes (what a client
// first asks for); with no `error`, neither an error code nor a description (a request without credentials).
function refusal(
  context: AuthorizeContext,
  request: Incoming,
  status: number,
  error: string | undefined,
  message: string,
  named?: readonly string[],
): Outgoing {
  const metadata = context.options.resourceMetadata ? metadataUrl(request, context.path) : undefined;
  const scopes = status === 401 ? context.scopes() : status === 403 ? named : undefined;
  return answer(status, errorLine("null", { code: ErrorCode.ServerError, message }), {
    "content-type": "application/json",
    "www-authenticate": bearerChallenge(metadata, scopes, error, error === undefined ? undefined : message),
  });
}
