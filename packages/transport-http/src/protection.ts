import { type AuthInfo, errorLine, type MaybePromise } from "@toolsmith/core";
import { answer, type Incoming, type Outgoing } from "./exchange.js";

export interface ProtectionOptions {
  /**
   * Origins a browser may call from (`https://app.example.com`), or "any". By default a request with an `Origin`
   * is accepted only from the server's own origin or a loopback one (DNS rebinding protection): else 403.
   */
  allowedOrigins?: readonly string[] | "any";
  /** `Host` values accepted (`localhost:3000`); `listen` on a loopback address sets the loopback names. Else 403. */
  allowedHosts?: readonly string[];
}

/** Refuse a request with a status, a message, and (401/403) what to send in `WWW-Authenticate`. */
export class AuthError extends Error {
  override readonly name = "AuthError";
  constructor(
    readonly status: 401 | 403,
    message: string,
    readonly error: "invalid_token" | "insufficient_scope" | "invalid_request" = status === 403
      ? "insufficient_scope"
      : "invalid_token",
  ) {
    super(message);
  }
}

export interface AuthOptions {
  /**
   * Who is calling: the principal (it reaches handlers as `ctx.auth`), or undefined for 401. Throw an `AuthError`
   * for 403 (a token without the scope) or a 401 with your own message.
   */
  authenticate?: (request: Request) => MaybePromise<AuthInfo | undefined>;
  /** RFC 9728 protected-resource metadata, served at `/.well-known/oauth-protected-resource<path>`. */
  resourceMetadata?: {
    authorizationServers: readonly string[];
    scopesSupported?: readonly string[];
    resourceName?: string;
    resourceDocumentation?: string;
  };
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function hostName(host: string): string {
  return host.startsWith("[") ? host.slice(0, host.indexOf("]") + 1) : (host.split(":")[0] ?? host);
}

function forbidden(message: string): Outgoing {
  return answer(403, errorLine("null", { code: -32000, message }));
}

export type Guard = (request: Incoming) => Outgoing | undefined;

/** The checks every request passes first: Host (when set) and Origin. */
export function guard(options: ProtectionOptions): Guard {
  const hosts = options.allowedHosts ? new Set(options.allowedHosts.map((host) => host.toLowerCase())) : undefined;
  const origins = options.allowedOrigins;
  return (request) => {
    const host = request.header("host")?.toLowerCase();
    if (hosts && (host === undefined || !hosts.has(host))) return forbidden(`Host not allowed: ${host ?? "(none)"}`);
    const origin = request.header("origin");
    if (origin === null || origins === "any") return undefined;
    if (origins) return origins.includes(origin) ? undefined : forbidden(`Origin not allowed: ${origin}`);
    let parsed: URL;
    try {
      parsed = new URL(origin);
    } catch {
      return forbidden(`Origin not allowed: ${origin}`);
    }
    const own = host !== undefined && parsed.host.toLowerCase() === host;
    return own || LOOPBACK.has(hostName(parsed.host.toLowerCase()))
      ? undefined
      : forbidden(`Origin not allowed: ${origin}`);
  };
}

function metadataUrl(request: Incoming, path: string): string {
  return `${request.origin}/.well-known/oauth-protected-resource${path}`;
}

/** The RFC 9728 document for this endpoint, when asked for at its well-known path. */
export function protectedResourceMetadata(options: AuthOptions, request: Incoming, path: string): Outgoing | undefined {
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
    authorization_servers: metadata.authorizationServers,
    bearer_methods_supported: ["header"],
  };
  if (metadata.scopesSupported) body.scopes_supported = metadata.scopesSupported;
  if (metadata.resourceName) body.resource_name = metadata.resourceName;
  if (metadata.resourceDocumentation) body.resource_documentation = metadata.resourceDocumentation;
  return answer(200, JSON.stringify(body));
}

/** The caller, or the 401/403 that refuses them. Without an `authenticate` hook everyone is anonymous. */
export async function authorize(
  options: AuthOptions,
  request: Incoming,
  path: string,
): Promise<AuthInfo | undefined | Outgoing> {
  if (!options.authenticate) return undefined;
  const challenge = (error: string, description: string) => {
    const parts = [`error="${error}"`, `error_description="${description.replace(/["\\]/g, "")}"`];
    if (options.resourceMetadata) parts.unshift(`resource_metadata="${metadataUrl(request, path)}"`);
    return `Bearer ${parts.join(", ")}`;
  };
  const refused = (status: number, error: string, message: string) =>
    answer(status, errorLine("null", { code: -32000, message }), {
      "content-type": "application/json",
      "www-authenticate": challenge(error, message),
    });
  try {
    const principal = await options.authenticate(request.request());
    return principal ?? refused(401, "invalid_token", "Unauthorized");
  } catch (error) {
    if (!(error instanceof AuthError)) throw error;
    return refused(error.status, error.error, error.message);
  }
}
